"""Where a tenant's data is (services/tenant_data/inventory.py): the prefixes match its keys and no other tenant's."""

from __future__ import annotations

import pytest

from offprompt.adapters.dynamodb_account import tenant_pk, usage_pk
from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
from offprompt.adapters.dynamodb_receipts import SK as RECEIPT_SK
from offprompt.adapters.dynamodb_receipts import receipt_pk
from offprompt.adapters.dynamodb_runs import THREAD_SK, alias_pk, run_sk, runid_sk, thread_pk
from offprompt.identifiers import key
from offprompt.services.conversation import thread_prefix
from offprompt.services.task_memory import keys as task_keys
from offprompt.services.tenant_data.inventory import exact_partitions, item_kind, partition_prefixes, s3_prefixes


def item(pk: str, sk: str) -> dict[str, dict[str, str]]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


@pytest.mark.parametrize("tenant", ["alice", "alice#1", "a%23", "x#TH#y", "é€🦊"])
def test_every_key_design_is_classified_and_matched(tenant: str) -> None:
    ns = DynamoDbNamespaceStore
    cases = {
        "thread": item(thread_pk(tenant, "t#1"), THREAD_SK),
        "run": item(thread_pk(tenant, "t#1"), run_sk(3)),
        "run_id": item(thread_pk(tenant, "t#1"), runid_sk("r#1")),
        "alias": item(alias_pk(tenant, "a#1"), "#ALIAS"),
        "namespace": item(ns.pk(tenant, "m#1"), ns.record_sk("n")),
        "batch": item(ns.pk(tenant, "m#1"), ns.batch_prefix("n") + "000000000000"),
        "meta": item(ns.pk(tenant, "m#1"), "META#00000000000000000001#abc"),
        "receipt": item(receipt_pk(tenant, "m#1", "k#1"), RECEIPT_SK),
    }
    for kind, it in cases.items():
        assert item_kind(it, tenant) == kind
        assert it["pk"]["S"].startswith(partition_prefixes(tenant))
    for other in (item(usage_pk(tenant, "S1"), "D#2026-12-01"), item(key("RATE", tenant, 5, "0"), "#RATE")):
        assert item_kind(other, tenant) == "other" and other["pk"]["S"].startswith(partition_prefixes(tenant))
    # the tenant record, its key listing and its keys are found by their `tenant` attribute, not a prefix
    assert item_kind(item(tenant_pk(tenant), "#TENANT"), tenant) == "other"
    assert tenant_pk(tenant) in exact_partitions(tenant)  # matched exactly, also when it lacks the attribute


@pytest.mark.parametrize(("tenant", "other"), [("alice", "alice#1"), ("alice", "alice%23"), ("a", "a#TH#b")])
def test_another_tenants_keys_never_match(tenant: str, other: str) -> None:
    keys = [thread_pk(other, "t"), alias_pk(other, "x"), DynamoDbNamespaceStore.pk(other, "m")]
    keys += [receipt_pk(other, "m", "k"), usage_pk(other, "S0"), usage_pk(other, "Q"), tenant_pk(other)]
    assert tenant_pk(other) not in exact_partitions(tenant)
    assert not any(k.startswith(partition_prefixes(tenant)) for k in keys)
    objects = [thread_prefix(other, "t"), task_keys.namespace_prefix(other, "m", "n")]
    objects.append(task_keys.upload_prefix(other, "m"))
    assert not any(o.startswith(s3_prefixes(tenant, include_transient=True)) for o in objects)


def test_every_s3_key_design_is_under_the_tenants_prefixes() -> None:
    keys = [
        thread_prefix("alice", "t") + "runs/x.json",
        task_keys.namespace_prefix("alice", "m", "n") + "000000000000",
        task_keys.upload_prefix("alice", "m") + "0" * 32,
    ]
    assert all(k.startswith(s3_prefixes("alice", include_transient=True)) for k in keys)
    # exported: stored data only (not pending uploads, downloads, or earlier exports)
    assert not keys[2].startswith(s3_prefixes("alice", include_transient=False))


@pytest.mark.parametrize("tenant", ["alice", "alice#1", "é€🦊"])
def test_fixed_partitions_are_the_tenancy_stores_keys(tenant: str) -> None:
    """The partitions an indexed export/erase Queries by key are the ones the tenancy store writes."""
    from offprompt.adapters.dynamodb_account import rate_pk, usage_shards
    from offprompt.limits import RATE_SHARD_CAPACITY
    from offprompt.services.tenant_data.inventory import fixed_partitions

    fixed = fixed_partitions(tenant, rate_per_second=2 * RATE_SHARD_CAPACITY + 1)
    assert set(fixed) == {
        tenant_pk(tenant),
        *(usage_pk(tenant, s) for s in usage_shards()),
        *(rate_pk(tenant, n) for n in range(3)),
    }
    assert rate_pk(tenant, 0) in fixed_partitions(tenant, rate_per_second=0)
    assert all(p.startswith(partition_prefixes(tenant)) or p in exact_partitions(tenant) for p in fixed)


@pytest.mark.parametrize("tenant", ["alice", "alice#1", "a%23", "é€🦊"])
def test_partition_roots_carry_the_index_value_and_nothing_else_does(tenant: str) -> None:
    from offprompt.adapters.dynamodb_account import key_pk
    from offprompt.identifiers import TENANT_INDEX_ATTRIBUTE, tenant_index_value, tenant_index_values
    from offprompt.services.tenant_data.inventory import index_attribute

    ns = DynamoDbNamespaceStore
    roots = [
        item(thread_pk(tenant, "t"), THREAD_SK),
        item(alias_pk(tenant, "a"), "#ALIAS"),
        item(ns.pk(tenant, "m"), ns.record_sk("n")),
        item(receipt_pk(tenant, "m", "k"), RECEIPT_SK),
        {**item(key_pk("k1"), "#APIKEY"), "tenant": {"S": tenant}},
        item(key("RATE", tenant, 5, 0), "#RATE"),  # a rate window of the key design before the index
    ]
    for root in roots:
        value = index_attribute(root, tenant)[TENANT_INDEX_ATTRIBUTE]["S"]
        assert value == tenant_index_value(tenant, root["pk"]["S"]) and value in tenant_index_values(tenant)
    others = [
        item(thread_pk(tenant, "t"), run_sk(1)),
        item(ns.pk(tenant, "m"), "META#00000000000000000001#abc"),
        item(tenant_pk(tenant), "#TENANT"),
        {**item(key_pk("k2"), "#APIKEY"), "tenant": {"S": tenant + "x"}},  # another tenant's key
    ]
    assert all(index_attribute(o, tenant) is o for o in others)
    # one tenant's index values are never another's
    assert not set(tenant_index_values(tenant)) & set(tenant_index_values(tenant + "#0"))
