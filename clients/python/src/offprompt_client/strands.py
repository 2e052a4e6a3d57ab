"""Strands Agents sessions stored in offprompt (extra `strands`): a `SessionRepository` for Strands'
`RepositorySessionManager`, over threads of items (docs/adr/0033), so sessions, agents and messages get offprompt's
storage: concurrency-safe appends, payloads past 400 KB in S3, tenant isolation, retention, export and erase.

    from strands import Agent
    from offprompt_client.strands import OffpromptSessionManager

    agent = Agent(session_manager=OffpromptSessionManager("support-42", base_url="http://127.0.0.1:3000"))

Storage, each record one item appended to a thread (latest wins; nothing is rewritten in place):
- thread `{session_id}`: the session record, then one `agent` marker per agent created in it (and one
  `multi_agent` marker per Swarm or Graph);
- thread `{session_id}.agent.{agent_id}`: the agent's state, one item per `create_agent`/`update_agent` (a read is
  the newest item: one GetItem + one Query of one item, however often the agent was synced);
- thread `{session_id}.messages.{agent_id}`: one item per `create_message`, and one per `update_message` (a
  redaction) carrying the same `message_id`: reads fold them, the newest version of each message id wins;
- thread `{session_id}.multi_agent.{multi_agent_id}`: a Swarm's or Graph's state (`serialize_state()`), one item
  per `create_multi_agent`/`update_multi_agent`, read as the newest item, as an agent's (docs/adr/0046).
`delete_session` deletes every kind of thread (the agents and multi-agents from the session thread's markers).

Connection settings as the other doors: `base_url` (default `OFFPROMPT_API_URL`, else the local stack),
`api_key` (default `OFFPROMPT_API_KEY`), `tenant` (the local stack's header).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from strands.session.repository_session_manager import RepositorySessionManager
from strands.session.session_repository import SessionRepository
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionMessage

from offprompt_client.client import OffpromptClient
from offprompt_client.retries import with_retries

if TYPE_CHECKING:
    from strands.multiagent.base import MultiAgentBase

__all__ = ["OffpromptSessionManager", "OffpromptSessionRepository"]

PAGE = 100


class OffpromptSessionRepository(SessionRepository):
    """Strands' `SessionRepository` on offprompt threads of items."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        tenant: str | None = None,
        timeout: float = 30.0,
        client: OffpromptClient | None = None,
    ) -> None:
        if client is None:
            client = OffpromptClient.connect(base_url, api_key, tenant, timeout)
        self.client = client

    # ---- threads ------------------------------------------------------------------------------------------
    @staticmethod
    def _agent_thread(session_id: str, agent_id: str) -> str:
        return f"{session_id}.agent.{agent_id}"

    @staticmethod
    def _messages_thread(session_id: str, agent_id: str) -> str:
        return f"{session_id}.messages.{agent_id}"

    @staticmethod
    def _multi_agent_thread(session_id: str, multi_agent_id: str) -> str:
        return f"{session_id}.multi_agent.{multi_agent_id}"

    # ---- sessions -----------------------------------------------------------------------------------------
    def create_session(self, session: Session, **kwargs: Any) -> Session:
        if self._records(session.session_id, "session"):
            raise SessionException(f"Session {session.session_id} already exists")
        self._append(session.session_id, [{"record": "session", "session": session.to_dict()}])
        return session

    def read_session(self, session_id: str, **kwargs: Any) -> Session | None:
        found = self._records(session_id, "session")
        return Session.from_dict(found[-1]["session"]) if found else None

    def delete_session(self, session_id: str, **kwargs: Any) -> None:
        records = self._all(session_id)
        if not any(r.get("record") == "session" for r in records):
            raise SessionException(f"Session {session_id} does not exist")
        threads: set[str] = set()
        for record in records:
            if record.get("record") == "agent":
                agent_id = record["agent_id"]
                threads |= {self._agent_thread(session_id, agent_id), self._messages_thread(session_id, agent_id)}
            elif record.get("record") == "multi_agent":
                threads.add(self._multi_agent_thread(session_id, record["multi_agent_id"]))
        for thread in sorted(threads):
            self._retry(functools.partial(self.client.delete_thread, thread), True)
        self._retry(lambda: self.client.delete_thread(session_id), True)

    # ---- agents -------------------------------------------------------------------------------------------
    def create_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        self._append(self._agent_thread(session_id, session_agent.agent_id), [session_agent.to_dict()])
        self._append(session_id, [{"record": "agent", "agent_id": session_agent.agent_id}])

    def read_agent(self, session_id: str, agent_id: str, **kwargs: Any) -> SessionAgent | None:
        found = self._latest(self._agent_thread(session_id, agent_id))
        return SessionAgent.from_dict(found) if found is not None else None

    def update_agent(self, session_id: str, session_agent: SessionAgent, **kwargs: Any) -> None:
        previous = self.read_agent(session_id, session_agent.agent_id)
        if previous is None:
            raise SessionException(f"Agent {session_agent.agent_id} in session {session_id} does not exist")
        session_agent.created_at = previous.created_at
        self._append(self._agent_thread(session_id, session_agent.agent_id), [session_agent.to_dict()])

    # ---- messages -----------------------------------------------------------------------------------------
    def create_message(self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any) -> None:
        self._append(self._messages_thread(session_id, agent_id), [session_message.to_dict()])

    def read_message(self, session_id: str, agent_id: str, message_id: int, **kwargs: Any) -> SessionMessage | None:
        return self._messages(session_id, agent_id).get(message_id)

    def update_message(self, session_id: str, agent_id: str, session_message: SessionMessage, **kwargs: Any) -> None:
        previous = self.read_message(session_id, agent_id, session_message.message_id)
        if previous is None:
            raise SessionException(f"Message {session_message.message_id} does not exist")
        session_message.created_at = previous.created_at
        self._append(self._messages_thread(session_id, agent_id), [session_message.to_dict()])

    def list_messages(
        self, session_id: str, agent_id: str, limit: int | None = None, offset: int = 0, **kwargs: Any
    ) -> list[SessionMessage]:
        messages = [m for _, m in sorted(self._messages(session_id, agent_id).items())]
        return messages[offset:] if limit is None else messages[offset : offset + limit]

    def _messages(self, session_id: str, agent_id: str) -> dict[int, SessionMessage]:
        latest: dict[int, SessionMessage] = {}
        for item in self._all(self._messages_thread(session_id, agent_id)):  # oldest first: later versions win
            message = SessionMessage.from_dict(item)
            latest[message.message_id] = message
        return latest

    # ---- multi-agents (a Swarm's or Graph's state) ------------------------------------------------------------
    def create_multi_agent(self, session_id: str, multi_agent: MultiAgentBase, **kwargs: Any) -> None:
        self._append(self._multi_agent_thread(session_id, multi_agent.id), [multi_agent.serialize_state()])
        self._append(session_id, [{"record": "multi_agent", "multi_agent_id": multi_agent.id}])

    def read_multi_agent(self, session_id: str, multi_agent_id: str, **kwargs: Any) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self._latest(self._multi_agent_thread(session_id, multi_agent_id))
        return found

    def update_multi_agent(self, session_id: str, multi_agent: MultiAgentBase, **kwargs: Any) -> None:
        if self.read_multi_agent(session_id, multi_agent.id) is None:
            raise SessionException(f"MultiAgent state {multi_agent.id} in session {session_id} does not exist")
        self._append(self._multi_agent_thread(session_id, multi_agent.id), [multi_agent.serialize_state()])

    # ---- transport ----------------------------------------------------------------------------------------
    def _records(self, thread: str, record: str) -> list[dict[str, Any]]:
        return [r for r in self._all(thread) if r.get("record") == record]

    def _latest(self, thread: str) -> Any:
        """The thread's newest item (None when it has none): one GetItem + one Query of one item."""
        page = self._retry(lambda: self.client.get_items(thread, limit=1), True)
        return page["items"][-1] if page["items"] else None

    def _all(self, thread: str) -> list[Any]:
        found: list[Any] = []
        before: int | None = None
        while True:
            page = self._retry(functools.partial(self.client.get_items, thread, limit=PAGE, before=before), True)
            found[:0] = page["items"]
            before = page["next_before"]
            if before is None:
                return found

    def _append(self, thread: str, items: list[Any]) -> None:
        request_id = uuid.uuid4().hex  # the same for every attempt: a retry is stored once
        self._retry(lambda: self.client.add_items(thread, items, request_id=request_id), True)

    def _retry(self, call: Callable[[], Any], idempotent: bool) -> Any:
        return with_retries(call, resend=idempotent)


class OffpromptSessionManager(RepositorySessionManager):
    """Strands' `RepositorySessionManager` on an `OffpromptSessionRepository` (redaction included)."""

    def __init__(
        self,
        session_id: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        tenant: str | None = None,
        timeout: float = 30.0,
        client: OffpromptClient | None = None,
        **kwargs: Any,
    ) -> None:
        repository = OffpromptSessionRepository(
            base_url=base_url, api_key=api_key, tenant=tenant, timeout=timeout, client=client
        )
        super().__init__(session_id=session_id, session_repository=repository, **kwargs)
