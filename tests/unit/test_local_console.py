"""The local stack writes whole lines whatever thread writes them (offprompt_local.console).

CI saw `…"MemoryEventsPublished":[0.0]}[stack] ready: http://…`: the events poller's metrics line and the main
thread's ready line joined, because `print` writes its text and its newline separately.
"""

from __future__ import annotations

import io
import sys
import threading

import pytest

from offprompt_local import console
from offprompt_local.console import LineWriter


def test_a_line_another_thread_writes_between_text_and_newline_stays_whole() -> None:
    out = io.StringIO()
    writer = LineWriter(out)
    text_written, ready_written = threading.Event(), threading.Event()

    def poller() -> None:  # print(metrics_json): the text, then (later) the newline
        writer.write('{"MemoryEventsPublished":[0.0]}')
        text_written.set()
        ready_written.wait(5)
        writer.write("\n")

    thread = threading.Thread(target=poller)
    thread.start()
    text_written.wait(5)
    print("[stack] ready: http://127.0.0.1:1", file=writer, flush=True)
    ready_written.set()
    thread.join(5)

    assert out.getvalue().splitlines() == ["[stack] ready: http://127.0.0.1:1", '{"MemoryEventsPublished":[0.0]}']


def test_the_same_interleaving_on_the_bare_stream_joins_the_lines() -> None:
    """What the writer prevents, shown on a plain stream (so the test above can fail)."""
    out = io.StringIO()
    out.write('{"MemoryEventsPublished":[0.0]}')
    print("[stack] ready: http://127.0.0.1:1", file=out)
    out.write("\n")
    assert out.getvalue().splitlines()[0].endswith("[stack] ready: http://127.0.0.1:1")


def test_many_threads_printing_give_only_whole_lines() -> None:
    out = io.StringIO()
    writer = LineWriter(out)

    def chatter(n: int) -> None:
        for i in range(200):
            print(f"thread {n} line {i}", "part two", file=writer)

    threads = [threading.Thread(target=chatter, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = out.getvalue().splitlines()
    assert len(lines) == 800
    assert all(line.startswith("thread ") and line.endswith(" part two") for line in lines)


def test_flush_writes_a_partial_line_and_whole_lines_installs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    writer = LineWriter(out)
    print("continue? ", end="", file=writer, flush=True)
    assert out.getvalue() == "continue? "

    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    console.whole_lines()
    first = sys.stdout
    console.whole_lines()
    assert isinstance(sys.stdout, LineWriter) and sys.stdout is first and isinstance(sys.stderr, LineWriter)
