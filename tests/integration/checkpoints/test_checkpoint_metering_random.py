"""Randomized, concurrent, bounded (ADR 0042): threads put, re-put, write (regular and special channels), copy, prune
and delete checkpoint threads of one tenant at random (seeded); afterwards the gauge equals the adapters' recount,
which equals the bytes the items hold (each item's blob size), and after deleting everything it is 0."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from test_checkpoint_metering import TENANT, gauge, put_checkpoint, put_writes, recount

from offprompt.errors import OffpromptError
from offprompt.services.checkpoints import copy, delete, prune
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.requests import CheckpointCopy

THREADS = ("a", "b")
IDS = ("1ef-1", "1ef-2")
WORKERS = 4
STEPS = 12


def held_bytes(ddb: Any) -> int:
    """What the tenant's metered checkpoint items hold: each item's blob size."""
    from checkpoints_support import table_items

    return sum(
        int(i["size"]["N"]) for i in table_items(ddb) if i["pk"]["S"].startswith("CKP#") and "metered_bytes" in i
    )


def step(ck: Checkpoints, rng: random.Random) -> None:
    thread, cid = rng.choice(THREADS), rng.choice(IDS)
    size = rng.choice((1, 1000, 200_000, 500_000))
    action = rng.choice(("put", "put", "write", "special", "copy", "prune", "delete"))
    if action == "put":
        put_checkpoint(ck, thread, cid, size)
    elif action == "write":
        put_writes(ck, thread, cid, rng.choice(("t1", "t2")), rng.choice((0, 1)), size)
    elif action == "special":
        put_writes(ck, thread, cid, "t1", -1, size)
    elif action == "copy":
        copy.copy_thread(ck, TENANT, thread, CheckpointCopy(target_thread_id=f"{thread}-{rng.randrange(3)}"))
    elif action == "prune":
        prune.keep_latest(ck, TENANT, thread)
    else:
        delete.delete_thread(ck, TENANT, thread)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_concurrent_checkpoint_traffic_keeps_the_gauge_exact(
    ck: Checkpoints,
    aws: dict[str, Any],
    seed: int,
) -> None:
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        rng = random.Random(seed * 100 + n)
        for _ in range(STEPS):
            try:
                step(ck, rng)
            except OffpromptError:
                pass  # a refused or raced request (409 shared, 404, 503): it must have changed nothing
            except BaseException as exc:
                errors.append(exc)

    workers = [threading.Thread(target=worker, args=(n,)) for n in range(WORKERS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(300)
    assert errors == []
    assert gauge(aws) == recount(aws) == held_bytes(aws["dynamodb"])
    for thread in [*THREADS, *(f"{t}-{n}" for t in THREADS for n in range(3))]:
        delete.delete_thread(ck, TENANT, thread)
    assert gauge(aws) == recount(aws) == 0
