"""Cost per request independent of table and partition size: transactions save only what they touch, and a
Query for the newest N items reads about N items however long the partition is."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import TABLE, Server, query_pages, reset_moto, start_server


def _fill(server: Server, partitions: dict[str, int], size: int = 200) -> None:
    """Write `count` items into each partition with BatchWriteItem (25 per call)."""
    ddb = server.dynamodb()
    requests = [
        {"PutRequest": {"Item": {"pk": {"S": pk}, "sk": {"S": f"run#{i:08d}"}, "body": {"S": "x" * size}}}}
        for pk, count in partitions.items()
        for i in range(count)
    ]
    for start in range(0, len(requests), 25):
        out = ddb.batch_write_item(RequestItems={TABLE: requests[start : start + 25]})
        assert not out.get("UnprocessedItems")


def _transaction(ddb: Any, n: int) -> None:
    ddb.transact_write_items(
        TransactItems=[
            {
                "Put": {
                    "TableName": TABLE,
                    "Item": {"pk": {"S": "tx"}, "sk": {"S": f"run#{n:08d}"}, "body": {"S": "y" * 200}},
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": {"pk": {"S": "tx"}, "sk": {"S": "meta"}},
                    "UpdateExpression": "ADD run_count :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
        ]
    )


@contextlib.contextmanager
def counting_items_created() -> Iterator[list[int]]:
    """Count moto `Item` objects created (new or deep-copied: `copy.deepcopy` goes through `__new__`).

    A deterministic proxy for the memory and time a request costs in moto's item model. (tracemalloc was tried:
    werkzeug's per-connection drain allocates a 10 MB buffer at random moments, which swamps the signal.)
    """
    from moto.dynamodb.models.dynamo_type import Item

    had_own = "__new__" in Item.__dict__
    original = Item.__dict__.get("__new__")
    counter = [0]

    def counted_new(cls: type, *args: Any, **kwargs: Any) -> Any:
        counter[0] += 1
        return object.__new__(cls)

    Item.__new__ = counted_new  # type: ignore[method-assign,assignment]
    try:
        yield counter
    finally:
        if had_own:
            Item.__new__ = original  # type: ignore[method-assign]
        else:
            del Item.__new__


def _items_created_by_a_transaction(server: Server, n: int) -> int:
    ddb = server.dynamodb()
    _transaction(ddb, n)  # warm: clients, parsers, code paths
    with counting_items_created() as created:
        _transaction(ddb, n + 2)
    return created[0]


def test_a_transaction_costs_the_same_on_a_5000_item_table_as_on_a_10_item_one(server: Server) -> None:
    _fill(server, {"small": 10})
    small = _items_created_by_a_transaction(server, 0)
    _fill(server, {"big": 5_000})
    big = _items_created_by_a_transaction(server, 10)
    # moto 5.2.5 deep-copies the whole table (items and stream records) to be able to roll back.
    assert big == small and small <= 10, (small, big)
    print(f"items created by a 2-operation transaction: 10-item table {small}, 5,010-item table {big}")


@contextlib.contextmanager
def counting_key_reads() -> Iterator[list[int]]:
    """Count reads of DynamoType.cast_value: every key comparison (moto's sort, our bisect) goes through it."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    original = DynamoType.cast_value
    counter = [0]

    def counted(self: Any) -> Any:
        counter[0] += 1
        return original.fget(self)  # type: ignore[attr-defined]

    DynamoType.cast_value = property(counted)  # type: ignore[assignment,method-assign]
    try:
        yield counter
    finally:
        DynamoType.cast_value = original  # type: ignore[method-assign]


def _newest(server: Server, pk: str, limit: int = 20) -> tuple[list[str], int]:
    ddb = server.dynamodb()
    with counting_key_reads() as reads:
        out = ddb.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :run)",
            ExpressionAttributeValues={":pk": {"S": pk}, ":run": {"S": "run#"}},
            ScanIndexForward=False,
            Limit=limit,
        )
    return [item["sk"]["S"] for item in out["Items"]], reads[0]


def test_query_newest_n_reads_a_bounded_number_of_keys_whatever_the_partition_size(server: Server) -> None:
    _fill(server, {"short": 100, "long": 5_000, "other": 1_000}, size=20)
    short, short_reads = _newest(server, "short")
    long, long_reads = _newest(server, "long")
    assert short == [f"run#{i:08d}" for i in range(99, 79, -1)]
    assert long == [f"run#{i:08d}" for i in range(4999, 4979, -1)]
    # moto 5.2.5 sorts the whole table on every Query: ~100,000 key reads for the long partition.
    # Ours: a few bisect steps plus the 20 items returned, for both.
    assert long_reads <= short_reads + 50, (short_reads, long_reads)
    assert long_reads <= 300, long_reads
    print(f"key reads: newest 20 of 100 -> {short_reads}, of 5,000 -> {long_reads}")


# ---------------------------------------------------------------------------------------------- parity


def _query_shapes() -> list[dict[str, Any]]:
    shapes: list[dict[str, Any]] = []
    conditions = [
        ("pk = :pk", {}),
        ("pk = :pk AND begins_with(sk, :p)", {":p": {"S": "run#"}}),
        ("pk = :pk AND begins_with(sk, :p)", {":p": {"S": "run#0000001"}}),
        ("pk = :pk AND begins_with(sk, :p)", {":p": {"S": "zzz"}}),
        ("pk = :pk AND sk BETWEEN :lo AND :hi", {":lo": {"S": "run#00000010"}, ":hi": {"S": "run#00000042"}}),
        ("pk = :pk AND sk BETWEEN :lo AND :hi", {":lo": {"S": "a"}, ":hi": {"S": "run#00000005~"}}),
        ("pk = :pk AND sk < :v", {":v": {"S": "run#00000030"}}),
        ("pk = :pk AND sk <= :v", {":v": {"S": "run#00000030"}}),
        ("pk = :pk AND sk > :v", {":v": {"S": "run#00000030"}}),
        ("pk = :pk AND sk >= :v", {":v": {"S": "run#00000030"}}),
        ("pk = :pk AND sk = :v", {":v": {"S": "run#00000030"}}),
    ]
    for expression, values in conditions:
        for forward in (True, False):
            for limit in (None, 1, 7, 200):
                shapes.append({"expression": expression, "values": values, "forward": forward, "limit": limit})
    return shapes


def _page_all(
    ddb: Any, table: str, shape: dict[str, Any], filtered: bool, projection: str | None = None
) -> list[dict[str, Any]]:
    params: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": shape["expression"],
        "ExpressionAttributeValues": {":pk": {"S": "p"}, **shape["values"]},
        "ScanIndexForward": shape["forward"],
    }
    if shape["limit"]:
        params["Limit"] = shape["limit"]
    if filtered:
        params["FilterExpression"] = "attribute_not_exists(expires_at) OR expires_at > :now"
        params["ExpressionAttributeValues"][":now"] = {"N": "500"}
    if projection:
        params["ProjectionExpression"] = projection
    return query_pages(ddb, params)


@pytest.mark.parametrize("server_kind", ["substrate"], indirect=False)
def test_query_results_equal_moto_for_the_adapters_query_shapes(server: Server) -> None:
    """The same data in a substrate table and in a plain moto table; every query shape, paged, compared."""
    from moto.server import ThreadedMotoServer

    from offprompt_local.resources import create_table

    plain = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    plain.start()
    try:
        host, port = plain.get_host_and_port()
        plain_ddb = Server("plain_moto", f"http://{host}:{port}", plain).dynamodb()
        create_table(plain_ddb, "plain-table")  # created through plain moto: moto's own Query
        rng = random.Random(7)
        items = []
        for i in sorted(rng.sample(range(60), 45)):
            item = {"pk": {"S": "p"}, "sk": {"S": f"run#{i:08d}"}, "n": {"N": str(i)}, "m": {"M": {"x": {"B": b"1"}}}}
            if i % 3 == 0:
                item["expires_at"] = {"N": str(rng.choice([100, 1000]))}
            items.append(item)
        items.append({"pk": {"S": "p"}, "sk": {"S": "meta"}})
        items.append({"pk": {"S": "q"}, "sk": {"S": "run#00000001"}})
        for item in items:
            server.dynamodb().put_item(TableName=TABLE, Item=item)
            plain_ddb.put_item(TableName="plain-table", Item=item)
        ours = server.dynamodb()
        from offprompt_local.substrate import moto_patches

        fast_before = moto_patches.stats.query_fast
        compared = 0
        # Every other shape projected (top-level names, one absent from some items and one from all; a nested
        # path, which the substrate leaves to moto's own projection), as the adapters' reads of runs do.
        projections = [None, "n, expires_at, sk", None, "sk, absent", None, "m.x, n"]
        for index, shape in enumerate(_query_shapes()):
            projection = projections[index % len(projections)]
            for filtered in (False, True):
                assert _page_all(ours, TABLE, shape, filtered, projection) == _page_all(
                    plain_ddb, "plain-table", shape, filtered, projection
                ), (shape, filtered, projection)
                compared += 1
        assert moto_patches.stats.query_fast - fast_before >= compared  # the fast path answered, not a fallback
    finally:
        plain.stop()


def test_reads_and_updates_leave_nothing_behind(server: Server) -> None:
    """moto keeps every Item it ever creates (deep copies for each Query result and UpdateItem included) and every
    stream record in `instances_tracked`, so memory grows with each request, not with the data kept."""
    from moto.dynamodb.models.dynamo_type import Item
    from moto.dynamodb.models.table import StreamRecord

    _fill(server, {"t": 50}, size=20)
    ddb = server.dynamodb()

    def retained() -> int:
        return len(Item.instances_tracked) + len(StreamRecord.instances_tracked)  # type: ignore[attr-defined]

    def request(i: int) -> None:
        _newest(server, "t")
        ddb.update_item(
            TableName=TABLE,
            Key={"pk": {"S": "t"}, "sk": {"S": "meta"}},
            UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )

    request(0)
    before = retained()
    for i in range(50):
        request(i)
    assert retained() - before <= 5, retained() - before  # plain moto: ~1,100 (20 copies per Query, +2 per update)


#: An item holding every DynamoDB attribute type, nested, with the values moto's serializer treats specially.
EVERY_TYPE: dict[str, Any] = {
    "pk": {"S": "types"},
    "sk": {"S": "item"},
    "s": {"S": 'text é€🦊 "quoted" \\ back'},
    "n": {"N": "-12.50"},
    "b": {"B": b"\x00\xffbinary"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [b"x", b"\x01"]},
    "m": {
        "M": {"inner": {"L": [{"S": "x"}, {"N": "1"}, {"NULL": True}, {"BOOL": False}, {"M": {}}]}, "b": {"B": b"y"}}
    },
    "l": {"L": []},
    "null": {"NULL": True},
    "t": {"BOOL": True},
    "f": {"BOOL": False},
}


def test_reads_answer_every_attribute_type_as_plain_moto_does(aws_credentials: None) -> None:
    """The substrate writes the attribute values of a read's answer itself (not through moto's shape walk): the same
    answers as plain moto's, for every type, nested, on GetItem, BatchGetItem, Query, Scan and a projection."""
    from offprompt_local.resources import create_table

    reset_moto()
    server, plain = start_server("substrate"), start_server("plain_moto")
    try:
        theirs = plain.dynamodb()  # moto's one backend in this process: the same table
        ours = server.dynamodb()
        create_table(ours, TABLE)
        ours.put_item(TableName=TABLE, Item=EVERY_TYPE)
        key = {"pk": EVERY_TYPE["pk"], "sk": EVERY_TYPE["sk"]}
        reads = [
            lambda c: c.get_item(TableName=TABLE, Key=key, ConsistentRead=True)["Item"],
            lambda c: c.batch_get_item(RequestItems={TABLE: {"Keys": [key], "ConsistentRead": True}})["Responses"],
            lambda c: c.query(
                TableName=TABLE, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": key["pk"]}
            )["Items"],
            lambda c: c.scan(TableName=TABLE)["Items"],
            lambda c: c.get_item(TableName=TABLE, Key=key, ProjectionExpression="m.inner, b, bs")["Item"],
        ]
        for read in reads:
            assert read(ours) == read(theirs)
        assert ours.get_item(TableName=TABLE, Key=key)["Item"] == EVERY_TYPE
    finally:
        plain.stop()
        server.stop()
        reset_moto()


def test_a_batch_get_writes_its_items_without_walking_the_shape_of_every_value(server: Server) -> None:
    """moto walks the botocore shape of every attribute value of an answer (~1.5 ms per item of a dozen attributes:
    most of a BatchGetItem's time, ADR 0064); the substrate writes them directly, so the shape walk costs the same
    for 1 item as for 40."""
    from moto.core.serialize import ResponseSerializer

    ddb = server.dynamodb()
    for i in range(40):
        attributes = {f"a{n}": {"S": f"value {n}"} for n in range(12)}
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"S": f"run#{i:08d}"}, **attributes})
    keys = [{"pk": {"S": "p"}, "sk": {"S": f"run#{i:08d}"}} for i in range(40)]
    original = ResponseSerializer.get_value
    walked = [0]

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        walked[0] += 1
        return original(self, *args, **kwargs)

    def walks(n: int) -> int:
        walked[0] = 0
        out = ddb.batch_get_item(RequestItems={TABLE: {"Keys": keys[:n], "ConsistentRead": True}})
        assert len(out["Responses"][TABLE]) == n
        return walked[0]

    ResponseSerializer.get_value = counted  # type: ignore[method-assign]
    try:
        assert walks(40) == walks(1)
    finally:
        ResponseSerializer.get_value = original  # type: ignore[method-assign]
