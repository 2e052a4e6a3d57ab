"""An OpenAI Agents SDK session stored in offprompt (extra `openai-agents`): one thread per session, one entry
per item, big items in S3, pops atomic under concurrency, the same tenant isolation, retention, export and erase as
every offprompt thread (docs/adr/0033).

    from agents import Agent, Runner
    from offprompt_client.openai_agents import OffpromptSession

    session = OffpromptSession("support-42", base_url="http://127.0.0.1:3000")
    await Runner.run(Agent(name="helper"), "Hello", session=session)

It implements the SDK's `Session` protocol (`session_id`, `session_settings`, async `get_items(limit=None)`,
`add_items(items)`, `pop_item()`, `clear_session()`) over `/threads/{session_id}/items` with the standard-library
client; the SDK is needed only to run an agent, never to import this module. `session_settings=` takes the SDK's
`SessionSettings` or a dict, as its SQLiteSession does (`limit`: the default of `get_items`); its own tests
(`tests/memory/test_session.py`) pass against it (tests/e2e/peers/openai_agents). The thread's kind is fixed at its
first append: a thread holding Griptape runs answers 409 `thread_kind_mismatch` (OffpromptClientError).

Connection settings as the Griptape drivers': `base_url` (default `OFFPROMPT_API_URL`, else the local stack),
`api_key` (default `OFFPROMPT_API_KEY`, sent as `Authorization: Bearer`), `tenant` (the local stack's header).
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from offprompt_client.client import OffpromptClient
from offprompt_client.retries import with_retries

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory.session_settings import SessionSettings

__all__ = ["OffpromptSession"]

#: Items per `GET` page when the whole session is read, and per `POST` (the route's limit: one transaction).
PAGE = 100
APPEND = 32
#: Attempts of a request that committed nothing (503) or may not have reached the API (a connection error: an
#: append is retried with the same request id, so it is stored once).


def request_chunks(client: OffpromptClient, items: list[Any]) -> list[list[Any]]:
    """`items` in order, cut into appends of at most APPEND items whose request fits Lambda's payload limit (measured
    as `client.request_too_large` does); an item too large on its own is sent alone (the API answers 413)."""
    envelope = b'{"items":[],"request_id":"' + b"0" * 32 + b'"}'
    chunks: list[list[Any]] = []
    size = 0
    for item in items:
        encoded = json.dumps(item).encode("utf-8")
        length = len(encoded) + encoded.count(b'"') + encoded.count(b"\\") + 1  # (the event escapes them again)
        if not chunks or len(chunks[-1]) >= APPEND or client.request_too_large(envelope + b"x" * (size + length)):
            chunks.append([])
            size = 0
        chunks[-1].append(item)
        size += length
    return chunks


def session_settings_of(given: SessionSettings | dict[str, Any] | None) -> SessionSettings | None:
    """`session_settings` as the SDK's SessionSettings (`coerce_session_settings`, as SQLiteSession does it); None
    only where the SDK is not installed and none was given (nothing can read them there)."""
    try:
        from agents.memory.session_settings import SessionSettings, coerce_session_settings
    except ImportError:
        if given is None:
            return None
        raise ImportError(
            "session_settings needs the OpenAI Agents SDK: pip install 'offprompt-client[openai-agents]'"
        ) from None
    return SessionSettings() if given is None else coerce_session_settings(given)


class OffpromptSession:
    """The Agents SDK `Session` protocol over one offprompt thread (`session_id` is the thread id)."""

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        tenant: str | None = None,
        timeout: float = 30.0,
        client: OffpromptClient | None = None,
        max_tokens: int | None = None,
        session_settings: SessionSettings | dict[str, Any] | None = None,
    ) -> None:
        self.session_id = session_id
        # The SDK's own settings, as its SQLiteSession keeps them: a SessionSettings (a dict is normalized into one,
        # an unknown key refused with TypeError); `limit` is what get_items() returns when it is given none.
        self.session_settings = session_settings_of(session_settings)
        # History trimmed to a token budget server-side: every get_items is the newest items that fit it (counted
        # with cl100k_base over each item's JSON), never a function call's output without the call.
        self.max_tokens = max_tokens
        if client is None:
            client = OffpromptClient.connect(base_url, api_key, tenant, timeout)
        self.client = client

    def __repr__(self) -> str:
        return f"OffpromptSession({self.session_id!r}, {self.client!r})"

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The latest `limit` items in chronological order (when None, `session_settings.limit`; every item when
        that is None too)."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        return await asyncio.to_thread(self._get, limit)

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        if items:
            await asyncio.to_thread(self._add, list(items))

    async def pop_item(self) -> TResponseInputItem | None:
        answer = await asyncio.to_thread(self._retry, lambda: self.client.pop_item(self.session_id), False)
        item: TResponseInputItem | None = answer["item"]
        return item

    async def clear_session(self) -> None:
        await asyncio.to_thread(self._retry, lambda: self.client.delete_thread(self.session_id), True)

    # ---- blocking halves (run in a worker thread) ----------------------------------------------------------
    def _get(self, limit: int | None) -> list[Any]:
        if limit is not None and limit <= 0:
            return []
        if self.max_tokens is not None:  # one read: the server stops where the budget does
            call = functools.partial(self.client.get_items, self.session_id, limit=limit, max_tokens=self.max_tokens)
            items: list[Any] = self._retry(call, True)["items"]
            return items
        found: list[Any] = []
        before: int | None = None
        while limit is None or len(found) < limit:
            size = PAGE if limit is None else min(PAGE, limit - len(found))
            page = self._retry(
                functools.partial(self.client.get_items, self.session_id, limit=size, before=before), True
            )
            found[:0] = page["items"]  # older pages go in front
            before = page["next_before"]
            if before is None:
                break
        return found

    def _add(self, items: list[Any]) -> None:
        for chunk in request_chunks(self.client, items):
            request_id = uuid.uuid4().hex  # the same for every attempt: a retry is stored once
            self._retry(functools.partial(self.client.add_items, self.session_id, chunk, request_id=request_id), True)

    def _retry(self, call: Callable[[], Any], idempotent: bool) -> Any:
        return with_retries(call, resend=idempotent)
