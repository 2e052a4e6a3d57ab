"""A blob load by the reference its store returned (ADR 0053): one GET per object, no DynamoDB lookup, and the same
guarantees as a load by name — a deleted namespace is not loadable, a replaced one loads the new value, an appended
one loads everything, a foreign tenant reads nothing, and loads by name (old references) are unchanged."""

from __future__ import annotations

import base64
import json
from typing import Any

from tm_unit_helpers import BUCKET, count_calls

from offprompt.artifacts import BlobArtifact, ListArtifact
from offprompt.services.task_memory import TaskMemoryService


def store(svc: TaskMemoryService, artifact: Any, tenant: str = "t1") -> Any:
    return svc.process_output(tenant, "TaskMemory", tool="WebTool", activity="fetch", artifact=artifact)


def values(svc: TaskMemoryService, ns: str, ref: str | None, tenant: str = "t1") -> list[bytes]:
    body = svc.load_artifacts(tenant, "TaskMemory", ns, ref=ref).body
    assert body is not None
    return [base64.b64decode(a["value"]) for a in json.loads(body)["value"]]


def test_a_store_into_a_new_name_returns_a_reference_that_loads_with_gets_alone(svc: TaskMemoryService) -> None:
    result = store(svc, ListArtifact([BlobArtifact(b"one", name="n", meta={"k": "v"}), BlobArtifact(b"two")]))
    assert result.ref is not None and "t1" not in result.ref and BUCKET not in result.ref and "/" not in result.ref
    by_name = svc.load_artifacts("t1", "TaskMemory", result.namespace).body
    calls = count_calls(svc)
    by_ref = svc.load_artifacts("t1", "TaskMemory", result.namespace, ref=result.ref).body
    assert calls == ["GetObject", "GetObject"]
    assert by_name is not None and by_ref is not None
    assert json.loads(by_ref)["value"] == json.loads(by_name)["value"]  # the items byte for byte (a fresh list)
    assert by_ref.partition('"value": [')[2] == by_name.partition('"value": [')[2]


def test_a_deleted_namespace_is_not_loadable_by_its_reference(svc: TaskMemoryService) -> None:
    result = store(svc, BlobArtifact(b"gone", name="del"))
    svc.delete_namespace("t1", "TaskMemory", "del")
    assert values(svc, "del", result.ref) == []


def test_a_replaced_namespace_loads_the_new_value_by_the_old_reference(svc: TaskMemoryService) -> None:
    old = store(svc, BlobArtifact(b"old", name="rep"))
    svc.delete_namespace("t1", "TaskMemory", "rep")
    new = store(svc, BlobArtifact(b"new", name="rep"))
    assert values(svc, "rep", old.ref) == [b"new"]
    assert values(svc, "rep", new.ref) == [b"new"]


def test_an_appended_namespace_loads_everything_by_the_first_reference(svc: TaskMemoryService) -> None:
    first = store(svc, BlobArtifact(b"first", name="app"))
    again = store(svc, BlobArtifact(b"second", name="app"))
    assert again.ref is None  # an append names no reference: its load needs the lookup
    assert values(svc, "app", first.ref) == [b"first", b"second"]
    store(svc, BlobArtifact(b"third", name="app"))
    assert values(svc, "app", first.ref) == [b"first", b"second", b"third"]


def test_a_foreign_tenant_reads_nothing_with_a_reference(svc: TaskMemoryService) -> None:
    mine = store(svc, BlobArtifact(b"secret", name="mine"))
    assert values(svc, "mine", mine.ref, tenant="t2") == []
    store(svc, BlobArtifact(b"theirs", name="mine"), tenant="t2")
    assert values(svc, "mine", mine.ref, tenant="t2") == [b"theirs"]
    assert values(svc, "other", mine.ref) == []  # another namespace of the same tenant: its own (nothing)


def test_a_forged_or_malformed_reference_falls_back_to_the_lookup(svc: TaskMemoryService) -> None:
    result = store(svc, BlobArtifact(b"v", name="f"))
    assert result.ref is not None
    parts = result.ref.split(".")
    forged = [
        "", "x", "b1", "b1.../../x.1.1", ".".join([parts[0], "0" * 32, *parts[2:]]),
        ".".join([*parts[:2], "2", parts[3]]), ".".join([*parts[:3], "999999"]), result.ref + ".1",
    ]  # fmt: skip
    for ref in forged:
        assert values(svc, "f", ref) == [b"v"], ref


def test_loads_by_name_are_unchanged(svc: TaskMemoryService) -> None:
    store(svc, BlobArtifact(b"plain", name="p"))
    calls = count_calls(svc)
    assert values(svc, "p", None) == [b"plain"]
    assert calls == ["Query", "GetObject"]


def test_the_reference_travels_over_http_and_direct_invocation(svc: TaskMemoryService, handlers: Any) -> None:
    from tm_unit_helpers import Ctx, call, http_event

    artifact = BlobArtifact(b"over http", name="web").to_dict()
    body = {"tool": "WebTool", "activity": "fetch", "artifact": artifact}
    status, answer, headers = call(handlers.po, http_event("process_output_http.json", body=body))
    assert status == 200 and answer["name"] == "web" and headers["X-Offprompt-Ref"].startswith("b1.")
    ref = headers["X-Offprompt-Ref"]
    load = http_event("load_artifacts_http.json", params={"memory_name": "TaskMemory", "namespace": "web"})
    calls = count_calls(svc)
    status, by_ref, _ = call(handlers.la, {**load, "queryStringParameters": {"ref": ref}})
    assert status == 200 and calls == ["GetObject"]
    status, by_name, _ = call(handlers.la, load)
    assert status == 200 and by_ref["value"] == by_name["value"]
    assert base64.b64decode(by_ref["value"][0]["value"]) == b"over http"
    direct = {"action": "load", "tenant": "tenant-a", "memory_name": "TaskMemory", "namespace": "web", "ref": ref}
    calls.clear()
    assert handlers.la.lambda_handler(direct, Ctx())["value"] == by_name["value"] and calls == ["GetObject"]
    status, _, headers = call(handlers.po, http_event("process_output_http.json", body=body))
    assert status == 200 and "X-Offprompt-Ref" not in headers  # an append: no reference
    status, again, _ = call(handlers.la, {**load, "queryStringParameters": {"ref": ref}})
    assert [base64.b64decode(a["value"]) for a in again["value"]] == [b"over http"] * 2
