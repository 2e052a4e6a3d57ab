"""`offprompt_client.langgraph.OffpromptSaver` on the real local stack (the checkpoints function over moto's
DynamoDB and S3), checked by LangGraph's own checkpointer conformance suite (`langgraph-checkpoint-conformance`,
every capability the saver has: put, put_writes, get_tuple, list, delete_thread, copy_thread, prune), then what the
suite does not ask: a 2 MB checkpoint byte for byte, the sync API, a copy that outlives its source's delete, and the
refusals that send nothing. The graph interrupted, resumed in another process and replayed is in
tests/e2e/client_venv/with_langgraph_checkpoint.py (a venv with only the client and LangGraph). ADR 0039.
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import Capability
from langgraph.checkpoint.conformance.test_utils import generate_checkpoint, generate_config, generate_metadata
from test_local_stack import ROOT, RunningStack, stack  # noqa: F401  (stack: the module's local stack fixture)

from offprompt_client import OffpromptClient, OffpromptClientError
from offprompt_client.langgraph import OffpromptSaver

pytestmark = pytest.mark.slow

TENANT = "langgraph-checkpoints"
#: What the saver offers (ADR 0039): everything but delete_for_runs (which needs an index by run).
OFFERED = {c.value for c in Capability} - {Capability.DELETE_FOR_RUNS.value}


@pytest.fixture
def saver(stack: RunningStack) -> OffpromptSaver:  # noqa: F811
    return OffpromptSaver(client=OffpromptClient(stack.url, tenant=TENANT, timeout=120))


def test_langgraphs_conformance_suite_passes_for_every_capability_offered(saver: OffpromptSaver) -> None:
    @checkpointer_test(name="OffpromptSaver")
    async def offprompt() -> AsyncGenerator[BaseCheckpointSaver, None]:
        yield saver

    report = asyncio.run(validate(offprompt))
    results = dict(report.results)
    detected = {name for name, result in results.items() if result.detected}
    assert detected == OFFERED, results
    failures = {name: r.failures for name, r in results.items() if r.detected and not r.passed}
    assert not failures, failures
    assert all(results[name].tests_passed > 0 and results[name].tests_failed == 0 for name in OFFERED)


def test_a_2_mb_checkpoint_round_trips_byte_for_byte(saver: OffpromptSaver) -> None:
    payload = os.urandom(2 * 1024 * 1024)
    config = generate_config(str(uuid.uuid4()))
    checkpoint = generate_checkpoint(channel_values={"blob": payload, "note": "big"})
    checkpoint["channel_versions"] = {"blob": 1, "note": 1}
    stored = saver.put(config, checkpoint, generate_metadata(step=0), {"blob": 1, "note": 1})

    found = saver.get_tuple(stored)
    assert found is not None
    assert found.checkpoint["channel_values"]["blob"] == payload
    assert found.checkpoint == {**checkpoint, "channel_values": {"blob": payload, "note": "big"}}
    # What the service answers is exactly what the serializer wrote (no re-encoding on the way).
    sent = saver.serde.dumps_typed(checkpoint)
    raw = saver.client.get_checkpoint(config["configurable"]["thread_id"], checkpoint_id=checkpoint["id"])
    assert raw["checkpoint"]["type"] == sent[0]
    assert base64.b64decode(raw["checkpoint"]["data"]) == sent[1]
    listed = list(saver.list(config))
    assert [t.checkpoint["id"] for t in listed] == [checkpoint["id"]]
    assert listed[0].checkpoint["channel_values"]["blob"] == payload


def test_the_sync_api_lists_newest_first_with_filter_before_and_limit(saver: OffpromptSaver) -> None:
    thread = str(uuid.uuid4())
    stored: list[Any] = []
    parent: Any = None
    for step in range(5):
        config = generate_config(thread)
        if parent:
            config["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
        parent = saver.put(
            config, generate_checkpoint(), generate_metadata(step=step, source="loop" if step % 2 else "input"), {}
        )
        stored.append(parent["configurable"]["checkpoint_id"])
    newest_first = list(reversed(stored))
    assert [t.checkpoint["id"] for t in saver.list(generate_config(thread))] == newest_first
    assert [t.checkpoint["id"] for t in saver.list(generate_config(thread), limit=2)] == newest_first[:2]
    before = generate_config(thread, checkpoint_id=stored[3])
    assert [t.checkpoint["id"] for t in saver.list(generate_config(thread), before=before)] == newest_first[2:]
    loops = list(saver.list(generate_config(thread), filter={"source": "loop"}, limit=1))
    assert [t.checkpoint["id"] for t in loops] == [stored[3]]  # limit counts matches, not checkpoints read
    latest = saver.get_tuple(generate_config(thread))
    assert latest is not None and latest.checkpoint["id"] == stored[-1]
    assert latest.parent_config is not None
    assert latest.parent_config["configurable"]["checkpoint_id"] == stored[-2]


def test_a_copy_reads_its_source_after_the_source_is_deleted(saver: OffpromptSaver) -> None:
    source, copy = str(uuid.uuid4()), str(uuid.uuid4())
    config = generate_config(source)
    stored = saver.put(
        config, generate_checkpoint(channel_values={"k": "v"}, channel_versions={"k": 1}), generate_metadata(), {"k": 1}
    )
    saver.put_writes(stored, [("k", "pending")], "task-1")
    saver.copy_thread(source, copy)
    saver.delete_thread(source)
    assert saver.get_tuple(generate_config(source)) is None
    found = saver.get_tuple(generate_config(copy))
    assert found is not None and found.checkpoint["channel_values"] == {"k": "v"}
    assert found.pending_writes == [("task-1", "k", "pending")]
    with pytest.raises(OffpromptClientError) as refused:
        saver.copy_thread(copy, copy)  # a thread that has checkpoints is never a copy's target
    assert refused.value.status == 409 and refused.value.code == "checkpoint_thread_exists"
    saver.delete_thread(copy)
    assert saver.get_tuple(generate_config(copy)) is None


def test_what_the_saver_refuses_sends_nothing(saver: OffpromptSaver, stack: RunningStack) -> None:  # noqa: F811
    thread = str(uuid.uuid4())
    with pytest.raises(TypeError, match="JSON"):
        saver.put(generate_config(thread), generate_checkpoint(), {"source": "loop", "step": 0, "x": {1, 2}}, {})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(ValueError, match="thread_id"):
        list(saver.list(None))
    with pytest.raises(ValueError, match="strategy"):
        saver.prune([thread], strategy="keep_oldest")
    assert saver.get_tuple(generate_config(thread)) is None
    assert list(saver.list(generate_config(thread))) == []


def test_another_tenant_reaches_none_of_it(saver: OffpromptSaver, stack: RunningStack) -> None:  # noqa: F811
    thread = str(uuid.uuid4())
    stored = saver.put(generate_config(thread), generate_checkpoint(), generate_metadata(), {})
    other = OffpromptSaver(client=OffpromptClient(stack.url, tenant="langgraph-other", timeout=120))
    assert other.get_tuple(stored) is None
    assert other.get_tuple(generate_config(thread)) is None
    assert list(other.list(generate_config(thread))) == []
    other.delete_thread(thread)  # nothing of the first tenant's goes
    other.copy_thread(thread, str(uuid.uuid4()))  # a source it cannot see: nothing copied
    assert saver.get_tuple(stored) is not None


def test_the_readme_sample_runs_as_written(stack: RunningStack, tmp_path: Any) -> None:  # noqa: F811
    readme = (ROOT / "docs" / "langgraph.md").read_text(encoding="utf-8")
    section = readme[readme.index("## LangGraph checkpointer") :]
    sample = section[section.index("```python\n") + len("```python\n") : section.index("\n```\n")]
    assert "OffpromptSaver(" in sample and "compile(checkpointer=saver)" in sample
    script = tmp_path / "sample.py"
    script.write_text(sample.replace("http://127.0.0.1:3000", stack.url), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFPROMPT_")}
    for _ in range(2):  # and again: it starts clean
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines() == ["Approve the refund?", "True", "[(), ('approve',), ('__start__',)]"]
