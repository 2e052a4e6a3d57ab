"""A Query on a secondary index of a managed table reads only the items of the queried index partition, and
answers exactly what moto's own walk of the whole table answers, whatever writes came before it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from offprompt_local.substrate import moto_patches

from .conftest import TABLE, Server, query_pages

PLAIN_TABLE = "plain-index-table"
TENANTS = [f"t#{i}" for i in range(4)]
ACTIVITIES = ["2026-01-01", "2026-01-02", "2026-01-02", "2026-02-10", "2026-03-01", "2027"]


@pytest.fixture
def plain(server: Server) -> Iterator[Any]:
    """Plain moto (moto's own Query: a walk of every item) in the same process, with the same table."""
    from moto.server import ThreadedMotoServer

    from offprompt_local.resources import create_table

    handle = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    handle.start()
    try:
        host, port = handle.get_host_and_port()
        client = Server("plain_moto", f"http://{host}:{port}", handle).dynamodb()
        create_table(client, PLAIN_TABLE)
        yield client
    finally:
        handle.stop()


def _item(rng: random.Random) -> dict[str, Any]:
    item: dict[str, Any] = {"pk": {"S": f"p{rng.randrange(6)}"}, "sk": {"S": f"s{rng.randrange(8)}"}}
    if rng.random() < 0.8:
        item["tenant_dir"] = {"S": rng.choice(TENANTS)}
    if rng.random() < 0.7:
        item["activity"] = {"S": rng.choice(ACTIVITIES)}
    item["n"] = {"N": str(rng.randrange(10))}
    if rng.random() < 0.3:
        item["body"] = {"S": "x" * rng.randrange(1, 300)}
    return item


def _key(rng: random.Random) -> dict[str, Any]:
    return {"pk": {"S": f"p{rng.randrange(6)}"}, "sk": {"S": f"s{rng.randrange(8)}"}}


def _update(rng: random.Random) -> dict[str, Any]:
    choice = rng.randrange(6)
    update: dict[str, Any] = {"Key": _key(rng)}
    if choice == 0:
        update.update(
            UpdateExpression="SET tenant_dir = :v", ExpressionAttributeValues={":v": {"S": rng.choice(TENANTS)}}
        )
    elif choice == 1:
        update.update(
            UpdateExpression="SET activity = :v", ExpressionAttributeValues={":v": {"S": rng.choice(ACTIVITIES)}}
        )
    elif choice == 2:
        update.update(UpdateExpression="REMOVE activity")
    elif choice == 3:
        update.update(UpdateExpression="REMOVE tenant_dir")
    elif choice == 4:
        update.update(UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}})
    else:  # conditional: fails on most items
        update.update(
            UpdateExpression="SET tenant_dir = :v",
            ConditionExpression="n = :three",
            ExpressionAttributeValues={":v": {"S": rng.choice(TENANTS)}, ":three": {"N": "3"}},
        )
    return update


def _operation(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """One write, as (client method, parameters without the table name)."""
    kind = rng.choices(["put", "update", "delete", "transact", "batch"], weights=[4, 4, 2, 2, 1])[0]
    if kind == "put":
        return "put_item", {"Item": _item(rng)}
    if kind == "update":
        return "update_item", _update(rng)
    if kind == "delete":
        return "delete_item", {"Key": _key(rng)}
    if kind == "batch":
        puts = {str(i["pk"]) + str(i["sk"]): i for i in (_item(rng) for _ in range(rng.randrange(1, 6)))}
        return "batch_write_item", {"RequestItems": [{"PutRequest": {"Item": i}} for i in puts.values()]}
    operations: list[dict[str, Any]] = []
    seen: set[str] = set()
    for _ in range(rng.randrange(1, 4)):
        which = rng.randrange(3)
        if which == 0:
            op: dict[str, Any] = {"Put": {"Item": _item(rng)}}
            key = {k: op["Put"]["Item"][k] for k in ("pk", "sk")}
        elif which == 1:
            op = {"Update": _update(rng)}
            key = op["Update"]["Key"]
        else:
            op = {"Delete": {"Key": _key(rng)}}
            key = op["Delete"]["Key"]
        if str(key) not in seen:
            seen.add(str(key))
            operations.append(op)
    if rng.random() < 0.3:  # a failing condition at the end: everything before it is rolled back
        operations.append(
            {
                "ConditionCheck": {
                    "Key": _key(rng),
                    "ConditionExpression": "n = :no",
                    "ExpressionAttributeValues": {":no": {"N": "99"}},
                }
            }
        )
        if str(operations[-1]["ConditionCheck"]["Key"]) in seen:
            operations.pop()
    return "transact_write_items", {"TransactItems": operations}


def _apply(client: Any, table: str, method: str, params: dict[str, Any]) -> str | None:
    """Run one write against `table`; the error code it answered, or None."""
    import copy

    params = copy.deepcopy(params)
    if method == "batch_write_item":
        params["RequestItems"] = {table: params["RequestItems"]}
    elif method == "transact_write_items":
        for op in params["TransactItems"]:
            next(iter(op.values()))["TableName"] = table
    else:
        params["TableName"] = table
    try:
        getattr(client, method)(**params)
    except client.exceptions.ClientError as error:
        return str(error.response["Error"]["Code"])
    return None


def _shapes() -> list[dict[str, Any]]:
    shapes: list[dict[str, Any]] = []
    conditions = [
        ("TenantActivity", "tenant_dir = :t", {}),
        ("TenantActivity", "tenant_dir = :t AND begins_with(activity, :a)", {":a": {"S": "2026-01"}}),
        (
            "TenantActivity",
            "tenant_dir = :t AND activity BETWEEN :lo AND :hi",
            {":lo": {"S": "2026-01-02"}, ":hi": {"S": "2026-03"}},
        ),
        ("TenantActivity", "tenant_dir = :t AND activity > :a", {":a": {"S": "2026-01-02"}}),
        ("TenantActivity", "tenant_dir = :t AND activity <= :a", {":a": {"S": "2026-02-10"}}),
        ("TenantRoots", "tenant_dir = :t", {}),
    ]
    for index, expression, values in conditions:
        for forward in (True, False):
            for limit in (None, 1, 3):
                shapes.append(
                    {"index": index, "expression": expression, "values": values, "forward": forward, "limit": limit}
                )
    return shapes


def _page_all(
    client: Any, table: str, shape: dict[str, Any], tenant: str, extra: dict[str, Any]
) -> list[dict[str, Any]]:
    params: dict[str, Any] = {
        "TableName": table,
        "IndexName": shape["index"],
        "KeyConditionExpression": shape["expression"],
        "ExpressionAttributeValues": {":t": {"S": tenant}, **shape["values"], **extra.get("values", {})},
        "ScanIndexForward": shape["forward"],
        **{k: v for k, v in extra.items() if k != "values"},
    }
    if shape["limit"]:
        params["Limit"] = shape["limit"]
    return query_pages(client, params, most=100)


EXTRAS: list[dict[str, Any]] = [
    {},
    {"FilterExpression": "n > :min", "values": {":min": {"N": "4"}}},
    {"ProjectionExpression": "pk, activity"},
    {"Select": "COUNT"},
]


def _compare(ours: Any, plain: Any, rng: random.Random, shapes: list[dict[str, Any]]) -> int:
    compared = 0
    for shape in shapes:
        tenant = rng.choice([*TENANTS, "t#none"])
        extra = rng.choice(EXTRAS)
        mine = _page_all(ours, TABLE, shape, tenant, extra)
        theirs = _page_all(plain, PLAIN_TABLE, shape, tenant, extra)
        assert mine == theirs, (shape, tenant, extra)
        compared += len(mine)
    return compared


@pytest.mark.parametrize("server_kind", ["substrate"])
def test_index_queries_equal_moto_after_random_writes(server: Server, plain: Any) -> None:
    """Seeded random puts, updates (in place, conditional, removing index keys), deletes, batches and
    transactions (some rolled back) on both servers; after each, index Queries of every shape compared."""
    rng = random.Random(20261205)
    ours = server.dynamodb()
    shapes = _shapes()
    fast_before = moto_patches.stats.index_query_fast
    pages = 0
    for step in range(150):
        method, params = _operation(rng)
        assert _apply(ours, TABLE, method, params) == _apply(plain, PLAIN_TABLE, method, params), (step, method)
        sample = shapes if step % 50 == 49 else rng.sample(shapes, 2)
        pages += _compare(ours, plain, rng, sample)
    assert moto_patches.stats.index_query_fast - fast_before >= pages  # the index path answered, not a fallback


@pytest.mark.parametrize("server_kind", ["substrate"])
def test_an_index_query_reads_only_its_partition(server: Server) -> None:
    ddb = server.dynamodb()
    requests = [
        {
            "PutRequest": {
                "Item": {
                    "pk": {"S": f"th#{i}"},
                    "sk": {"S": "meta"},
                    "tenant_dir": {"S": f"t#{i % 100}"},
                    "activity": {"S": f"a{i:05d}"},
                }
            }
        }
        for i in range(1000)
    ]
    for start in range(0, len(requests), 25):
        ddb.batch_write_item(RequestItems={TABLE: requests[start : start + 25]})
    ddb.query(
        TableName=TABLE,
        IndexName="TenantActivity",
        KeyConditionExpression="tenant_dir = :t",
        ExpressionAttributeValues={":t": {"S": "t#0"}},
    )
    read_before = moto_patches.stats.index_query_items_read
    out = ddb.query(
        TableName=TABLE,
        IndexName="TenantActivity",
        KeyConditionExpression="tenant_dir = :t",
        ExpressionAttributeValues={":t": {"S": "t#7"}},
        ScanIndexForward=False,
        Limit=3,
    )
    assert [i["activity"]["S"] for i in out["Items"]] == ["a00907", "a00807", "a00707"]
    assert moto_patches.stats.index_query_items_read - read_before == 10  # the partition, not the 1,000 items


def _tenant_threads(ddb: Any, tenant: str) -> list[tuple[str, str]]:
    out = ddb.query(
        TableName=TABLE,
        IndexName="TenantActivity",
        KeyConditionExpression="tenant_dir = :t",
        ExpressionAttributeValues={":t": {"S": tenant}},
        ScanIndexForward=False,
    )
    return [(i["pk"]["S"], i["activity"]["S"]) for i in out["Items"]]


@pytest.mark.parametrize("server_kind", ["substrate"])
def test_a_restored_table_answers_index_queries_from_its_data(server_factory: Any, tmp_path: Any) -> None:
    """Maps built before a stop are not what a restored table uses: it builds its own on first use."""
    from offprompt_local.resources import create_table

    from .conftest import reset_moto

    first = server_factory(tmp_path / "moto")
    ddb = first.dynamodb()
    create_table(ddb, TABLE, exist_ok=True)
    for i in range(6):
        item = {
            "pk": {"S": f"th#{i}"},
            "sk": {"S": "meta"},
            "tenant_dir": {"S": f"t#{i % 2}"},
            "activity": {"S": f"a{i}"},
        }
        ddb.put_item(TableName=TABLE, Item=item)
    assert _tenant_threads(ddb, "t#0") == [("th#4", "a4"), ("th#2", "a2"), ("th#0", "a0")]
    ddb.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "th#2"}, "sk": {"S": "meta"}},
        UpdateExpression="SET tenant_dir = :t",
        ExpressionAttributeValues={":t": {"S": "t#1"}},
    )  # journaled, replayed at the next start
    first.stop()
    reset_moto()
    second = server_factory(tmp_path / "moto")
    ddb = second.dynamodb()
    assert _tenant_threads(ddb, "t#0") == [("th#4", "a4"), ("th#0", "a0")]
    assert _tenant_threads(ddb, "t#1") == [("th#5", "a5"), ("th#3", "a3"), ("th#2", "a2"), ("th#1", "a1")]
    ddb.delete_item(TableName=TABLE, Key={"pk": {"S": "th#5"}, "sk": {"S": "meta"}})
    assert _tenant_threads(ddb, "t#1") == [("th#3", "a3"), ("th#2", "a2"), ("th#1", "a1")]
