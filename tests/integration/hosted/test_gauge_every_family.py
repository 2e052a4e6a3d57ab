"""The stored-bytes gauge equals the recount from the table for every metered family (issue 30, docs/adr/0042): runs,
session items (and their pops), thread forks, task-memory outputs (text and blobs, and their meta entries), records
(puts, replacements, deletes), checkpoints and their writes, checkpoint copies. First each family alone, then all
of them at random on several threads at once (seeded, bounded); after each, GET /usage's stored_bytes equals
`adapters.gauge.recount_stored_bytes` (what `offprompt-admin usage reconcile` counts)."""

from __future__ import annotations

import base64
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hosted_support import MEMORY, Deployment, call, new_key, text_run

from offprompt.adapters.gauge import recount_stored_bytes

TENANT = "acme"


def usage(token: str) -> int:
    status, body, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, body
    return int(body["stored_bytes"])


def recount(stack: Deployment) -> int:
    return recount_stored_bytes(stack.table, TENANT).stored_bytes


def blob(size: int) -> dict[str, str]:
    return {"type": "bytes", "data": base64.b64encode(b"b" * size).decode()}


class Doors:
    """One request per family's write and delete, as a client sends them; each answers its status."""

    def __init__(self, token: str) -> None:
        self.token = token

    def send(self, function: str, event: str, method: str, path: str, body: Any = None, **params: str) -> int:
        return call(function, event, self.token, path=path, method=method, body=body, **params)[0]

    def run(self, thread: str, n: int, size: int) -> int:
        body = text_run(f"r{n}", "x" * size)
        return self.send("add_run", "add_run_http.json", "POST", f"/threads/{thread}/runs", body, thread_id=thread)

    def items(self, thread: str, size: int) -> int:
        body = {"items": [{"role": "user", "content": "i" * size}]}
        path = f"/threads/{thread}/items"
        return self.send("threads", "thread_items_add_http.json", "POST", path, body, thread_id=thread)

    def pop(self, thread: str) -> int:
        path = f"/threads/{thread}/items/pop"
        return self.send("threads", "thread_items_pop_http.json", "POST", path, thread_id=thread)

    def fork(self, thread: str, target: str) -> int:
        path = f"/threads/{thread}/fork"
        return self.send("threads", "thread_fork_http.json", "POST", path, {"thread_id": target}, thread_id=thread)

    def delete_thread(self, thread: str) -> int:
        return self.send("threads", "thread_delete_http.json", "DELETE", f"/threads/{thread}", thread_id=thread)

    def output(self, name: str, size: int, kind: str) -> int:
        if kind == "blob":
            value = base64.b64encode(b"o" * size).decode()
            artifact = {"type": "BlobArtifact", "id": f"b-{name}", "name": name, "meta": {}, "value": value}
        else:
            artifact = {"type": "TextArtifact", "id": f"t-{name}", "name": name, "meta": {}, "value": "t" * size}
        body = {"tool": "T", "activity": "a", "artifact": artifact}
        path = f"/memories/{MEMORY}/outputs"
        return self.send("process_output", "process_output_http.json", "POST", path, body, memory_name=MEMORY)

    def delete_namespace(self, name: str) -> int:
        path = f"/memories/{MEMORY}/namespaces/{name}"
        event = "memories_delete_namespace_http.json"
        return self.send("memories", event, "DELETE", path, memory_name=MEMORY, namespace=name)

    def record(self, key: str, size: int) -> int:
        body = {"value": {"v": "v" * size}}
        path = f"/records/r.1/{key}"
        return self.send("records", "record_put_http.json", "PUT", path, body, namespace="r.1", key=key)

    def delete_record(self, key: str) -> int:
        path = f"/records/r.1/{key}"
        return self.send("records", "record_delete_http.json", "DELETE", path, namespace="r.1", key=key)

    def checkpoint(self, thread: str, cid: str, size: int) -> int:
        path, body = f"/checkpoint-threads/{thread}/checkpoints/{cid}", {"checkpoint": blob(size), "metadata": {}}
        event = "checkpoint_put_http.json"
        return self.send("checkpoints", event, "PUT", path, body, thread_id=thread, checkpoint_id=cid)

    def writes(self, thread: str, cid: str, idx: int, size: int) -> int:
        path = f"/checkpoint-threads/{thread}/checkpoints/{cid}/writes"
        body = {"task_id": "t", "writes": [{"idx": idx, "channel": "c", "value": blob(size)}]}
        event = "checkpoint_writes_http.json"
        return self.send("checkpoints", event, "PUT", path, body, thread_id=thread, checkpoint_id=cid)

    def copy(self, thread: str, target: str) -> int:
        path, body = f"/checkpoint-threads/{thread}/copy", {"target_thread_id": target}
        return self.send("checkpoints", "checkpoint_copy_http.json", "POST", path, body, thread_id=thread)

    def delete_checkpoints(self, thread: str) -> int:
        path = f"/checkpoint-threads/{thread}"
        return self.send("checkpoints", "checkpoint_delete_http.json", "DELETE", path, thread_id=thread)


@pytest.fixture
def doors(stack: Deployment) -> Doors:
    return Doors(new_key(TENANT))


def test_each_family_alone(stack: Deployment, doors: Doors) -> None:
    steps: list[tuple[str, Callable[[], int]]] = [
        ("run", lambda: doors.run("t", 1, 500)),
        ("run over 350 KB (S3)", lambda: doors.run("t", 2, 400_000)),
        ("items", lambda: doors.items("s", 300)),
        ("pop", lambda: doors.pop("s")),
        ("fork", lambda: doors.fork("t", "t-fork")),
        ("run on the fork", lambda: doors.run("t-fork", 3, 200)),
        ("text output", lambda: doors.output("n-text", 2_000, "text")),
        ("blob output", lambda: doors.output("n-blob", 3_000, "blob")),
        ("record", lambda: doors.record("k", 100)),
        ("record replaced", lambda: doors.record("k", 10)),
        ("checkpoint", lambda: doors.checkpoint("c", "1ef-1", 5_000)),
        ("checkpoint replaced", lambda: doors.checkpoint("c", "1ef-1", 50)),
        ("writes", lambda: doors.writes("c", "1ef-1", -1, 700)),
        ("checkpoint copy", lambda: doors.copy("c", "c-copy")),
        ("delete namespace", lambda: doors.delete_namespace("n-text")),
        ("delete record", lambda: doors.delete_record("k")),
        ("delete fork", lambda: doors.delete_thread("t-fork")),
        ("delete source thread", lambda: doors.delete_thread("t")),
        ("delete checkpoints", lambda: doors.delete_checkpoints("c")),
        ("delete copy", lambda: doors.delete_checkpoints("c-copy")),
    ]
    for name, step in steps:
        status = step()
        assert status < 300, (name, status)
        assert usage(doors.token) == recount(stack), name


def test_every_family_at_random_on_threads(stack: Deployment, doors: Doors) -> None:
    def act(rng: random.Random, n: int) -> None:
        size = rng.choice((10, 2_000, 60_000))
        thread = rng.choice(("t1", "t2"))
        action = rng.randrange(12)
        if action == 0:
            doors.run(thread, n, size)
        elif action == 1:
            doors.items(thread, size)
        elif action == 2:
            doors.pop(thread)
        elif action == 3:
            doors.fork(thread, f"{thread}-f{rng.randrange(2)}")
        elif action == 4:
            doors.delete_thread(rng.choice((thread, f"{thread}-f0")))
        elif action == 5:
            doors.output(rng.choice(("n1", "n2")), size, rng.choice(("text", "blob")))
        elif action == 6:
            doors.delete_namespace(rng.choice(("n1", "n2")))
        elif action == 7:
            doors.record(rng.choice(("a", "b")), size)
        elif action == 8:
            doors.delete_record(rng.choice(("a", "b")))
        elif action == 9:
            doors.checkpoint(thread, rng.choice(("1ef-1", "1ef-2")), size)
        elif action == 10:
            doors.writes(thread, rng.choice(("1ef-1", "1ef-2")), rng.choice((-1, 0)), size)
        else:
            rng.choice((lambda: doors.copy(thread, f"{thread}-c"), lambda: doors.delete_checkpoints(thread)))()

    def worker(w: int) -> None:
        rng = random.Random(7_000 + w)
        for n in range(10):
            act(rng, w * 100 + n)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert usage(doors.token) == recount(stack)
