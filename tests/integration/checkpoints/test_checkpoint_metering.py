"""The stored-bytes gauge follows what checkpoints store, under replacements and races (issue 30 item 4, ADR 0042):
every metered write is conditioned on the item's previous `metered_bytes` and adds new - old in its own transaction,
every delete takes off what the item says it holds. Each test ends with everything deleted and the gauge at 0, and
compares the gauge with the adapters' recount on the way. Races are made deterministic with barriers at the window
(after the use case's read, before its write)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from checkpoints_support import TABLE, blob

from offprompt.adapters.dynamodb_checkpoints import DynamoDbCheckpointStore
from offprompt.adapters.gauge import recount_stored_bytes
from offprompt.adapters.layout import TENANT_SK, tenant_pk
from offprompt.metering import PLANS, Meter
from offprompt.services.checkpoints import delete, put, writes
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.requests import CheckpointPut, WritesPut

TENANT = "acme"
MiB = 1024 * 1024


def gauge(aws: dict[str, Any]) -> int:
    item = (
        aws["dynamodb"]
        .get_item(TableName=TABLE, Key={"pk": {"S": tenant_pk(TENANT)}, "sk": {"S": TENANT_SK}}, ConsistentRead=True)
        .get("Item", {})
    )
    return int(item.get("stored_bytes", {}).get("N", "0"))


def recount(aws: dict[str, Any]) -> int:
    return recount_stored_bytes(TABLE, TENANT, client=aws["dynamodb"]).stored_bytes


def meter() -> Meter:
    return Meter(TENANT, PLANS["unlimited"])


def put_checkpoint(ck: Checkpoints, thread: str, cid: str, size: int) -> None:
    request = CheckpointPut.model_validate({"checkpoint": blob(b"c" * size), "metadata": {}})
    put.put_checkpoint(ck, TENANT, thread, cid, request, meter=meter())


def put_writes(ck: Checkpoints, thread: str, cid: str, task: str, idx: int, size: int) -> dict[str, Any]:
    request = WritesPut.model_validate(
        {"task_id": task, "writes": [{"idx": idx, "channel": "ch", "value": blob(b"w" * size)}]}
    )
    return writes.put_writes(ck, TENANT, thread, cid, request, meter=meter())


def check(aws: dict[str, Any], expected: int) -> None:
    assert (gauge(aws), recount(aws)) == (expected, expected)


class Paused(DynamoDbCheckpointStore):
    """The real store, with a pause (a callback) after the read a use case bases its write on."""

    def __init__(self, base: DynamoDbCheckpointStore, after: str, pause: Callable[[], None]) -> None:
        super().__init__(base.table_name, client=base.client)
        self._after, self._pause = after, pause

    def _paused(self, name: str, value: Any) -> Any:
        if name == self._after:
            self._pause()
        return value

    def thread_and_checkpoint(self, *a: Any, **k: Any) -> Any:
        return self._paused("thread_and_checkpoint", super().thread_and_checkpoint(*a, **k))

    def thread(self, *a: Any, **k: Any) -> Any:
        return self._paused("thread", super().thread(*a, **k))

    def own_items(self, *a: Any, **k: Any) -> Any:
        return self._paused("own_items", super().own_items(*a, **k))


def paused(ck: Checkpoints, after: str, pause: Callable[[], None]) -> Checkpoints:
    store = ck.store
    assert isinstance(store, DynamoDbCheckpointStore)
    return Checkpoints(Paused(store, after, pause), ck.blobs, clock=ck.clock, inline_bytes=ck.inline_bytes)


def once_per_thread(pause: Callable[[], Any]) -> Callable[[], None]:
    """The pause at a thread's first read only (its retries read again without waiting)."""
    done = threading.local()

    def first() -> None:
        if not getattr(done, "paused", False):
            done.paused = True
            pause()

    return first


def run_all(*jobs: Callable[[], Any]) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(job: Callable[[], Any]) -> None:
        try:
            job()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return errors


def test_a_re_put_that_shrinks_a_checkpoint_gives_the_bytes_back(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put_checkpoint(ck, "g", "1ef-1", MiB)
    check(aws, MiB)
    put_checkpoint(ck, "g", "1ef-1", 1)  # was 1,048,575 B too many once deleted
    check(aws, 1)
    delete.delete_thread(ck, TENANT, "g")
    check(aws, 0)


def test_a_replaced_special_channel_write_gives_its_bytes_back(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put_checkpoint(ck, "g", "1ef-1", 10)
    put_writes(ck, "g", "1ef-1", "t", -1, 300_000)
    check(aws, 300_010)
    put_writes(ck, "g", "1ef-1", "t", -1, 5)  # replaces it: was 300,000 B too many
    check(aws, 15)
    delete.delete_thread(ck, TENANT, "g")
    check(aws, 0)


def test_parallel_writes_of_one_task_and_idx_charge_the_one_kept(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put_checkpoint(ck, "g", "1ef-1", 10)
    barrier = threading.Barrier(4, timeout=30)
    racing = paused(ck, "thread", once_per_thread(barrier.wait))  # all four read "not stored" before any writes
    errors = run_all(*[lambda: put_writes(racing, "g", "1ef-1", "t", 0, 200_000) for _ in range(4)])
    assert errors == []
    check(aws, 200_010)  # was 800,010: 600,000 B for writes that were never kept
    delete.delete_thread(ck, TENANT, "g")
    check(aws, 0)


def test_parallel_first_puts_of_one_id_charge_the_one_kept(ck: Checkpoints, aws: dict[str, Any]) -> None:
    barrier = threading.Barrier(3, timeout=30)
    racing = paused(ck, "thread_and_checkpoint", once_per_thread(barrier.wait))
    errors = run_all(*[lambda n=n: put_checkpoint(racing, "g", "1ef-1", 100_000 + n) for n in range(3)])
    assert errors == []
    assert gauge(aws) == recount(aws)
    delete.delete_thread(ck, TENANT, "g")
    check(aws, 0)


@pytest.mark.parametrize(("first", "second"), [(1, MiB), (MiB, 1)])
def test_a_re_put_between_a_deletes_read_and_its_write(
    ck: Checkpoints, aws: dict[str, Any], first: int, second: int
) -> None:
    put_checkpoint(ck, "g", "1ef-1", first)
    read, resume = threading.Event(), threading.Event()

    def pause() -> None:
        read.set()
        assert resume.wait(30)

    deleting = paused(ck, "own_items", pause)
    worker = threading.Thread(target=lambda: delete.delete_thread(deleting, TENANT, "g"))
    worker.start()
    assert read.wait(30)
    put_checkpoint(ck, "g", "1ef-1", second)  # replaces the item the delete read
    resume.set()
    worker.join(30)
    assert gauge(aws) == recount(aws)
    delete.delete_thread(ck, TENANT, "g")
    check(aws, 0)


def test_a_put_between_another_puts_read_and_its_write(ck: Checkpoints, aws: dict[str, Any]) -> None:
    """The put read the item (or its absence), another put replaced it, then the first one writes."""
    put_checkpoint(ck, "g", "1ef-1", MiB)
    read, resume = threading.Event(), threading.Event()

    def pause() -> None:
        if not read.is_set():
            read.set()
            assert resume.wait(30)

    slow = paused(ck, "thread_and_checkpoint", pause)
    worker = threading.Thread(target=lambda: put_checkpoint(slow, "g", "1ef-1", 7))
    worker.start()
    assert read.wait(30)
    put_checkpoint(ck, "g", "1ef-1", 3)
    resume.set()
    worker.join(30)
    check(aws, 7)
    delete.delete_thread(ck, TENANT, "g")
    check(aws, 0)
