"""Whole lines on the local stack's stdout and stderr, whatever thread writes them.

The stack runs the functions in its own process: the dev server's request threads and the memory events
poller call the real handlers, whose Powertools logger and metrics `print` to stdout, while the main thread
says `[stack] ready: …`. `print` writes its text and its newline as two writes, so two threads could join
their lines ("…MemoryEventsPublished…}[stack] ready: http://…") and anything reading the stack's output line
by line (a log shipper, `make dev | grep`, the e2e tests) missed the line. In Lambda every function has its
own log stream; here each thread's text is held until its newline and the line is written whole, under one
lock shared by stdout and stderr (they usually end in the same terminal or pipe).
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

_LOCK = threading.Lock()


class LineWriter:
    """A text stream that writes whole lines to `target`: each thread's partial line waits for its newline."""

    def __init__(self, target: IO[str]) -> None:
        self.target = target
        self._partial = threading.local()

    def write(self, text: str) -> int:
        pending: str = getattr(self._partial, "text", "") + text
        head, newline, tail = pending.rpartition("\n")
        self._partial.text = tail
        if newline:
            with _LOCK:
                self.target.write(head + newline)
                self.target.flush()
        return len(text)

    def flush(self) -> None:
        """Writes this thread's partial line too: a prompt without a newline still appears."""
        pending: str = getattr(self._partial, "text", "")
        self._partial.text = ""
        with _LOCK:
            if pending:
                self.target.write(pending)
            self.target.flush()

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:
        return str(getattr(self.target, "encoding", "utf-8"))  # IO[str] declares none; TextIO streams have one

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


def whole_lines() -> None:
    """Puts `LineWriter`s in front of sys.stdout and sys.stderr (called by the stack's `main`, not on import)."""
    if not isinstance(sys.stdout, LineWriter):
        sys.stdout = LineWriter(sys.stdout)
    if not isinstance(sys.stderr, LineWriter):
        sys.stderr = LineWriter(sys.stderr)
