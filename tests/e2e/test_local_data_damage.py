"""`make dev` on damaged local data: it refuses to start and changes nothing; `--salvage` (`make dev SALVAGE=1`)
keeps a copy, starts with what is intact, and leaves a state a user can continue from — a namespace delete cut
in half by the dropped records is finished by repeating it (docs/adr/0029-local-data-integrity.md).

The stacks run as a user runs them (subprocesses), on the session's OpenSearch node with their own index.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import Any

import pytest
from stack_process import StackProcess, call

pytestmark = pytest.mark.slow
TENANT = "damage"
MEMORY = "TaskMemory"
NAMESPACE = "notes"
NS_PATH = f"/memories/{MEMORY}/namespaces/{NAMESPACE}"


def digests(directory: Path) -> dict[str, str]:
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def store_text(url: str, value: str) -> None:
    artifact = {"type": "TextArtifact", "name": NAMESPACE, "value": value}
    status, body = call(
        url, "POST", f"/memories/{MEMORY}/outputs", {"tool": "T", "activity": "a", "artifact": artifact}, tenant=TENANT
    )
    assert status == 200, body


def loaded_values(url: str) -> tuple[int, Any]:
    status, body = call(url, "GET", f"{NS_PATH}/artifacts", tenant=TENANT)
    return status, [artifact["value"] for artifact in body["value"]] if status == 200 else body


def batch_delete_frame(journal: Path) -> tuple[int, int, int]:
    """(sequence, offset, last sequence) of the frame that deleted the namespace's batches."""
    from offprompt_local.substrate.store import iter_frames

    frames = list(iter_frames(journal))
    for sequence, offset, record in frames:
        if record[0] == "items" and any(
            item[5] and item[5]["S"].startswith(f"BATCH#{NAMESPACE}#") and item[6] is None for item in record[1]
        ):
            return sequence, offset, frames[-1][0]
    raise AssertionError("no frame deletes the namespace's batches")


def test_damaged_data_is_refused_and_salvage_leaves_a_state_to_continue_from(
    tmp_path: Path, opensearch_url: str
) -> None:
    data, index = tmp_path / "data", f"offprompt-damage-{uuid.uuid4().hex[:12]}"
    options: dict[str, Any] = {"opensearch_url": opensearch_url, "index": index}
    writer = StackProcess(data, **options)
    url = writer.wait_ready()
    store_text(url, "The capital of France is Paris.")
    assert call(url, "DELETE", NS_PATH, tenant=TENANT)[0] == 204
    status, _ = call(
        url,
        "POST",
        "/threads/after/runs",
        {"input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}},
        tenant=TENANT,
    )
    assert status in (200, 201)
    writer.kill()  # kill -9: the journal keeps every acknowledged write

    journal = data / "moto" / "journal.bin"
    sequence, offset, last = batch_delete_frame(journal)
    damaged = bytearray(journal.read_bytes())
    damaged[offset + 40] ^= 0x08  # a bit in the payload of the frame that deleted the batches
    journal.write_bytes(bytes(damaged))
    before = digests(data / "moto")

    output = StackProcess(data, **options).refused()
    assert "[stack] error: the local data is damaged" in output, output
    assert f"{journal} is damaged: frame {sequence} at byte offset {offset}" in output, output
    assert "make dev SALVAGE=1" in output and "make dev FRESH=1" in output, output
    assert digests(data / "moto") == before, "a refused start changed the data directory"

    dropped = last - sequence + 1
    with StackProcess(data, "--salvage", **options) as salvaged:
        url = salvaged.wait_ready()
        salvaged.wait_for(rf"SALVAGE: copies of the damaged files are in \S+/moto/damaged-\S+; dropped {dropped} ", 1)
        salvaged.wait_for(rf"a delete was cut off; finish it by repeating it: DELETE {NS_PATH} as tenant 'damage'", 1)
        assert call(url, "GET", NS_PATH, tenant=TENANT)[0] == 404  # marked deleting: gone for readers
        assert call(url, "GET", "/threads/after", tenant=TENANT)[0] == 404  # written after the damage: dropped

        assert call(url, "DELETE", NS_PATH, tenant=TENANT)[0] == 204  # repeating the delete finishes it
        assert loaded_values(url) == (200, [])
        store_text(url, "A new start.")
        assert loaded_values(url) == (200, ["A new start."])
    copies = [path for path in (data / "moto").iterdir() if path.name.startswith("damaged-")]
    assert len(copies) == 1 and (copies[0] / "journal.bin").read_bytes() == bytes(damaged)

    with StackProcess(data, **options) as plain:  # the salvaged directory starts without help, data kept
        url = plain.wait_ready()
        assert not [line for line in plain.lines if "SALVAGE" in line]
        assert loaded_values(url) == (200, ["A new start."])


def namespace_mark_frame(journal: Path, namespace: str) -> tuple[int, int, int]:
    """(sequence, offset, last sequence) of the frame that marked the namespace `deleting`: its delete's first step."""
    from offprompt_local.substrate.store import iter_frames

    frames = list(iter_frames(journal))
    for sequence, offset, record in frames:
        if record[0] == "items" and any(
            item[5] and item[5]["S"] == f"NS#{namespace}" and item[6] and "deleting" in item[6] for item in record[1]
        ):
            return sequence, offset, frames[-1][0]
    raise AssertionError(f"no frame marks namespace {namespace!r} deleting")


def test_salvage_reconciles_a_namespace_whose_text_it_rolled_back_and_the_rest_loads(
    tmp_path: Path, opensearch_url: str
) -> None:
    """Issue 30, item 7: the whole delete of a text namespace is in the dropped records, so the namespace record and
    its batches are back while OpenSearch (not rolled back) no longer holds its text. It must not answer 503 on
    every load: salvage deletes what it cannot restore and says so; the other namespaces load as before."""
    data, index = tmp_path / "data", f"offprompt-damage-{uuid.uuid4().hex[:12]}"
    options: dict[str, Any] = {"opensearch_url": opensearch_url, "index": index}
    writer = StackProcess(data, **options)
    url = writer.wait_ready()
    for namespace, text in (("kept", "Kept text."), ("lost", "Lost text.")):
        artifact = {"type": "TextArtifact", "name": namespace, "value": text}
        body = {"tool": "T", "activity": "a", "artifact": artifact}
        assert call(url, "POST", f"/memories/{MEMORY}/outputs", body, tenant=TENANT)[0] == 200
    assert call(url, "DELETE", f"/memories/{MEMORY}/namespaces/lost", tenant=TENANT)[0] == 204
    writer.kill()

    journal = data / "moto" / "journal.bin"
    _sequence, offset, _last = namespace_mark_frame(journal, "lost")
    damaged = bytearray(journal.read_bytes())
    damaged[offset + 40] ^= 0x08  # the delete's first step: every step of it is dropped
    journal.write_bytes(bytes(damaged))

    with StackProcess(data, "--salvage", **options) as salvaged:
        url = salvaged.wait_ready()
        salvaged.wait_for(r"SALVAGE: copies of the damaged files are in ", 1)
        salvaged.wait_for(
            rf"SALVAGE: namespace 'lost' of memory '{MEMORY}' \(tenant '{TENANT}'\) lost its text .*deleted", 1
        )
        for namespace, expected in (("lost", []), ("kept", ["Kept text."])):
            status, body = call(url, "GET", f"/memories/{MEMORY}/namespaces/{namespace}/artifacts", tenant=TENANT)
            assert status == 200, (namespace, body)
            assert [artifact["value"] for artifact in body["value"]] == expected
        artifact = {"type": "TextArtifact", "name": "lost", "value": "Stored anew."}
        body = {"tool": "T", "activity": "a", "artifact": artifact}
        assert call(url, "POST", f"/memories/{MEMORY}/outputs", body, tenant=TENANT)[0] == 200
        status, body = call(url, "GET", f"/memories/{MEMORY}/namespaces/lost/artifacts", tenant=TENANT)
        assert status == 200 and [a["value"] for a in body["value"]] == ["Stored anew."], body
