"""`make dev` restarts its OpenSearch node when the JVM dies, on the same URL, and re-creates the index.

The stack runs as a user runs it (a subprocess, its own JVM: no OPENSEARCH_URL). The test SIGKILLs the JVM and
then expects a store and a search through the API to succeed again within a bounded wait.
"""

from __future__ import annotations

import os
import re
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from stack_process import StackProcess

from offprompt.artifacts import TextArtifact
from offprompt_client import OffpromptClient, OffpromptClientError, OffpromptConnectionError
from offprompt_local.opensearch import LocalOpenSearch
from offprompt_local.stack import LocalStack

BOOT_TIMEOUT_S = 180
RECOVERY_TIMEOUT_S = 120
pytestmark = pytest.mark.slow
_UP = re.compile(r"^\[opensearch\] OpenSearch is up at (http://\S+) after .* \(pid (\d+)\)$")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackProcess]:
    """The stack with its own OpenSearch JVM (no OPENSEARCH_URL), on a temporary data directory and a free port."""
    running = StackProcess(tmp_path_factory.mktemp("watchdog") / "data")
    try:
        running.wait_ready(BOOT_TIMEOUT_S)
        yield running
    finally:
        code = running.stop()
        assert code == 0, running.output()


def _dead(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def store_and_search(api: OffpromptClient, word: str) -> list[int]:
    """Store a text naming `word` into a fresh namespace and search for it (bm25 and knn); the hits' positions."""
    namespace = f"ns-{uuid.uuid4().hex[:8]}"
    artifact = TextArtifact(f"The automobile log mentions {word}.", name=namespace)
    api.process_output("Watchdog", "T", "a", artifact, consistency="search")  # the search follows at once
    found: list[int] = []
    for mode in ("bm25", "knn"):
        found += [hit["position"] for hit in api.search("Watchdog", namespace, word, top_k=1, mode=mode)["hits"]]
    return found


def test_a_killed_node_is_restarted_on_the_same_url(stack: StackProcess) -> None:
    up = stack.wait_for(_UP.pattern, 5)
    url, pid = up.group(1), int(up.group(2))
    api_url = stack.wait_for(r"^\[stack\] ready: (\S+)", 5).group(1)
    api = OffpromptClient(api_url, tenant="watchdog", timeout=60)
    assert store_and_search(api, "zanzibar") == [0, 0]

    lines_before = len(stack.lines)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not _dead(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    killed_at = time.monotonic()

    # Requests fail while the node is down (503 from the handlers), then succeed again on the same URL.
    last_error: Exception | None = None
    while time.monotonic() - killed_at < RECOVERY_TIMEOUT_S:
        try:
            assert store_and_search(api, "kilimanjaro") == [0, 0]
            break
        except (OffpromptClientError, OffpromptConnectionError) as exc:
            last_error = exc
            time.sleep(0.5)
    else:
        pytest.fail(
            f"no successful store+search {RECOVERY_TIMEOUT_S}s after the kill ({last_error}):\n{stack.output()}"
        )
    recovered = time.monotonic() - killed_at
    print(f"\nstore+search succeeded again {recovered:.1f}s after SIGKILL of the OpenSearch JVM")

    line = stack.wait_for(r"^\[stack\] OpenSearch \(pid \d+\) exited with code .*; restarted at ", 5, lines_before)
    assert f"(pid {pid}) exited with code -9; restarted at {url} " in line.string, line.string
    new_up = stack.wait_for(_UP.pattern, 5, lines_before)
    assert new_up.group(1) == url and int(new_up.group(2)) != pid
    watchdog_lines = [ln for ln in stack.lines[lines_before:] if ln.startswith("[stack] OpenSearch (pid")]
    assert len(watchdog_lines) == 1, watchdog_lines
    print(watchdog_lines[0])


def test_no_watchdog_for_an_external_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENSEARCH_URL", "http://127.0.0.1:9")
    local = LocalStack(api_port=0)
    local._opensearch = LocalOpenSearch()
    assert local._opensearch.external
    local._start_watchdog()
    assert local._watchdog is None
    local._opensearch = None
    local.stop()
