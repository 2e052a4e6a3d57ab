"""The storage layout: every DynamoDB key shape, S3 root and OpenSearch document id offprompt writes, in one place.

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
- tenant (fixed): `TENANT#{tenant}` → `#TENANT` tenant, `KEY#{key_id}` key_listing, `#INDEXED` index_marker
- usage (fixed): `U#{tenant}#S{n}`, `U#{tenant}#Q` → `D#{day}` usage
- rate (fixed): `RATE#{tenant}#{shard}` → `W#{second}` rate_window
- not a tenant's: `DEPLOYMENT` → `#INDEXED` (every tenant's data is in the tenant index)

The sparse KEYS_ONLY global secondary index `TenantRoots` (hash key `tenant_dir` only) lists each partition root
(`tenant_index_value`): export and erase Query it instead of scanning the table (docs/adr/0024).

S3 (`digest()` of the tenant first, so a tenant's objects share prefixes): `t/` big runs · `taskmem/` blobs,
batch manifests and (OpenSearch Serverless mode) text records · `uploads/` pending uploads · `downloads/`
materialized load responses · `exports/` exports.
OpenSearch: one document per text chunk, id `digest(tenant, memory, namespace, position, chunk)`, its `tenant`
keyword the tenant.
"""

from __future__ import annotations

import hashlib
import math
import zlib
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
DEPLOYMENT_PK = "DEPLOYMENT"
USAGE_DAY_PREFIX = "D"
RATE_SECOND_PREFIX = "W"
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
            ),
            fixed=True,
        ),
        Family("usage", "U#{tenant}#", (Kind("usage", USAGE_DAY_PREFIX + "#"),), fixed=True),
        Family("rate", "RATE#{tenant}#", (Kind("rate_window", RATE_SECOND_PREFIX + "#"),), fixed=True),
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


def exported_kinds() -> tuple[str, ...]:
    return tuple(k.name for f in FAMILIES for k in f.kinds if k.exported)


#: The kinds that let a tenant in (its API keys, their listing, its record and markers): an erase of a tenant that
#: has keys removes them last, so the erase can be repeated with the same key until it verified.
CREDENTIAL_KINDS = ("api_key", "key_listing", "tenant", "index_marker")


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
    shards and its rate-window shards (`rate_per_second` from the tenant's plan)."""
    return (
        tenant_pk(tenant),
        *(usage_pk(tenant, shard) for shard in usage_shards()),
        *(rate_pk(tenant, shard) for shard in range(rate_shards(rate_per_second))),
    )


def with_index_attribute(item: dict[str, Any], tenant: str) -> dict[str, Any]:
    """The item with the tenant index attribute its writer sets, if it roots a partition (import, backfill)."""
    found = classify(item, tenant)
    if found is None or not found[1].root or TENANT_INDEX_ATTRIBUTE in item:
        return item
    return {**item, TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, item["pk"]["S"])}}


#: Attributes that tie an item to the exporting deployment's stored-bytes gauge (docs/adr/0021): an import drops
#: them, so removing imported data never takes bytes off a gauge that never counted them.
GAUGE_ATTRIBUTES = ("metered_bytes",)


# ---- S3 ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class S3Root:
    name: str
    exported: bool  # stored data (an export carries it); the others are transient, erased only


#: Every S3 root; a tenant's objects are under `{root}/{digest(tenant)}/`.
S3_ROOTS: tuple[S3Root, ...] = (
    S3Root("t", exported=True),  # big runs
    S3Root("taskmem", exported=True),  # blobs, batch manifests, text records (Serverless mode)
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


# ---- OpenSearch -----------------------------------------------------------------------------------------------
def chunk_doc_id(tenant: str, memory: str, namespace: str, position: int, chunk: int) -> str:
    """A text chunk's document id: deterministic, so a retried store overwrites instead of duplicating."""
    return digest(tenant, memory, namespace, position, chunk)
