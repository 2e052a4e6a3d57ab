"""Run paging: every run of a thread from `lo` on, one Query page after another (keys only, or with bodies).

Prompt-stack pages its own way (budget-sized pages, `prompt_stack.newest_first`)."""

from __future__ import annotations

from collections.abc import Iterator

from offprompt.ports import StoredRun
from offprompt.services.conversation.context import Conversation


def iter_keys(conv: Conversation, tenant: str, thread_id: str, *, lo: int, newest_first: bool) -> Iterator[StoredRun]:
    hi: int | None = None
    now = int(conv.clock())
    while True:
        runs, last = conv.runs.page_runs(
            tenant, thread_id, lo=lo, hi=hi, newest_first=newest_first, limit=500, now_epoch=now, keys_only=True
        )
        yield from runs
        if last is None:
            return
        if newest_first:
            hi = last - 1
        else:
            lo = last + 1


def iter_full(conv: Conversation, tenant: str, thread_id: str, *, lo: int) -> Iterator[StoredRun]:
    now = int(conv.clock())
    while True:
        runs, last = conv.runs.page_runs(
            tenant, thread_id, lo=lo, hi=None, newest_first=False, limit=100, now_epoch=now
        )
        yield from runs
        if last is None:
            return
        lo = last + 1
