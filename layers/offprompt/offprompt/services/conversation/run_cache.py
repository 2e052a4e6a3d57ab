"""Prepared runs cached per process, by their stored JSON, bounded by the bytes of that JSON.

A warm prompt-stack reads mostly the runs the previous one read. Keyed by the stored JSON itself, a hit is the
same content by construction; the entry holds the decoded run, its two prompt messages and (once asked for)
their JSON and separator costs, about three times the JSON's size in memory, so the bound is on bytes (a run
can be up to 350 KB inline) as well as on entries. Entries are shared: treat them as immutable.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict

from offprompt.memory.conversation import PreparedRun
from offprompt.memory.run import Run

PREPARED_RUNS_CACHED = 1024
PREPARED_RUN_BYTES = 8 * 1024 * 1024  # characters of stored JSON held (~25 MB of objects at most)


class PreparedRunCache:
    def __init__(self, max_entries: int = PREPARED_RUNS_CACHED, max_chars: int = PREPARED_RUN_BYTES) -> None:
        self.max_entries, self.max_chars = max_entries, max_chars
        self._entries: OrderedDict[str, PreparedRun] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()  # the local dev server is threaded; Lambda is not

    def get(self, run_json: str) -> PreparedRun:
        hit = self._entries.get(run_json)
        if hit is not None:
            with contextlib.suppress(KeyError):  # evicted meanwhile by another thread: still a valid value
                self._entries.move_to_end(run_json)
            return hit
        prepared = PreparedRun(Run.from_stored_json(run_json))
        if len(run_json) > self.max_chars:
            return prepared
        with self._lock:
            if run_json not in self._entries:
                self._entries[run_json] = prepared
                self._chars += len(run_json)
                while len(self._entries) > self.max_entries or self._chars > self.max_chars:
                    old, _ = self._entries.popitem(last=False)
                    self._chars -= len(old)
        return prepared

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0


PREPARED_RUNS = PreparedRunCache()


def prepare_stored_run(run_json: str) -> PreparedRun:
    return PREPARED_RUNS.get(run_json)
