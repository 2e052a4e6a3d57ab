"""The whole local stack (`python -m offprompt_local.stack`) as a user runs it, driven over HTTP with the client.

One stack per module, as a subprocess on a free port, on the session's shared OpenSearch node (OPENSEARCH_URL)
with its own index, so only one JVM runs per test session. Teardown sends SIGTERM and checks that the stack and
every process it started are gone.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import stack_process
from griptape.artifacts import BlobArtifact, InfoArtifact, ListArtifact, TextArtifact
from griptape.common import PromptStack
from stack_process import StackProcess

from offprompt.ports import ThreadCut
from offprompt_client import OffpromptClient, OffpromptClientError

ROOT = Path(__file__).resolve().parents[2]
# As stack_process.wait_ready (240): at load 10-16 on 2 cores a boot took over 120 s, and 23 e2e tests errored in setup.
BOOT_TIMEOUT_S = 240
pytestmark = pytest.mark.slow


@dataclass
class RunningStack:
    process: subprocess.Popen[str]
    url: str
    index: str
    lines: list[str] = field(default_factory=list)

    def output(self) -> str:
        return "\n".join(self.lines[-80:])


def _children(pid: int) -> set[int]:
    """Every descendant of `pid` (from /proc), so teardown can prove none survives."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == parent:
                child = int(stat.parent.name)
                if child not in found:
                    found.add(child)
                    frontier.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


#: The stacks started here keep their data in a throwaway directory, never in the repository's `.offprompt/`
#: (a developer's `make dev` holds that one).
E2E_DATA_DIR = Path(tempfile.gettempdir()) / f"offprompt-e2e-data-{os.getpid()}"


def stack_env(opensearch_url: str, index: str) -> dict[str, str]:
    return stack_process.stack_env(E2E_DATA_DIR, opensearch_url, index)


@pytest.fixture(scope="module")
def stack(opensearch_url: str) -> Iterator[RunningStack]:
    with running_stack(opensearch_url) as running:
        yield running


@contextlib.contextmanager
def running_stack(opensearch_url: str, **environment: str) -> Iterator[RunningStack]:
    """The stack as a subprocess on a free port with its own index (and `environment` on top of `stack_env`);
    stopped with SIGTERM on exit, checking that it and every process it started are gone."""
    index = f"offprompt-e2e-{uuid.uuid4().hex[:12]}"
    started = time.monotonic()
    process = StackProcess(E2E_DATA_DIR, "--fresh", opensearch_url=opensearch_url, index=index, env=environment)
    try:
        url = process.wait_ready(BOOT_TIMEOUT_S)
    except BaseException:
        process.kill()
        raise
    running = RunningStack(process.process, url, index, process.lines)
    print(f"\nlocal stack booted in {time.monotonic() - started:.1f}s at {running.url}")
    try:
        yield running
    finally:
        descendants = _children(process.process.pid)
        code = process.stop(timeout=60)
        shutil.rmtree(E2E_DATA_DIR, ignore_errors=True)
        with contextlib.suppress(OSError):
            urllib.request.urlopen(urllib.request.Request(f"{opensearch_url}/{index}", method="DELETE"), timeout=30)
        survivors = [pid for pid in descendants if _alive(pid)]
        assert code == 0, f"the stack exited with {code}:\n{running.output()}"
        lines = list(running.lines)
        assert "[stack] stopped" in lines, f"no clean stop:\n{running.output()}"
        after = lines[len(lines) - lines[::-1].index("[stack] stopped") :]
        went_on = [line for line in after if line != "<eof>"]
        assert not went_on, "the stack went on after it stopped:\n" + "\n".join(went_on)
        assert not survivors, f"processes left behind: {survivors}"
        # A function that raised while the tests ran (a 500 a test tolerated, a poller's failed batch) is shown
        # here with where it raised, not lost with the stack's output (how ci9's evidence was lost, ADR 0066).
        found = process.tracebacks()
        assert not found, "the stack printed tracebacks during the run:\n" + "\n---\n".join(found)


@pytest.fixture(scope="module")
def alice(stack: RunningStack) -> OffpromptClient:
    return OffpromptClient(stack.url, tenant="alice", timeout=120)


@pytest.fixture(scope="module")
def bob(stack: RunningStack) -> OffpromptClient:
    return OffpromptClient(stack.url, tenant="bob", timeout=120)


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def raises(status: int, code: str | None = None) -> pytest.RaisesExc[OffpromptClientError]:
    return pytest.raises(OffpromptClientError, check=lambda e: e.status == status and (code is None or e.code == code))


def search_until_found(client: OffpromptClient, memory: str, namespace: str, query: str, **options: Any) -> Any:
    """Search until there are hits (or 15 s passed): search is near-real-time, load is real-time.

    A store's text becomes searchable at the index's next refresh (1 s by default), so an immediate search
    may answer `{"hits": []}`; the demo waits the same way (offprompt_local.demo.search_until_found).
    """
    deadline = time.monotonic() + 15
    while True:
        answer = client.search(memory, namespace, query, **options)
        if answer["hits"] or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call answers, comparable across names: ("ok", body) or ("error", (status, code))."""
    try:
        return "ok", call()
    except OffpromptClientError as exc:
        return "error", (exc.status, exc.code)


# --------------------------------------------------------------------------------------------- threads


def test_conversation_routes(alice: OffpromptClient) -> None:
    thread = uid("thread with spaces ü")  # encoded in the URL, decoded by the gateway
    first = None
    for n in range(1, 6):
        added = alice.add_run(thread, input=f"question {n}", output=f"answer {n}", id=f"run-{n}")
        assert added["seq"] == n
        assert added["run"]["id"] == f"run-{n}"
        first = first or added["run"]
    assert alice.add_run(thread, first)["seq"] == 1  # a retry with the same id and content is idempotent
    with raises(409):
        alice.add_run(thread, input="something else", output="answer 1", id="run-1")

    stack = alice.prompt_stack(thread, system="Be brief.", input="question 6")
    assert isinstance(stack, PromptStack)
    assert [m.role for m in stack.messages] == ["system"] + ["user", "assistant"] * 5 + ["user"]
    assert stack.messages[1].to_text() == "question 1" and stack.messages[-1].to_text() == "question 6"
    tight = alice.prompt_stack(thread, input="question 6", max_tokens=40, raw=True)
    assert 1 <= len(tight["messages"]) < 11
    assert len(alice.prompt_stack(thread, last_n=2, raw=True)["messages"]) == 4
    indexed = alice.prompt_stack(thread, system="S", last_n=1, memory_index=0)
    assert [m.role for m in indexed.messages] == ["user", "assistant", "system"]

    info = alice.get_thread(thread)
    assert info["thread_id"] == thread and info["stored_runs"] == 5 and info["memory_type"] == "buffer"
    configured = alice.configure_thread(thread, max_runs=3, retention_days=30)
    assert configured["max_runs"] == 3 and configured["retention_days"] == 30
    with raises(422):
        alice.configure_thread(thread, max_runs=0)

    page = alice.list_runs(thread, limit=2)
    assert len(page["runs"]) == 2 and page["next_cursor"]
    everything = alice.all_runs(thread, page_size=1)
    assert [r["run"]["id"] for r in everything] == ["run-3", "run-4", "run-5"]  # max_runs keeps the newest 3
    newest = alice.all_runs(thread, page_size=2, order="desc")
    assert [r["seq"] for r in newest] == [5, 4, 3]

    assert alice.delete_thread(thread) is None  # 204
    with raises(404, "not_found"):
        alice.get_thread(thread)
    assert alice.list_runs(thread)["runs"] == []
    alice.delete_thread(thread)  # idempotent


def test_bad_requests_are_4xx_json(alice: OffpromptClient) -> None:
    with raises(400):
        alice.request("POST", "/threads/t/runs", data=b"{not json", headers={"Content-Type": "application/json"})
    with raises(400):
        alice.request("POST", "/threads/t/runs", data=b"", headers={"Content-Type": "application/json"})
    with raises(400):
        alice.add_run("t", {"input": {"type": "NoSuchArtifact"}, "output": {"type": "TextArtifact", "value": ""}})
    with raises(422):
        alice.search("m", "n", "q", top_k=0)


# ---------------------------------------------------------------------------------------- task memory


def test_text_output_off_prompt_load_search_and_delete(alice: OffpromptClient) -> None:
    memory = uid("Memory")
    namespace = "call_9 output ü"  # Griptape namespaces are artifact names; any printable unicode
    rng = random.Random(3)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    text = " ".join(rng.choice(words) for _ in range(60_000)) + " The secret word is zanzibar."
    artifact = TextArtifact(text, name=namespace, meta={"source": "e2e"})
    action = {"tag": "call_9", "name": "WebScraper", "path": "get_content", "input": {"values": {"url": "u"}}}

    reference = alice.process_output(memory, "WebScraper", "get_content", artifact, actions=[action], thought="T")
    assert isinstance(reference, InfoArtifact)
    assert reference.value == (
        f'Output of "WebScraper.get_content" was stored in memory with memory_name "{memory}" '
        f'and artifact_namespace "{namespace}"'
    )
    loaded = alice.load_artifacts(memory, namespace)
    assert isinstance(loaded, ListArtifact) and len(loaded.value) == 1
    assert loaded[0].to_dict() == artifact.to_dict()  # byte-exact, same id, name and meta

    hits = search_until_found(alice, memory, namespace, "secret word zanzibar", top_k=2, mode="bm25")["hits"]
    assert hits and "zanzibar" in hits[0]["text"] and hits[0]["artifact_id"] == artifact.id

    record = alice.get_namespace(memory, namespace)
    assert record["storage"] == "text" and record["tool"] == "WebScraper" and record["artifact_count"] == 1
    assert [ns["namespace"] for ns in alice.iter_namespaces(memory, page_size=1)] == [namespace]
    entries = alice.meta(memory)["entries"]
    assert len(entries) == 1 and entries[0]["answer"] == reference.value and entries[0]["thought"] == "T"

    # Griptape's answers that store nothing, and the storage-kind conflict.
    empty = alice.process_output(memory, "T", "a", TextArtifact("   ", name="blank"))
    assert isinstance(empty, InfoArtifact) and empty.value == "tool output is empty"
    passthrough = InfoArtifact("just info", name="x")
    assert alice.process_output(memory, "T", "a", passthrough).to_dict() == passthrough.to_dict()
    with raises(409):
        alice.process_output(memory, "T", "a", BlobArtifact(b"\x00", name=namespace))

    assert alice.delete_namespace(memory, namespace) is None
    with raises(404):
        alice.get_namespace(memory, namespace)
    assert alice.load_artifacts(memory, namespace).value == []


def test_knn_and_hybrid_search_by_meaning(stack: RunningStack, alice: OffpromptClient) -> None:
    # "car" shares no word with the automobile note: only a search by meaning finds it.
    # Task memory embeds with wordllama (zero-padded), conversation search with MiniLM: the stand-ins for Titan.
    line = next((x.strip() for x in stack.lines if x.strip().startswith("embeddings  ")), "")
    assert line.startswith("embeddings  conversation search: all-MiniLM-L6-v2"), stack.output()
    assert "task memory and records: wordllama" in line, line
    memory, namespace = uid("Notes"), "notes"
    notes = [
        "A recipe for banana bread with walnuts.",
        "The automobile was parked in the garage overnight.",
        "Quarterly tax filing deadlines for small businesses.",
    ]
    alice.process_output(memory, "Notes", "save", ListArtifact([TextArtifact(n) for n in notes], name=namespace))
    for mode in ("knn", "hybrid"):
        hits = search_until_found(alice, memory, namespace, "car", top_k=3, mode=mode)["hits"]
        assert hits and hits[0]["text"] == notes[1], (mode, hits)
    assert alice.search(memory, namespace, "car", mode="bm25")["hits"] == []


def test_blob_upload_and_large_load_via_blob_downloads(alice: OffpromptClient) -> None:
    memory = uid("Blobs")
    small = bytes(range(256)) * 4
    reference = alice.process_upload(memory, "Camera", "shoot", small, artifact={"type": "BlobArtifact", "name": "pic"})
    assert isinstance(reference, InfoArtifact) and '"pic"' in reference.value
    assert alice.load_artifacts(memory, "pic")[0].value == small

    # A blob namespace whose ListArtifact JSON is past Lambda's response limit: 200 BlobDownloads, a presigned GET
    # of each stored object (nothing rebuilt; the client fetches them and rebuilds the ListArtifact).
    big = random.Random(5).randbytes(4_500_000)
    alice.process_upload(memory, "Camera", "shoot", big, artifact={"type": "BlobArtifact", "name": "big"})
    path = f"/memories/{memory}/namespaces/big/artifacts"
    response = alice.request("GET", path)
    assert response.status == 200
    listing = response.json()
    assert listing["type"] == "BlobDownloads" and listing["size"] == len(big)
    [entry] = listing["artifacts"]
    assert entry["size"] == len(big) and "value" not in entry["artifact"]
    assert urllib.request.urlopen(entry["download_url"], timeout=30).read() == big
    loaded = alice.load_artifacts(memory, "big")
    assert isinstance(loaded[0], BlobArtifact) and loaded[0].value == big
    raw = alice.load_artifacts(memory, "big", raw=True)
    assert base64.b64decode(raw["value"][0]["value"]) == big

    ticket = alice.create_upload(memory)
    assert set(ticket) >= {"upload_id", "url", "headers", "expires_in", "s3_uri"}
    with raises(400):  # nothing was uploaded for this ticket
        alice.process_output(
            memory, "T", "a", {"type": "BlobArtifact", "name": "n"}, value_from={"upload_id": ticket["upload_id"]}
        )


# -------------------------------------------------------------------------------------------- tenancy


def test_tenants_cannot_see_each_other(alice: OffpromptClient, bob: OffpromptClient) -> None:
    """Another tenant's thread or namespace is indistinguishable from one that does not exist: for every read
    and delete, bob gets for alice's names exactly what he gets for names nobody has (same status and code, or
    the same body)."""
    thread, memory = uid("shared-name"), uid("SharedMemory")
    alice.add_run(thread, input="alice's secret", output="ok")
    alice.process_output(memory, "T", "a", TextArtifact("alice's page about kumquats", name="ns"))
    # alice's text is searchable (so an empty or 404 answer for bob below is isolation, not refresh lag)
    assert search_until_found(alice, memory, "ns", "kumquats")["hits"]

    nobody_thread, nobody_memory = uid("shared-name"), uid("SharedMemory")

    def conversation(t: str) -> list[tuple[str, str]]:  # artifact ids are fresh per call: compare roles + text
        messages = bob.prompt_stack(t, input="hi", raw=True)["messages"]
        return [(m["role"], m["content"][0]["artifact"]["value"]) for m in messages]

    reads: dict[str, Callable[[str, str], Any]] = {
        "get_thread": lambda t, m: bob.get_thread(t),
        "list_runs": lambda t, m: bob.list_runs(t),
        "prompt_stack": lambda t, m: conversation(t),
        "list_namespaces": lambda t, m: bob.list_namespaces(m),
        "get_namespace": lambda t, m: bob.get_namespace(m, "ns"),
        "load_artifacts": lambda t, m: bob.load_artifacts(m, "ns", raw=True)["value"],
        "meta": lambda t, m: bob.meta(m),
        "search": lambda t, m: bob.search(m, "ns", "kumquats"),
    }
    for name, read in reads.items():
        theirs = outcome(functools.partial(read, thread, memory))
        nobodys = outcome(functools.partial(read, nobody_thread, nobody_memory))
        assert theirs == nobodys, f"{name}: alice's names answer {theirs}, names nobody has answer {nobodys}"
        assert "alice" not in json.dumps(theirs) and "kumquats" not in json.dumps(theirs), (name, theirs)
    # The rule for unknown names (README): records answer 404, contents (runs, artifacts, hits) are empty.
    assert outcome(lambda: bob.get_thread(thread)) == ("error", (404, "not_found"))
    assert outcome(lambda: bob.get_namespace(memory, "ns")) == ("error", (404, "not_found"))
    assert bob.list_runs(thread)["runs"] == [] and bob.load_artifacts(memory, "ns").value == []
    assert bob.search(memory, "ns", "kumquats")["hits"] == []

    # Bob writing or deleting the same names changes nothing for Alice; his delete answers like a missing one.
    bob.add_run(thread, input="bob", output="bob")
    theirs = outcome(lambda: bob.delete_namespace(memory, "ns"))
    assert theirs == outcome(lambda: bob.delete_namespace(nobody_memory, "ns")), theirs
    bob.delete_thread(thread)
    assert alice.get_thread(thread)["last_seq"] == 1
    assert alice.load_artifacts(memory, "ns")[0].value == "alice's page about kumquats"
    assert alice.search(memory, "ns", "kumquats")["hits"][0]["text"] == "alice's page about kumquats"
    alice.delete_thread(thread)
    alice.delete_namespace(memory, "ns")


# -------------------------------------------------------------------------------------- summary memory


def test_summary_memory_is_summarized_locally(stack: RunningStack, alice: OffpromptClient) -> None:
    """`make dev` installs the labelled local summarizer (offprompt.composition.conversation hook), so a summary
    thread gets a summary inline, with no Bedrock."""
    assert any(line.startswith("  summaries   local extractive summarizer") for line in stack.lines)
    thread = uid("summary")
    configured = alice.configure_thread(thread, memory_type="summary", offset=1)
    assert configured["memory_type"] == "summary" and configured["offset"] == 1
    for n in range(1, 4):
        alice.add_run(thread, input=f"Question {n}. Filler words.", output=f"Answer {n}. More filler.")

    summary = alice.get_thread(thread)["summary"]
    assert summary is not None, "no summary after 3 runs with offset 1"
    assert summary["through_seq"] == 2  # every run but the newest `offset`
    text = summary["text"]
    assert text.startswith("[local extractive summary, not a model] ") and text.count("not a model") == 1
    for part in ("Question 1", "Answer 1", "Question 2", "Answer 2"):
        assert part in text, text
    assert "Question 3" not in text

    stack_json = alice.prompt_stack(thread, input="next", raw=True)["messages"]
    texts = [m["content"][0]["artifact"]["value"] for m in stack_json]
    assert text in texts[0]  # Griptape's summary message first, then the unsummarized run, then the input
    assert texts[1:] == ["Question 3. Filler words.", "Answer 3. More filler.", "next"]
    assert [r["summarized"] for r in alice.all_runs(thread)] == [True, True, False]
    alice.delete_thread(thread)


# ---------------------------------------------------------------------------------------- the gateway


def test_unknown_route_is_404_and_a_known_path_with_another_method_405(alice: OffpromptClient) -> None:
    for method, path in [("GET", "/nope"), ("POST", "/threads/t/nope"), ("GET", "/memories/m")]:
        with raises(404, "route_not_found"):
            alice.request(method, path)
    for method, path, allow in [
        ("PATCH", "/threads/t", "DELETE, GET, PUT"),
        ("POST", "/memories/m/namespaces", "GET"),
        ("POST", "/threads", "GET"),  # the tenant's listing (ADR 0038)
    ]:
        with raises(405, "method_not_allowed"):
            alice.request(method, path)
        request = urllib.request.Request(alice.base_url + path, method=method, headers=dict(alice.headers))
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=30)
        assert caught.value.code == 405 and caught.value.headers["Allow"] == allow


def test_body_over_10_mb_is_413(alice: OffpromptClient) -> None:
    with raises(413, "payload_too_large"):
        alice.request("POST", "/threads/t/runs", data=b"x" * (10 * 1024 * 1024 + 1))


def test_demo_script_runs_clean(stack: RunningStack) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "offprompt_local.demo", "--url", stack.url, "--tenant", uid("demo")],
        env=stack_env("unused", stack.index),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("demo OK"), result.stdout
    # the records part (step 8) ran: the replaced fact's current and old versions, its search and its history
    assert last.endswith("a fact replaced: current v2, v1 as_of its time, search finds v2 only, history v2 v1"), last
    assert "current:        v2 'Ada is vegetarian every day now.'" in result.stdout, result.stdout
    assert re.search(r"as_of \S+: v1 'Ada is vegetarian on Mondays.'", result.stdout), result.stdout
    assert "search 'vegetarian': v2 only" in result.stdout and "history v1:" in result.stdout, result.stdout


def test_port_taken_fails_fast_and_clearly(stack: RunningStack, opensearch_url: str) -> None:
    port = stack.url.rsplit(":", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "offprompt_local.stack", "--port", port],
        env=stack_env(opensearch_url, stack.index),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert f"port {port} on 127.0.0.1 is already in use" in result.stderr


def test_concurrent_clients_each_get_their_own_answers(stack: RunningStack) -> None:
    """Eight clients at once on the same functions: the dev server gives concurrent requests separate execution
    environments (handler module instances), and no request may see another's event, tenant or data."""
    errors: list[BaseException] = []

    def client_session(n: int) -> None:
        try:
            client = OffpromptClient(stack.url, tenant=f"concurrent-{n}", timeout=120)
            thread, memory, namespace = uid(f"conc-{n}"), "ConcurrentMemory", f"ns-{n}"
            for k in range(3):
                client.add_run(thread, input=f"client {n} question {k}", output=f"client {n} answer {k}", id=f"r{k}")
            stored = client.process_output(memory, "T", "a", TextArtifact(f"output of client {n}", name=namespace))
            assert namespace in stored.to_text()
            loaded = client.load_artifacts(memory, namespace)
            assert [a.to_text() for a in loaded.value] == [f"output of client {n}"]
            runs = client.all_runs(thread)
            assert [r["run"]["input"]["value"] for r in runs] == [f"client {n} question {k}" for k in range(3)]
            assert [ns["namespace"] for ns in client.list_namespaces(memory)["namespaces"]] == [namespace]
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    workers = [threading.Thread(target=client_session, args=(n,)) for n in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert not errors, errors


def test_requests_are_fast(alice: OffpromptClient) -> None:
    """Per-request latency over the dev server (reported, loosely bounded: the machine is noisy)."""
    thread = uid("latency")
    alice.add_run(thread, input="warm", output="up")
    timings: dict[str, list[float]] = {"add_run": [], "prompt_stack": [], "list_runs": []}
    for n in range(20):
        for name, call in (
            ("add_run", lambda n=n: alice.add_run(thread, input=f"q{n}", output=f"a{n}")),
            ("prompt_stack", lambda: alice.prompt_stack(thread, input="q", max_tokens=500, raw=True)),
            ("list_runs", lambda: alice.list_runs(thread, limit=10)),
        ):
            started = time.perf_counter()
            call()
            timings[name].append((time.perf_counter() - started) * 1000)
    medians = {name: sorted(values)[len(values) // 2] for name, values in timings.items()}
    print("\nmedian latency over the dev server (ms):", {k: round(v, 1) for k, v in medians.items()})
    assert all(v < 2000 for v in medians.values())
    alice.delete_thread(thread)


def local_events(stack: RunningStack, *, tenant: str, want: Callable[[list[dict[str, Any]]], bool]) -> list[Any]:
    """`GET /local/events` (the dev server's local-only view of the memory events' sink) of `tenant`, polled until
    `want` holds (the stack's poller reads the stream every 0.2 s) or 30 s passed."""
    deadline = time.monotonic() + 30
    while True:
        with urllib.request.urlopen(f"{stack.url}/local/events", timeout=30) as response:
            body = json.loads(response.read())
        mine = [e for e in body["events"] if e["tenant"] == tenant]
        if want(mine) or time.monotonic() > deadline:
            return mine
        time.sleep(0.2)


def test_memory_events_reach_the_local_sink(stack: RunningStack, alice: OffpromptClient, bob: OffpromptClient) -> None:
    """docs/adr/0036: a run added and an output stored are events in the local sink, with the tenant the request
    had, identifiers and sizes only (no value), and none of them under another tenant."""
    thread, memory = uid("events-thread"), uid("EventsMemory")
    alice.add_run(thread, input="my name is Ada", output="Hello Ada, the secret is zanzibar", id="run-events")
    artifact = TextArtifact("the stored page says zanzibar", name="page")
    try:
        alice.process_output(memory, "WebScraper", "get_content", artifact)
    except OffpromptClientError as exc:
        raise AssertionError("\n".join(stack.lines[-60:])) from exc

    # Other tests on this module's stack add runs, store outputs and delete threads for alice too: wait for, and
    # look at, this test's own events only.
    def ours(event: dict[str, Any]) -> bool:
        detail = event["detail"]
        return (event["type"] == "run.added" and detail.get("thread_id") == thread) or (
            event["type"] == "output.stored" and detail.get("memory") == memory
        )

    def both(events: list[dict[str, Any]]) -> bool:
        return {"run.added", "output.stored"} <= {e["type"] for e in events if ours(e)}

    mine = local_events(stack, tenant="alice", want=both)
    added = [e for e in mine if e["type"] == "run.added" and e["detail"]["thread_id"] == thread]
    stored = [e for e in mine if e["type"] == "output.stored" and e["detail"]["memory"] == memory]
    assert len(added) == 1 and len(stored) == 1, stack.output()
    assert added[0]["detail"]["run_id"] == "run-events" and added[0]["detail"]["seq"] == 1
    assert added[0]["detail"]["bytes"] > 0 and added[0]["detail"]["input_tokens"] > 0
    assert stored[0]["detail"] == {"memory": memory, "namespace": "page", "start": 0, "count": 1, "storage": "text"}
    for event in (added[0], stored[0]):
        assert set(event) == {"id", "type", "time", "tenant", "detail"}
        assert "zanzibar" not in json.dumps(event) and "Ada" not in json.dumps(event)
    assert not [e for e in local_events(stack, tenant="bob", want=lambda _: True) if thread in json.dumps(e)]

    alice.delete_thread(thread)

    def this_delete(event: dict[str, Any]) -> bool:
        return event["type"] == "thread.deleted" and event["detail"] == {"thread_id": thread}

    deleted = local_events(stack, tenant="alice", want=lambda es: any(map(this_delete, es)))
    assert len([e for e in deleted if this_delete(e)]) == 1, stack.output()


def test_the_example_extractor_turns_a_run_into_a_fact_record(stack: RunningStack, alice: OffpromptClient) -> None:
    """docs/adr/0036: the local stack runs the example extractor on run.added (as the template's rule does) with its
    labelled rule-based stand-in; the fact is a record of the run's tenant, and its put is an event in turn."""
    thread = uid("extract")
    # Other tests of this module's stack may have had a name extracted for alice already (the memory events test says
    # "my name is Ada"): this run's fact is the version after the one there is now.
    try:
        version_before = alice.request("GET", "/records/extracted.facts/name").json()["version"]
    except OffpromptClientError as exc:
        assert exc.status == 404, exc
        version_before = 0
    alice.add_run(thread, input="Hello, my name is Grace Hopper.", output="Nice to meet you!", id="run-extract")

    def this_put(event: dict[str, Any]) -> bool:
        detail = event["detail"]
        return (
            event["type"] == "record.put"
            and detail["namespace_path"] == "extracted.facts"
            and detail["version"] > version_before
        )

    puts = [e for e in local_events(stack, tenant="alice", want=lambda es: any(map(this_put, es))) if this_put(e)]
    log = "\n".join(line for line in stack.lines if "memory events" in line or "rror" in line)
    assert [e["detail"]["key"] for e in puts] == ["name"], log
    record = alice.request("GET", "/records/extracted.facts/name").json()
    assert record["value"]["text"] == "Grace Hopper"
    assert "not a model" in record["value"]["extractor"]
    assert record["value"]["source"] == {"thread_id": thread, "run_id": "run-extract", "seq": 1}


def test_a_run_added_over_http_becomes_a_search_candidate(
    stack: RunningStack, alice: OffpromptClient, opensearch_client: Any
) -> None:
    """docs/adr/0048: the stack runs the conversation indexer on the table's stream as it runs the events function,
    so a run added over HTTP is in the index (alice's only), and a deleted thread's runs leave it."""
    from offprompt.adapters.opensearch_conversations import OpenSearchConversationIndex

    thread = uid("search-thread")
    alice.add_run(thread, input="my sister lives in Reykjavik", output="Iceland is lovely", id="run-search")
    index = OpenSearchConversationIndex(opensearch_client, stack.index, None)

    def candidates(tenant: str) -> list[tuple[str, int, str]]:
        found = index.candidates(
            tenant, bm25_query="reykjavik", embed_query="reykjavik", threads=[ThreadCut(thread)],
            thread_prefix=None, since=None, until=None, size=10, mode="bm25", wait_for_refresh=True,
        )  # fmt: skip
        return [(c.doc.thread_id, c.doc.seq, c.doc.ref_id) for c in found]

    deadline = time.monotonic() + 30
    while not candidates("alice") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert candidates("alice") == [(thread, 1, "run-search")], stack.output()
    assert candidates("bob") == []
    alice.delete_thread(thread)
    deadline = time.monotonic() + 30
    while candidates("alice") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert candidates("alice") == [], stack.output()


def test_an_extraction_strategy_turns_a_conversation_into_records_with_the_rules_model(
    stack: RunningStack, alice: OffpromptClient
) -> None:
    """docs/adr/0051: the whole pipeline on `make dev` — a strategy, a thread's actor, a run, the memory event, the
    runner with the labelled `rules` stand-in, a record with its provenance, the thread's extraction status."""
    thread, actor = uid("xtr"), uid("actor")
    assert alice.put_strategy("e2e-facts", "facts", "people/{actor_id}/facts", after_runs=1)["name"] == "e2e-facts"
    assert "e2e-facts" in [s["name"] for s in alice.list_strategies()["strategies"]]
    assert alice.get_strategy("e2e-facts")["trigger"] == {"after_runs": 1, "idle_seconds": 0}
    alice.add_run(thread, input="hello", output="hi", id="run-0")
    alice.configure_thread(thread, actor_id=actor)
    alice.add_run(thread, input="I live in Lisbon.", output="Nice!", id="run-1")
    deadline = time.monotonic() + 60
    while True:
        status = alice.thread_extraction(thread)["strategies"]["e2e-facts"]
        if status["processed_through_seq"] >= 2 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    log = "\n".join(line for line in stack.lines if "extraction" in line or "rror" in line)
    assert status["processed_through_seq"] == 2 and status["last_error"] is None, log
    record = alice.request("GET", f"/records/people.{actor}.facts/lives-in").json()
    assert record["value"]["text"] == "Lisbon"
    provenance = record["value"]["provenance"]
    assert provenance["thread_id"] == thread and provenance["strategy"] == "e2e-facts"
    assert "not a model" in provenance["model"] and provenance["run_ids"] == ["run-1"]
    alice.delete_strategy("e2e-facts")
    with raises(404, "strategy_not_found"):
        alice.get_strategy("e2e-facts")
