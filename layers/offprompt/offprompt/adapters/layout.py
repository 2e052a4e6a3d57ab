"""The storage layout: every DynamoDB key shape, S3 root and OpenSearch document id offprompt writes, in one place.

Why one file of ~790 lines (docs/adr/0058): the point of this module is that every key shape is in one place, beside
the families the tenant inventory reads; split, a new item could be written where the erase does not look.

The stores build their keys with the functions here; the tenant inventory (export, import, erase and its
verification, the index backfill: `adapters/tenant_items.py`, `tenant_objects.py`, `tenant_documents.py`)
enumerates and classifies a tenant's data from the same tables (`FAMILIES`, `S3_ROOTS`). So what an erase finds
follows from what the stores write: a new kind of item goes into a family here (its sort-key prefix), a new
partition family into `FAMILIES` (with the sort key of its root, which carries the tenant index attribute), a new
S3 root into `S3_ROOTS`; `tests/unit/test_storage_layout.py` shows an erase missing an item the layout does not
know, and every key shape fitting DynamoDB's limits for the longest identifiers.

DynamoDB (one table, `pk`/`sk`; `key()` escapes `#` and `%` in identifiers, `part()` digests an identifier too
long for the key it goes into, `%~` + its SHA-256):

- thread: `T#{tenant}#TH#{thread}` → `#THREAD` thread (root), `RUN#{seq}` run, `RUNID#{run_id}` run_id,
  `EXPIRED#{event}` expired_marker
- alias: `T#{tenant}#ALIAS#{alias}` → `#ALIAS` alias (root)
- memory: `TASKMEM#{tenant}#{memory}` → `NS#{ns}` namespace (root), `BATCH#{ns}#{start}` batch,
  `META#{time}#{id}` meta, `UPLOADED#{upload_id}` upload_marker
- receipt: `RECEIPT#{tenant}#%~{digest(memory, key)}` → `RECEIPT` receipt (root)
- api_key: `APIKEY#{key_id}` → `#APIKEY` api_key (root; its tenant is an attribute)
- tenant (fixed): `TENANT#{tenant}` → `#TENANT` tenant, `KEY#{key_id}` key_listing, `#INDEXED` index_marker (every
  partition of the tenant is in the tenant index: put by a complete backfill), `#BACKFILL` index_progress (where an
  unfinished backfill goes on from; docs/adr/0043)
- usage (fixed): `U#{tenant}#S{n}`, `U#{tenant}#Q` → `D#{day}` usage
- rate (fixed): `RATE#{tenant}#{shard}` → `W#{second}` rate_window
- record (fixed): `REC#{tenant}` → `CUR#{labels}##{key}` record (the current version or a tombstone),
  `VER#{labels}##{key}#{version}` record_version (a past version), `RNS#{labels}` record_namespace (its settings),
  `EXPIRED#{event}` record_expired_marker (a swept version's bytes taken off the gauge); labels are
  `record_labels()` (docs/adr/0034); values over 350 KB are S3 objects under the `records/` root
- checkpoint: `CKP#{tenant}#{thread}` → `#CKP` checkpoint_thread (root), `C#{ns}#{checkpoint_id}` checkpoint,
  `C#{ns}#{checkpoint_id}#W#{task}#{idx}` checkpoint_write, `C#{ns}#~` checkpoint_head (a copy's or a pruned
  thread's read state, first in a newest-first Query of the namespace); `{ns}` is `checkpoint_ns_part()`
  (base64url, or `%~` + a digest), blobs over 350 KB are S3 objects under the `checkpoints/` root (docs/adr/0039)
- extraction (fixed): `XTR#{tenant}` → `STRAT#{name}` extraction_strategy, `XS#{thread}#{strategy}`
  extraction_status (where a strategy stands on a thread; docs/adr/0051)
- fork registry (fixed): `FORK#{tenant}` → `F#{thread}` fork_link (a fork that reads another thread's runs, with its
  ancestry: written with the fork, deleted with it; a prefix search Queries it with `begins_with` instead of listing
  the threads under the prefix, docs/adr/0064); bookkeeping: not exported (an import writes it again from the
  imported fork), erased, never metered
- not a tenant's: `DEPLOYMENT` → `#INDEXED` (written by earlier versions; read by nothing since docs/adr/0043)

The sparse KEYS_ONLY global secondary index `TenantRoots` (hash key `tenant_dir` only) lists each partition root
(`tenant_index_value`): export and erase Query it instead of scanning the table (docs/adr/0024).

S3 (`digest()` of the tenant first, so a tenant's objects share prefixes): `t/` big runs · `taskmem/` blobs,
batch manifests and (OpenSearch Serverless mode) text records · `uploads/` pending uploads · `downloads/`
materialized load responses · `exports/` exports.
OpenSearch (one index): one document per text chunk, id `digest(tenant, memory, namespace, position, chunk)`, and
one per indexed long-term record version (`doc_kind` "record"), id `digest("record", tenant, namespace path, key,
version, write_id)` on a provisioned domain (Serverless assigns ids), and one per run or session item of a thread
(`doc_kind` "conversation", docs/adr/0048), id `digest("conversation", tenant, thread, kind, seq)` on a provisioned
domain, written and deleted by the stream indexer as the run items come and go; every document's `tenant` keyword is
the tenant.
"""

from __future__ import annotations

import base64
import hashlib
import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from offprompt.identifiers import digest, key
from offprompt.limits import RATE_SHARD_CAPACITY, USAGE_SHARDS

#: DynamoDB's limits: a partition key of at most 2,048 bytes, a sort key of at most 1,024 (UTF-8).
MAX_PK_BYTES = 2048
MAX_SK_BYTES = 1024
#: An identifier whose escaped form is longer than this goes into a key as `%~` + its SHA-256 (`part`), so no
#: combination of valid identifiers exceeds the limits above. `key` turns every `%` of an identifier into `%25`,
#: so no escaped identifier holds `%~`: a digest part never equals a real one, and short identifiers keep the
#: keys they always had.
MAX_PART_BYTES = 512
DIGEST_MARK = "%~"

# ---- the tenant index ----------------------------------------------------------------------------------------
#: The sparse, KEYS_ONLY global secondary index of partition roots by tenant (hash key only: a pk of any length).
TENANT_INDEX = "TenantRoots"
#: Its hash key attribute, written only on the item that roots a tenant's partition, when that item is created.
TENANT_INDEX_ATTRIBUTE = "tenant_dir"
#: Index partitions per tenant: a tenant creating threads fast spreads its index writes over this many keys.
TENANT_INDEX_SHARDS = 8


#: The sparse, KEYS_ONLY index of conversation threads by last activity (issue 33 friction 1, docs/adr/0054): hash
#: key `tenant_dir` (the thread root's shard), range key `activity` — written only on thread items.
ACTIVITY_INDEX = "TenantActivity"
ACTIVITY_ATTRIBUTE = "activity"


def activity_value(when_iso: str, pk: str) -> str:
    """A thread's `activity`: the time of its last write (ISO, fixed width: sorts as time) and a digest of its key,
    so no two threads share one (a listing's position is exact)."""
    return f"{when_iso}|{hashlib.sha256(pk.encode('utf-8')).hexdigest()[:16]}"


def part(identifier: str) -> str:
    """An identifier as one key part: escaped, or `%~` + its digest when the escaped form would be too long."""
    escaped = key(identifier)
    if len(escaped.encode("utf-8", "surrogatepass")) > MAX_PART_BYTES:
        return DIGEST_MARK + hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()
    return escaped


def _key(*parts: str | int) -> str:
    """`key()` of already-safe parts: literal names, `part()`s and integers."""
    return "#".join(f"{p:012d}" if isinstance(p, int) else p for p in parts)


def tenant_index_value(tenant: str, pk: str) -> str:
    """The `tenant_dir` of a partition root: `{tenant}#{n}`, n in 0..TENANT_INDEX_SHARDS-1 from a hash of its pk."""
    return f"{part(tenant)}#{zlib.crc32(pk.encode('utf-8')) % TENANT_INDEX_SHARDS}"


def tenant_index_values(tenant: str) -> tuple[str, ...]:
    """Every index partition of a tenant."""
    return tuple(f"{part(tenant)}#{n}" for n in range(TENANT_INDEX_SHARDS))


# ---- DynamoDB keys --------------------------------------------------------------------------------------------
THREAD_SK = "#THREAD"
RUN_PREFIX = "RUN"
RUNID_PREFIX = "RUNID"
EXPIRED_PREFIX = "EXPIRED"
ALIAS_SK = "#ALIAS"
NS_PREFIX = "NS"
BATCH_PREFIX = "BATCH"
META_PREFIX = "META"
UPLOADED_PREFIX = "UPLOADED"
RECEIPT_SK = "RECEIPT"
KEY_SK = "#APIKEY"
TENANT_SK = "#TENANT"
KEY_LISTING_PREFIX = "KEY"
INDEXED_SK = "#INDEXED"
BACKFILL_SK = "#BACKFILL"
DEPLOYMENT_PK = "DEPLOYMENT"
USAGE_DAY_PREFIX = "D"
RATE_SECOND_PREFIX = "W"
RECORD_PREFIX = "CUR"
RECORD_VERSION_PREFIX = "VER"
RECORD_NAMESPACE_PREFIX = "RNS"
#: A record namespace label (or key) whose escaped form is longer than this goes into a sort key as its digest, so
#: the longest key of 8 labels fits DynamoDB's 1,024 bytes: 4 + 8 * (66 + 1) + 1 + 300 + 13 < 1024.
MAX_LABEL_PART_BYTES = 64
MAX_RECORD_KEY_PART_BYTES = 300
STRATEGY_PREFIX = "STRAT"
EXTRACTION_STATUS_PREFIX = "XS"
CHECKPOINT_THREAD_SK = "#CKP"
CHECKPOINT_PREFIX = "C"
CHECKPOINT_WRITE_MARK = "W"
#: The last sort key of a namespace's items: "~" sorts after every checkpoint-id character ([0-9A-Za-z-_.:]) and
#: after "#", so a newest-first Query of `C#{ns}#` meets it first.
CHECKPOINT_HEAD = "~"
#: A checkpoint namespace whose base64url form is longer than this goes into a sort key as its digest.
MAX_CHECKPOINT_NS_PART_BYTES = 340
AUDIT_PREFIX = "A"
FORK_LINK_PREFIX = "F"
#: The usage shard that the transactions charging runs write (exact day counters; `offprompt.metering.Charge`).
RUNS_SHARD = "Q"


def thread_pk(tenant: str, thread_id: str) -> str:
    return _key("T", part(tenant), "TH", part(thread_id))


def thread_prefix_pk(tenant: str) -> str:
    return _key("T", part(tenant), "TH") + "#"


def run_sk(seq: int) -> str:
    return _key(RUN_PREFIX, seq)


def runid_sk(run_id: str) -> str:
    return _key(RUNID_PREFIX, part(run_id))


def expired_sk(event_id: str) -> str:
    return _key(EXPIRED_PREFIX, part(event_id))


def alias_pk(tenant: str, alias: str) -> str:
    return _key("T", part(tenant), "ALIAS", part(alias))


def memory_pk(tenant: str, memory: str) -> str:
    return _key("TASKMEM", part(tenant), part(memory))


def namespace_sk(namespace: str) -> str:
    return _key(NS_PREFIX, part(namespace))


def batch_prefix(namespace: str) -> str:
    return _key(BATCH_PREFIX, part(namespace)) + "#"


def batch_sk(namespace: str, start: int) -> str:
    return _key(BATCH_PREFIX, part(namespace), start)


def meta_sk(time_ns: int, entry_id: str) -> str:
    return _key(META_PREFIX, f"{time_ns:020d}", entry_id)


def uploaded_sk(upload_id: str) -> str:
    return _key(UPLOADED_PREFIX, part(upload_id))


def receipt_pk(tenant: str, memory: str, idempotency_key: str) -> str:
    # Three identifiers would not fit one partition key: the memory and the key are one digest.
    return _key("RECEIPT", part(tenant), DIGEST_MARK + digest(memory, idempotency_key))


def key_pk(key_id: str) -> str:
    return _key("APIKEY", part(key_id))


def tenant_pk(tenant: str) -> str:
    return _key("TENANT", part(tenant))


def key_listing_sk(key_id: str) -> str:
    return _key(KEY_LISTING_PREFIX, part(key_id))


def usage_pk(tenant: str, shard: str) -> str:
    return _key("U", part(tenant), shard)


def usage_shards() -> tuple[str, ...]:
    return (*(f"S{n}" for n in range(USAGE_SHARDS)), RUNS_SHARD)


def day_sk(day: str) -> str:
    return _key(USAGE_DAY_PREFIX, day)


def rate_pk(tenant: str, shard: int) -> str:
    """A rate-window shard: its seconds are items of one partition, so an erase finds them by Query."""
    return _key("RATE", part(tenant), shard)


def rate_shards(rate_per_second: int) -> int:
    return max(1, math.ceil(rate_per_second / RATE_SHARD_CAPACITY))


def rate_sk(second: int) -> str:
    return _key(RATE_SECOND_PREFIX, second)


def record_pk(tenant: str) -> str:
    """A tenant's records: one partition (docs/adr/0034)."""
    return _key("REC", part(tenant))


def extraction_pk(tenant: str) -> str:
    """A tenant's extraction strategies and statuses: one partition (docs/adr/0051)."""
    return _key("XTR", part(tenant))


def fork_pk(tenant: str) -> str:
    """A tenant's fork registry: one partition, a fork_link per live fork that reads another thread (docs/adr/0064)."""
    return _key("FORK", part(tenant))


def fork_link_sk(thread_id: str) -> str:
    """The fork's id escaped whole, so `begins_with(sk, fork_link_prefix(p))` finds exactly the forks whose ids start
    with `p`. A thread id (≤ 256 characters, ≤ 512 UTF-8 bytes) escapes to at most 853 bytes: never digested here
    (`_bounded` only keeps longer strings inside DynamoDB's limit)."""
    return f"{FORK_LINK_PREFIX}#{_bounded(thread_id, MAX_SK_BYTES - 2)}"


def fork_link_prefix(thread_prefix: str) -> str:
    """The sort-key prefix of the fork links of the threads whose ids start with `thread_prefix` (≤ 512 UTF-8 bytes:
    no longer one starts a thread id). Escaping is a prefix-free code, character by character: an id starts with
    the prefix exactly when its escaped form starts with the prefix's."""
    return f"{FORK_LINK_PREFIX}#{key(thread_prefix)}"


def audit_pk(tenant: str) -> str:
    """A tenant's audit log: one partition, entries in time order (docs/adr/0056)."""
    return _key("AUDIT", part(tenant))


def audit_sk(time_ns: int, entry_id: str) -> str:
    return _key(AUDIT_PREFIX, f"{time_ns:020d}", entry_id)


def strategy_sk(name: str) -> str:
    return _key(STRATEGY_PREFIX, part(name))


def extraction_status_prefix(thread_id: str) -> str:
    """The sort-key prefix of a thread's statuses (an escaped part never holds `#`)."""
    return _key(EXTRACTION_STATUS_PREFIX, part(thread_id)) + "#"


def extraction_status_sk(thread_id: str, strategy: str) -> str:
    """The strategy's name (a label) bounded as a record label is, so a thread id of any length still fits."""
    return extraction_status_prefix(thread_id) + _bounded(strategy, MAX_LABEL_PART_BYTES)


def _bounded(identifier: str, limit: int) -> str:
    escaped = key(identifier)
    if len(escaped.encode("utf-8", "surrogatepass")) > limit:
        return DIGEST_MARK + hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()
    return escaped


def record_labels(namespace: tuple[str, ...] | list[str]) -> str:
    """A namespace (or a prefix of one) as sort-key text: escaped labels (never holding `#`) each followed by `#`,
    so `{labels}#` ends a namespace and `begins_with(sk, CUR#{labels of a prefix})` is a label-wise prefix."""
    return "".join(_bounded(label, MAX_LABEL_PART_BYTES) + "#" for label in namespace)


def record_sk(namespace: tuple[str, ...] | list[str], record_key: str) -> str:
    return f"{RECORD_PREFIX}#{record_labels(namespace)}#{_bounded(record_key, MAX_RECORD_KEY_PART_BYTES)}"


def record_prefix(namespace_prefix: tuple[str, ...] | list[str]) -> str:
    """The sort-key prefix of the current items under a namespace prefix (every record for `()`)."""
    return f"{RECORD_PREFIX}#{record_labels(namespace_prefix)}"


def record_version_prefix(namespace: tuple[str, ...] | list[str], record_key: str | None = None) -> str:
    """The sort-key prefix of one record's past versions (or of every past version under a namespace prefix)."""
    head = f"{RECORD_VERSION_PREFIX}#{record_labels(namespace)}"
    return head if record_key is None else f"{head}#{_bounded(record_key, MAX_RECORD_KEY_PART_BYTES)}#"


def record_version_sk(namespace: tuple[str, ...] | list[str], record_key: str, version: int) -> str:
    return f"{record_version_prefix(namespace, record_key)}{version:012d}"


def record_namespace_sk(namespace: tuple[str, ...] | list[str]) -> str:
    return f"{RECORD_NAMESPACE_PREFIX}#{record_labels(namespace)}"


def checkpoint_thread_pk(tenant: str, thread_id: str) -> str:
    """A LangGraph checkpoint thread (docs/adr/0039): one partition, not an offprompt conversation thread."""
    return _key("CKP", part(tenant), part(thread_id))


def checkpoint_ns_part(namespace: str) -> str:
    """A checkpoint namespace as sort-key text: base64url without padding (never "#", "%" or "~"; "" for ""), or
    `%~` + its SHA-256 when that would be too long."""
    raw = namespace.encode("utf-8", "surrogatepass")
    encoded = base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
    if len(encoded) > MAX_CHECKPOINT_NS_PART_BYTES:
        return DIGEST_MARK + hashlib.sha256(raw).hexdigest()
    return encoded


def checkpoint_ns_prefix(namespace: str) -> str:
    """The sort-key prefix of every item of one namespace (its checkpoints, their writes, its head)."""
    return f"{CHECKPOINT_PREFIX}#{checkpoint_ns_part(namespace)}#"


def checkpoint_sk(namespace: str, checkpoint_id: str) -> str:
    return checkpoint_ns_prefix(namespace) + checkpoint_id


def checkpoint_last_sk(namespace: str, checkpoint_id: str) -> str:
    """The greatest sort key a checkpoint's items (itself and its writes) can have: `BETWEEN checkpoint_sk AND this`
    is exactly that checkpoint's items ("#" sorts below every id character, "~" above "W")."""
    return checkpoint_sk(namespace, checkpoint_id) + "#" + CHECKPOINT_HEAD


def checkpoint_write_sk(namespace: str, checkpoint_id: str, task_id: str, idx: int, version: int = 0) -> str:
    """A pending write; `version` > 0 for a replacement kept beside the write a live copy reads (docs/adr/0039)."""
    head = f"{checkpoint_sk(namespace, checkpoint_id)}#{CHECKPOINT_WRITE_MARK}#{part_bounded(task_id, 300)}#{idx}"
    return f"{head}#v{version:015d}" if version else head


def checkpoint_head_sk(namespace: str) -> str:
    return checkpoint_ns_prefix(namespace) + CHECKPOINT_HEAD


def part_bounded(identifier: str, limit: int) -> str:
    """`_bounded` for other modules: the escaped identifier, or `%~` + its digest past `limit` bytes."""
    return _bounded(identifier, limit)


# ---- the families, for the inventory ------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    name: str
    #: The sort key, or the prefix of the sort keys (ending in "#"), of this kind's items.
    sk: str
    #: Carried by a tenant export (and written back by an import); the other kinds are erased only.
    exported: bool = False
    #: Roots its partition: created with the tenant index attribute, so the index lists the partition.
    root: bool = False

    def matches(self, sk: str) -> bool:
        return sk.startswith(self.sk) if self.sk.endswith("#") else sk == self.sk


@dataclass(frozen=True)
class Family:
    name: str
    #: The partition keys of a tenant's family start with this (`{prefix(tenant)}`) ...
    pk_prefix: str
    kinds: tuple[Kind, ...]
    #: ... or, for a family keyed by something else (an API key), name their tenant in this attribute.
    tenant_attribute: bool = False
    #: Partitions whose keys are known without the index (the tenant record, usage, rate windows).
    fixed: bool = False

    def kind_of(self, sk: str) -> Kind | None:
        return next((k for k in self.kinds if k.matches(sk)), None)


def _families() -> tuple[Family, ...]:
    return (
        Family(
            "thread",
            "T#{tenant}#TH#",
            (
                Kind("thread", THREAD_SK, exported=True, root=True),
                Kind("run", RUN_PREFIX + "#", exported=True),
                Kind("run_id", RUNID_PREFIX + "#", exported=True),
                Kind("expired_marker", EXPIRED_PREFIX + "#"),
            ),
        ),
        Family("alias", "T#{tenant}#ALIAS#", (Kind("alias", ALIAS_SK, exported=True, root=True),)),
        Family(
            "memory",
            "TASKMEM#{tenant}#",
            (
                Kind("namespace", NS_PREFIX + "#", exported=True, root=True),
                Kind("batch", BATCH_PREFIX + "#", exported=True),
                Kind("meta", META_PREFIX + "#", exported=True),
                Kind("upload_marker", UPLOADED_PREFIX + "#"),
            ),
        ),
        Family("receipt", "RECEIPT#{tenant}#", (Kind("receipt", RECEIPT_SK, root=True),)),
        Family("api_key", "APIKEY#", (Kind("api_key", KEY_SK, root=True),), tenant_attribute=True),
        Family(
            "tenant",
            "TENANT#{tenant}",
            (
                Kind("tenant", TENANT_SK),
                Kind("key_listing", KEY_LISTING_PREFIX + "#"),
                Kind("index_marker", INDEXED_SK),
                Kind("index_progress", BACKFILL_SK),
            ),
            fixed=True,
        ),
        Family("usage", "U#{tenant}#", (Kind("usage", USAGE_DAY_PREFIX + "#"),), fixed=True),
        Family("rate", "RATE#{tenant}#", (Kind("rate_window", RATE_SECOND_PREFIX + "#"),), fixed=True),
        Family(
            "record",
            "REC#{tenant}",
            (
                Kind("record", RECORD_PREFIX + "#", exported=True),
                Kind("record_version", RECORD_VERSION_PREFIX + "#", exported=True),
                Kind("record_namespace", RECORD_NAMESPACE_PREFIX + "#", exported=True),
                Kind("record_expired_marker", EXPIRED_PREFIX + "#"),
            ),
            fixed=True,
        ),
        Family(
            "checkpoint",
            "CKP#{tenant}#",
            (
                Kind("checkpoint_thread", CHECKPOINT_THREAD_SK, exported=True, root=True),
                Kind("checkpoint", CHECKPOINT_PREFIX + "#", exported=True),
            ),
        ),
        Family(
            "extraction",
            "XTR#{tenant}",
            (
                Kind("extraction_strategy", STRATEGY_PREFIX + "#", exported=True),
                Kind("extraction_status", EXTRACTION_STATUS_PREFIX + "#", exported=True),
            ),
            fixed=True,
        ),
        # The audit log (docs/adr/0056): exported; an erase deletes it, and the erase's own entry is written after.
        Family("audit", "AUDIT#{tenant}", (Kind("audit_entry", AUDIT_PREFIX + "#", exported=True),), fixed=True),
        # The fork registry (docs/adr/0064): bookkeeping derived from the forks' thread items; erased, not exported.
        Family("fork", "FORK#{tenant}", (Kind("fork_link", FORK_LINK_PREFIX + "#"),), fixed=True),
    )


#: Every partition family of a tenant's data. Add a family (and its root kind) here when a store adds one.
FAMILIES: tuple[Family, ...] = _families()


def family_prefix(family: Family, tenant: str) -> str:
    return family.pk_prefix.replace("{tenant}", part(tenant))


def classify(item: dict[str, Any], tenant: str) -> tuple[Family, Kind] | None:
    """The family and kind of one of `tenant`'s items, or None when it is not one the layout knows as theirs."""
    pk, sk = item["pk"]["S"], item["sk"]["S"]
    for family in FAMILIES:
        if family.tenant_attribute:  # (a keys-only item of such a family was listed as the tenant's already)
            if not pk.startswith(family.pk_prefix) or item.get("tenant", {}).get("S", tenant) != tenant:
                continue
        else:
            prefix = family_prefix(family, tenant)
            if not (pk == prefix if not prefix.endswith("#") else pk.startswith(prefix)):
                continue
        kind = family.kind_of(sk)
        if kind is not None:
            return family, kind
    return None


def _unescape(escaped: str) -> str:
    return escaped.replace("%23", "#").replace("%25", "%")


def tenant_of_root(item: dict[str, Any]) -> str | None:
    """The tenant of a partition root of any tenant (the index backfill of a whole deployment), or None when the
    item roots no partition the layout knows (or its tenant was digested: too long to read back)."""
    pk, sk = item["pk"]["S"], item["sk"]["S"]
    for family in FAMILIES:
        root = next((k for k in family.kinds if k.root and k.matches(sk)), None)
        if root is None:
            continue
        if family.tenant_attribute:
            if pk.startswith(family.pk_prefix) and "tenant" in item:
                return str(item["tenant"]["S"])
            continue
        head, _, tail = family.pk_prefix.partition("{tenant}")
        if not pk.startswith(head):
            continue
        tenant_part, sep, rest = pk[len(head) :].partition("#")
        if not (sep + rest).startswith(tail) or tenant_part.startswith(DIGEST_MARK):
            continue
        return _unescape(tenant_part)
    return None


# ---- reading keys back (the memory events: docs/adr/0036) ------------------------------------------------------
@dataclass(frozen=True)
class ParsedKey:
    """What an item's key says: its family and kind, its tenant and the identifiers the key carries.

    An identifier whose key part is a digest (`part()` of a very long identifier) cannot be read back: it is None,
    unless a hint (an attribute the item also carries) digests to that very part."""

    family: str
    kind: str
    tenant: str | None
    ids: dict[str, Any]


def _read_part(raw: str, hint: object = None) -> str | None:
    if not raw.startswith(DIGEST_MARK):
        return _unescape(raw)
    return hint if isinstance(hint, str) and part(hint) == raw else None


def parse_key(pk: str, sk: str, hints: Mapping[str, object] | None = None) -> ParsedKey | None:
    """The inverse of the key builders above for the families a tenant's changes are read from (threads, aliases,
    task memories, records, receipts, usage and rate windows), or None for any other key (API keys name no
    tenant in their key; `DEPLOYMENT`; anything unknown). `hints` (the item's "tenant", "thread_id", "memory",
    "namespace", "ns", "key" attributes) recover digested parts only when they digest to them."""
    hint = hints or {}
    head = pk.split("#")
    if head[0] == "REC":
        return _parse_records(sk, head, hint)
    name = _FAMILY_BY_HEAD.get(head[0])
    if name == "thread" and len(head) > 2 and head[2] == "ALIAS":
        name = "alias"
    family = next((f for f in FAMILIES if f.name == name), None)
    if family is None or len(head) < 2:
        return None
    tenant = _read_part(head[1], hint.get("tenant"))
    kind = family.kind_of(sk)
    if kind is None:
        return None
    ids: dict[str, Any] = {}
    if family.name == "thread":
        if len(head) != 4 or head[2] != "TH":
            return None
        ids["thread_id"] = _read_part(head[3], hint.get("thread_id"))
        if kind.name == "run":
            seq = sk.split("#", 1)[1]
            if not seq.isdigit():
                return None
            ids["seq"] = int(seq)
    elif family.name == "alias":
        if len(head) != 4 or head[2] != "ALIAS":
            return None
        ids["alias"] = _read_part(head[3])
    elif family.name == "memory":
        if len(head) != 3:
            return None
        ids["memory"] = _read_part(head[2], hint.get("memory"))
        tail = sk.split("#")
        if kind.name in ("namespace", "batch"):
            ids["namespace"] = _read_part(tail[1], hint.get("namespace")) if len(tail) > 1 else None
        if kind.name == "batch":
            if len(tail) != 3 or not tail[2].isdigit():
                return None
            ids["start"] = int(tail[2])
    return ParsedKey(family.name, kind.name, tenant, ids)


#: A partition key's first part → its family (`T#` holds threads and aliases: the third part tells them apart).
_FAMILY_BY_HEAD = {"T": "thread", "TASKMEM": "memory", "RECEIPT": "receipt", "TENANT": "tenant", "U": "usage",
                   "RATE": "rate"}  # fmt: skip


def _parse_records(sk: str, head: list[str], hint: Mapping[str, object]) -> ParsedKey | None:
    """`CUR#{labels}##{key}`, `VER#{labels}##{key}#{version}`, `RNS#{labels}` (`record_labels`: each label then
    `#`). A label or key digested in the key is read from the item's `ns` / `key` attributes when they digest to it."""
    if len(head) != 2:
        return None
    tenant = _read_part(head[1], hint.get("tenant"))
    ns_hint = hint.get("ns")
    hinted = tuple(ns_hint.split(".")) if isinstance(ns_hint, str) else ()
    prefix, _, rest = sk.partition("#")
    if prefix == RECORD_NAMESPACE_PREFIX:
        return ParsedKey("record", "record_namespace", tenant, {"namespace": _read_labels(rest, hinted)})
    if prefix not in (RECORD_PREFIX, RECORD_VERSION_PREFIX) or "##" not in rest:
        return None
    labels, _, tail = rest.partition("##")
    ids: dict[str, Any] = {"namespace": _read_labels(labels + "#", hinted)}
    key_hint = hint.get("key")
    if prefix == RECORD_PREFIX:
        ids["key"] = _read_bounded(tail, key_hint, MAX_RECORD_KEY_PART_BYTES)
        return ParsedKey("record", "record", tenant, ids)
    key_part, _, version = tail.rpartition("#")
    if not key_part or not version.isdigit():
        return None
    ids["key"], ids["version"] = _read_bounded(key_part, key_hint, MAX_RECORD_KEY_PART_BYTES), int(version)
    return ParsedKey("record", "record_version", tenant, ids)


def _read_bounded(raw: str, hint: object, limit: int) -> str | None:
    if not raw.startswith(DIGEST_MARK):
        return _unescape(raw)
    return hint if isinstance(hint, str) and _bounded(hint, limit) == raw else None


def _read_labels(raw: str, hinted: tuple[str, ...]) -> tuple[str, ...] | None:
    """`record_labels()` read back (every label followed by `#`), or None when one cannot be."""
    if not raw.endswith("#") or raw == "#":
        return None
    parts = raw[:-1].split("#")
    if len(hinted) != len(parts):
        hinted = ("",) * len(parts)
    labels = tuple(_read_bounded(p, h, MAX_LABEL_PART_BYTES) for p, h in zip(parts, hinted, strict=True))
    return None if any(label is None or label == "" for label in labels) else labels  # type: ignore[return-value]


def exported_kinds() -> tuple[str, ...]:
    return tuple(k.name for f in FAMILIES for k in f.kinds if k.exported)


#: The kinds that let a tenant in (its API keys, their listing, its record and markers): an erase of a tenant that
#: has keys removes them last, so the erase can be repeated with the same key until it verified.
#: The kind saying the tenant is indexed: an erase removes it last, so a repeat needs no second backfill.
INDEX_MARKER_KIND = "index_marker"
CREDENTIAL_KINDS = ("api_key", "key_listing", "tenant", INDEX_MARKER_KIND)


def scan_filter(tenant: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The prefixes and exact partition keys of a tenant's families, for a whole-table Scan (data from before the
    index): (prefixes, exact keys). Families keyed by something else are found by their `tenant` attribute."""
    prefixes: list[str] = []
    exact: list[str] = []
    for family in FAMILIES:
        if family.tenant_attribute:
            continue
        prefix = family_prefix(family, tenant)
        (prefixes if prefix.endswith("#") else exact).append(prefix)
    return tuple(prefixes), tuple(exact)


def fixed_partitions(tenant: str, rate_per_second: int) -> tuple[str, ...]:
    """The tenant's partitions whose keys are known without the index: its record and key listing, its usage
    shards, its rate-window shards (`rate_per_second` from the tenant's plan), its records and its extraction
    strategies and statuses, its audit log and its fork registry (first: the tenant record)."""
    return (
        tenant_pk(tenant),
        *(usage_pk(tenant, shard) for shard in usage_shards()),
        *(rate_pk(tenant, shard) for shard in range(rate_shards(rate_per_second))),
        record_pk(tenant),
        extraction_pk(tenant),
        audit_pk(tenant),
        fork_pk(tenant),
    )


def with_index_attribute(item: dict[str, Any], tenant: str) -> dict[str, Any]:
    """The item with the index attributes its writer sets, if it roots a partition (import, backfill): the tenant
    index's, and a conversation thread's `activity` (from its updated or created time)."""
    found = classify(item, tenant)
    if found is None or not found[1].root:
        return item
    out = item
    if TENANT_INDEX_ATTRIBUTE not in item:
        out = {**out, TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, item["pk"]["S"])}}
    if item["sk"]["S"] == THREAD_SK and ACTIVITY_ATTRIBUTE not in item:
        when = (item.get("updated_at") or item.get("created_at") or {}).get("S")
        if when:
            out = {**out, ACTIVITY_ATTRIBUTE: {"S": activity_value(when, item["pk"]["S"])}}
    return out


def fork_link(thread_item: dict[str, Any], tenant: str) -> dict[str, Any] | None:
    """The fork registry's item for a thread item of `tenant` (docs/adr/0064): its id, ancestry and generation,
    or None when the item is no live fork that reads another thread (not a thread item, no ancestry, deleting)."""
    found = classify(thread_item, tenant)
    ancestry = thread_item.get("ancestry", {}).get("L")
    if found is None or found[1].name != "thread" or not ancestry or "deleting" in thread_item:
        return None
    thread_id = thread_item.get("thread_id", {}).get("S")
    if not thread_id:
        return None
    link = {
        "pk": {"S": fork_pk(tenant)},
        "sk": {"S": fork_link_sk(thread_id)},
        "tenant": {"S": tenant},
        "thread_id": {"S": thread_id},
        "ancestry": {"L": ancestry},
    }
    if "generation" in thread_item:
        link["generation"] = thread_item["generation"]
    return link


#: Attributes that tie an item to the exporting deployment's stored-bytes gauge (docs/adr/0021): an import drops
#: them, so removing imported data never takes bytes off a gauge that never counted them.
GAUGE_ATTRIBUTES = ("metered_bytes",)

#: Attributes that name the exporting deployment's search documents (a run's Serverless document ids, ADR 0048):
#: an export leaves them out and an import drops them (the importing deployment's indexer writes its own).
SEARCH_DOC_IDS = "search_doc_ids"
DEPLOYMENT_ATTRIBUTES = (SEARCH_DOC_IDS,)


# ---- S3 ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class S3Root:
    name: str
    exported: bool  # stored data (an export carries it); the others are transient, erased only


#: Every S3 root; a tenant's objects are under `{root}/{digest(tenant)}/`.
S3_ROOTS: tuple[S3Root, ...] = (
    S3Root("t", exported=True),  # big runs
    S3Root("taskmem", exported=True),  # blobs, batch manifests, text records (Serverless mode)
    S3Root("records", exported=True),  # record values over 350 KB (docs/adr/0034)
    S3Root("checkpoints", exported=True),  # LangGraph checkpoint and write blobs over 350 KB (docs/adr/0039)
    S3Root("uploads", exported=False),  # pending uploads
    S3Root("downloads", exported=False),  # materialized load responses (a day)
    S3Root("exports", exported=False),  # the tenant's own exports
)


def s3_prefixes(tenant: str, *, include_transient: bool) -> tuple[str, ...]:
    return tuple(f"{r.name}/{digest(tenant)}/" for r in S3_ROOTS if r.exported or include_transient)


def thread_objects_prefix(tenant: str, thread_id: str) -> str:
    """S3 prefix of everything a thread owns (its big runs; a thread delete removes it by prefix)."""
    return f"t/{digest(tenant)}/threads/{digest(tenant, thread_id)}/"


def run_body_key(tenant: str, thread_id: str, run_id: str, data: bytes, generation: str) -> str:
    """Where a large run's body goes. Named by the bytes it holds (a retry's generated ids make other bytes, so it
    never overwrites the first run's body) and the generation (a straggler never touches a later incarnation's)."""
    body_hash = hashlib.sha256(data).hexdigest()
    return f"{thread_objects_prefix(tenant, thread_id)}runs/{digest(run_id, body_hash, generation)}.json"


def namespace_objects_prefix(tenant: str, memory: str, namespace: str) -> str:
    return f"taskmem/{digest(tenant)}/{digest(tenant, memory, namespace)}/"


def text_records_tenant_prefix(tenant: str) -> str:
    """OpenSearch Serverless mode: where the text store keeps a tenant's S3 text records (docs/adr/0028). Under the
    `taskmem` root (exported, erased), but not under a namespace's objects prefix: a namespace delete's blob step
    must leave them for the text step, which reads the document ids they hold."""
    return f"taskmem/{digest(tenant)}/text/"


def text_records_prefix(tenant: str, memory: str, namespace: str) -> str:
    return f"{text_records_tenant_prefix(tenant)}{digest(tenant, memory, namespace)}/"


def blob_key(tenant: str, memory: str, namespace: str, store_id: str, offset: int) -> str:
    """A blob artifact's object: keyed by its store's id (a fresh uuid), not by its position, so that a store writes
    it before its positions are known (the reservation folds into the commit, docs/adr/0035). Under the namespace's
    prefix, which a namespace delete sweeps; entries name their keys, so keys of either form (earlier objects are
    `{position:012d}`) load alike."""
    return f"{namespace_objects_prefix(tenant, memory, namespace)}b/{store_id}/{offset:06d}"


def manifest_key(tenant: str, memory: str, namespace: str, start: int) -> str:
    return f"{namespace_objects_prefix(tenant, memory, namespace)}manifest/{start:012d}"


def upload_prefix(tenant: str, memory: str) -> str:
    return f"uploads/{digest(tenant)}/{digest(tenant, memory)}/"


def download_key(tenant: str, name: str) -> str:
    return f"downloads/{digest(tenant)}/{name}.json"


def export_prefix(tenant: str, export_id: str) -> str:
    return f"exports/{digest(tenant)}/{export_id}/"


def record_body_key(
    tenant: str, namespace: tuple[str, ...] | list[str], record_key: str, version: int, token: str
) -> str:
    """Where a big record version's value goes; `token` is the writer's own, so two writers racing for the same
    version never overwrite each other's body (the loser's is removed)."""
    return f"records/{digest(tenant)}/{digest(tenant, *namespace)}/{digest(record_key, version, token)}.json"


def checkpoint_blob_key(tenant: str, thread_id: str, namespace: str, name: str, token: str) -> str:
    """Where a big checkpoint's (or pending write's) blob goes; `token` is the writer's own, so a re-put never
    overwrites the bytes the stored item still names (the replaced blob is removed after the commit)."""
    return f"checkpoints/{digest(tenant)}/{digest(tenant, thread_id)}/{digest(namespace, name, token)}"


# ---- OpenSearch -----------------------------------------------------------------------------------------------
def chunk_doc_id(tenant: str, memory: str, namespace: str, position: int, chunk: int) -> str:
    """A text chunk's document id: deterministic, so a retried store overwrites instead of duplicating."""
    return digest(tenant, memory, namespace, position, chunk)


def record_doc_id(tenant: str, namespace: Sequence[str], key: str, version: int, write_id: str) -> str:
    """A long-term record version's document id on a provisioned domain (docs/adr/0034): deterministic per write, so
    indexing the same write again finds the same document, and unique to the writer (`write_id`, a nonce per put
    attempt), so two writers racing for one version never share a document (the loser deletes its own). The labels
    are joined by `.` (a label never holds one) and the list starts with "record", so no record id can equal a chunk
    id (whose digest list has five parts)."""
    return digest("record", tenant, ".".join(namespace), key, version, write_id)


def conversation_doc_id(tenant: str, thread_id: str, kind: str, seq: int) -> str:
    """A run's (or session item's) search document id on a provisioned domain (docs/adr/0048): one per (tenant,
    thread, kind, seq), so indexing a run again (a retried stream batch, a reindex) replaces its document. The list
    starts with "conversation" and its fourth part is a string, so it never equals a chunk id (whose fourth part is a
    position, an integer) or a record id (six parts)."""
    return digest("conversation", tenant, thread_id, kind, seq)
