"""The storage layout (offprompt/adapters/layout.py): every key the stores write is one the inventory classifies as
its tenant's and no other tenant's, every key fits DynamoDB's limits for the longest valid identifiers, and each
kind's role (exported, partition root, credential) is what export, import and erase rely on."""

from __future__ import annotations

import pytest

from offprompt.adapters import layout
from offprompt.adapters.layout import (
    TENANT_INDEX_ATTRIBUTE,
    alias_pk,
    batch_sk,
    classify,
    expired_sk,
    fixed_partitions,
    key_listing_sk,
    key_pk,
    memory_pk,
    meta_sk,
    namespace_sk,
    rate_pk,
    rate_sk,
    receipt_pk,
    record_namespace_sk,
    record_pk,
    record_prefix,
    record_sk,
    record_version_prefix,
    record_version_sk,
    run_sk,
    runid_sk,
    s3_prefixes,
    scan_filter,
    tenant_index_value,
    tenant_index_values,
    tenant_pk,
    thread_pk,
    uploaded_sk,
    usage_pk,
    usage_shards,
    with_index_attribute,
)
from offprompt.limits import IDENTIFIER_MAX_CHARS, IDENTIFIER_MAX_UTF8_BYTES, RATE_SHARD_CAPACITY


def item(pk: str, sk: str, **attrs: str) -> dict[str, dict[str, str]]:
    return {"pk": {"S": pk}, "sk": {"S": sk}, **{k: {"S": v} for k, v in attrs.items()}}


def every_item(tenant: str, ident: str = "t#1") -> dict[str, dict[str, dict[str, str]]]:
    """One item of each kind the stores write, for `tenant`, keyed by the kind the layout must name."""
    return {
        "thread": item(thread_pk(tenant, ident), layout.THREAD_SK),
        "run": item(thread_pk(tenant, ident), run_sk(3)),
        "run_id": item(thread_pk(tenant, ident), runid_sk(ident)),
        "expired_marker": item(thread_pk(tenant, ident), expired_sk("event-1")),
        "alias": item(alias_pk(tenant, ident), layout.ALIAS_SK),
        "namespace": item(memory_pk(tenant, ident), namespace_sk(ident)),
        "batch": item(memory_pk(tenant, ident), batch_sk(ident, 12)),
        "meta": item(memory_pk(tenant, ident), meta_sk(1, "abc")),
        "upload_marker": item(memory_pk(tenant, ident), uploaded_sk("0" * 32)),
        "receipt": item(receipt_pk(tenant, ident, ident), layout.RECEIPT_SK),
        "api_key": item(key_pk("0123456789abcdef"), layout.KEY_SK, tenant=tenant),
        "tenant": item(tenant_pk(tenant), layout.TENANT_SK),
        "key_listing": item(tenant_pk(tenant), key_listing_sk("0123456789abcdef")),
        "index_marker": item(tenant_pk(tenant), layout.INDEXED_SK),
        "index_progress": item(tenant_pk(tenant), layout.BACKFILL_SK),
        "usage": item(usage_pk(tenant, "S3"), layout.day_sk("2026-12-01")),
        "rate_window": item(rate_pk(tenant, 2), rate_sk(1_700_000_000)),
        "record": item(record_pk(tenant), record_sk(_labels(ident), ident)),
        "record_version": item(record_pk(tenant), record_version_sk(_labels(ident), ident, 7)),
        "record_namespace": item(record_pk(tenant), record_namespace_sk(_labels(ident))),
        "record_expired_marker": item(record_pk(tenant), expired_sk("event-1")),
        "checkpoint_thread": item(layout.checkpoint_thread_pk(tenant, ident), layout.CHECKPOINT_THREAD_SK),
        "checkpoint": item(
            layout.checkpoint_thread_pk(tenant, ident),
            layout.checkpoint_write_sk("n" * 1024, "1ef" + "-" * 61, ident, -(2**63)),
        ),
        "extraction_strategy": item(layout.extraction_pk(tenant), layout.strategy_sk(ident)),
        "extraction_status": item(layout.extraction_pk(tenant), layout.extraction_status_sk(ident, ident)),
        "audit_entry": item(layout.audit_pk(tenant), layout.audit_sk(1_700_000_000_000_000_000, "e" * 32)),
        "fork_link": item(layout.fork_pk(tenant), layout.fork_link_sk(ident)),
    }


def _labels(ident: str) -> tuple[str, ...]:
    """The longest record namespace an identifier makes: 8 labels (a label holds no ".")."""
    return (ident.replace(".", "_"),) * 8


TENANTS = ["alice", "alice#1", "a%23", "x#TH#y", "é€🦊", "%~abc", "#" * IDENTIFIER_MAX_CHARS]


@pytest.mark.parametrize("tenant", TENANTS)
def test_every_kind_the_stores_write_is_classified_as_the_tenants(tenant: str) -> None:
    families = {f.name for f in layout.FAMILIES}
    for kind, written in every_item(tenant).items():
        found = classify(written, tenant)
        assert found is not None and found[1].name == kind, (kind, written)
        assert found[0].name in families
    assert set(every_item(tenant)) == {k.name for f in layout.FAMILIES for k in f.kinds}  # nothing left untested


@pytest.mark.parametrize(("tenant", "other"), [("alice", "alice#1"), ("alice", "alice%23"), ("a", "a#TH#b")])
def test_another_tenants_items_are_never_the_tenants(tenant: str, other: str) -> None:
    for kind, written in every_item(other).items():
        assert classify(written, tenant) is None, kind
    prefixes, exact = scan_filter(tenant)
    for written in every_item(other).values():
        pk = written["pk"]["S"]
        assert pk not in exact and not (pk.startswith(prefixes) and not pk.startswith("APIKEY#"))
    assert not set(tenant_index_values(tenant)) & set(tenant_index_values(other))


def test_a_new_kind_of_item_is_not_the_tenants_until_the_layout_knows_it(monkeypatch: pytest.MonkeyPatch) -> None:
    note = item("NOTES#alice#n1", "#NOTE")
    assert classify(note, "alice") is None
    family = layout.Family("notes", "NOTES#{tenant}#", (layout.Kind("note", "#NOTE", exported=True, root=True),))
    monkeypatch.setattr(layout, "FAMILIES", (*layout.FAMILIES, family))
    assert classify(note, "alice") == (family, family.kinds[0])
    assert "NOTES#alice#" in scan_filter("alice")[0]
    assert TENANT_INDEX_ATTRIBUTE in with_index_attribute(note, "alice")


def _longest() -> list[str]:
    """Identifiers of the longest escaped forms the identifier rule admits (256 characters, 512 UTF-8 bytes)."""
    return [
        "#" * IDENTIFIER_MAX_CHARS,  # 768 bytes once escaped
        "%" * IDENTIFIER_MAX_CHARS,
        "🦊" * (IDENTIFIER_MAX_UTF8_BYTES // 4),
        "€#" * (IDENTIFIER_MAX_UTF8_BYTES // 4),
    ]


def test_every_key_fits_dynamodbs_limits_for_the_longest_identifiers() -> None:
    longest = [*_longest(), "🦊" * IDENTIFIER_MAX_CHARS]  # idempotency keys: 256 characters, no byte cap
    for tenant in longest:
        for ident in longest:
            for kind, written in every_item(tenant, ident).items():
                pk, sk = written["pk"]["S"], written["sk"]["S"]
                assert len(pk.encode()) <= layout.MAX_PK_BYTES, (kind, len(pk.encode()))
                assert len(sk.encode()) <= layout.MAX_SK_BYTES, (kind, len(sk.encode()))
                assert classify(written, tenant) is not None, kind
            assert len(tenant_index_value(tenant, thread_pk(tenant, ident)).encode()) <= layout.MAX_PK_BYTES


def test_short_identifiers_keep_their_keys() -> None:
    """`part` only digests what would not fit: every key of an ordinary identifier is what it always was."""
    assert thread_pk("alice#1", "t%1") == "T#alice%231#TH#t%251"
    assert memory_pk("a", "TaskMemory") == "TASKMEM#a#TaskMemory"
    assert tenant_index_value("alice", thread_pk("alice", "t")).startswith("alice#")
    long = thread_pk("a", "#" * IDENTIFIER_MAX_CHARS)
    assert long.startswith("T#a#TH#%~") and thread_pk("a", "#" * (IDENTIFIER_MAX_CHARS - 1)) != long


@pytest.mark.parametrize("tenant", ["alice", "alice#1", "é€🦊"])
def test_fixed_partitions_are_the_account_stores_keys(tenant: str) -> None:
    fixed = fixed_partitions(tenant, rate_per_second=2 * RATE_SHARD_CAPACITY + 1)
    assert set(fixed) == {
        tenant_pk(tenant),
        *(usage_pk(tenant, s) for s in usage_shards()),
        *(rate_pk(tenant, n) for n in range(3)),
        record_pk(tenant),
        layout.extraction_pk(tenant),
        layout.audit_pk(tenant),
        layout.fork_pk(tenant),
    }
    assert rate_pk(tenant, 0) in fixed_partitions(tenant, rate_per_second=0)


@pytest.mark.parametrize("tenant", ["alice", "alice#1", "a%23", "é€🦊"])
def test_partition_roots_carry_the_index_value_and_nothing_else_does(tenant: str) -> None:
    written = every_item(tenant)
    for kind in ("thread", "alias", "namespace", "receipt", "api_key", "checkpoint_thread"):
        value = with_index_attribute(written[kind], tenant)[TENANT_INDEX_ATTRIBUTE]["S"]
        assert value == tenant_index_value(tenant, written[kind]["pk"]["S"]) and value in tenant_index_values(tenant)
        assert layout.tenant_of_root(written[kind]) == tenant
    for kind in set(written) - {"thread", "alias", "namespace", "receipt", "api_key", "checkpoint_thread"}:
        assert with_index_attribute(written[kind], tenant) is written[kind], kind


def test_every_s3_key_is_under_the_tenants_prefixes() -> None:
    keys = [
        layout.run_body_key("alice", "t", "r", b"x", "g"),
        layout.blob_key("alice", "m", "n", "0" * 32, 0),
        layout.manifest_key("alice", "m", "n", 0),
        layout.upload_prefix("alice", "m") + "0" * 32,
        layout.download_key("alice", "x"),
        layout.record_body_key("alice", ("a", "b"), "k", 3, "tok"),
        layout.checkpoint_blob_key("alice", "t", "ns", "1ef-id", "tok"),
        layout.export_prefix("alice", "e") + "manifest.json",
    ]
    assert all(k.startswith(s3_prefixes("alice", include_transient=True)) for k in keys)
    # exported: stored data only (not pending uploads, downloads, or earlier exports)
    assert [k.startswith(s3_prefixes("alice", include_transient=False)) for k in keys] == [True] * 3 + [
        False,
        False,
        True,
        True,
        False,
    ]
    assert not any(k.startswith(s3_prefixes("alice#1", include_transient=True)) for k in keys)


def test_record_keys_are_label_wise_and_prefix_queries_find_only_the_prefix() -> None:
    """`##` ends a namespace: a prefix query of ("a","b") finds ("a","b") and ("a","b","c"), never ("a","bc"); a
    label or key with `#` or `%` cannot forge another namespace's key; long labels digest and still fit."""
    assert record_sk(("a", "b"), "k") == "CUR#a#b##k"
    assert record_sk(("a", "b"), "k").startswith(record_prefix(("a", "b")))
    assert record_sk(("a", "b", "c"), "k").startswith(record_prefix(("a", "b")))
    assert not record_sk(("a", "bc"), "k").startswith(record_prefix(("a", "b")))
    assert record_sk(("a#",), "k") != record_sk(("a",), "#k") and record_sk(("a#b",), "k") != record_sk(("a", "b"), "k")
    assert record_version_sk(("a",), "k", 3) == "VER#a##k#000000000003"
    assert record_version_sk(("a",), "k", 3).startswith(record_version_prefix(("a",), "k"))
    assert not record_version_sk(("a",), "kk", 3).startswith(record_version_prefix(("a",), "k"))
    long = "x" * IDENTIFIER_MAX_CHARS
    assert record_sk((long,), "k").startswith("CUR#%~") and record_sk((long,), "k") != record_sk((long[:-1],), "k")
    assert record_sk((long, "b"), "k").startswith(record_prefix((long,)))
