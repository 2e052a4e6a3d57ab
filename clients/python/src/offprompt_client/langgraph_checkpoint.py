"""A LangGraph checkpointer on offprompt (extra `langgraph`; docs/adr/0039-langgraph-checkpoints.md).

    from offprompt_client.langgraph import OffpromptSaver

    saver = OffpromptSaver(base_url="http://127.0.0.1:3000")
    graph = builder.compile(checkpointer=saver)
    graph.invoke(inputs, {"configurable": {"thread_id": "t-1"}})

`OffpromptSaver` is a `langgraph.checkpoint.base.BaseCheckpointSaver`: `get_tuple`, `list` (`filter`, `before`,
`limit`), `put`, `put_writes`, `delete_thread`, `copy_thread` and `prune`, each also async (`aget_tuple`, ...:
the blocking call in a worker thread, `asyncio.to_thread`). What the service adds: each checkpoint and each
pending write is one DynamoDB item, a checkpoint past the item limit goes to S3 (up to 4 MiB serialized),
`copy_thread` is a fork (no checkpoint is copied, whatever the thread's length), the newest checkpoint with its
writes is one DynamoDB Query (plus the S3 object when offloaded), tenants are isolated, export and erase cover
checkpoints.

- A checkpoint travels as its serializer's `dumps_typed` pair (LangGraph's `JsonPlusSerializer` unless `serde=`
  says otherwise), base64 on the wire, and comes back byte for byte. Its `channel_values` are stored whole with the
  checkpoint (only the channels its `channel_versions` name, as LangGraph's own savers load them).
- Metadata is stored as JSON (LangGraph's `get_checkpoint_metadata`: the config's primitive values merged in) and
  `filter` is applied by the service, so `limit` counts matches. A metadata value JSON cannot hold is refused
  (TypeError) before anything is sent.
- `list` needs a thread: `config=None` (every thread of every tenant, in LangGraph's in-memory saver) raises
  ValueError. A `config` without `checkpoint_ns` lists every namespace of the thread, newest first.
- `copy_thread` of a thread without checkpoints copies nothing (LangGraph's SQL savers do the same); into a thread
  that already has checkpoints it raises `OffpromptClientError` 409 `checkpoint_thread_exists`.
- `delete_for_runs` is not offered (it needs an index by run; see ADR 0039).

Requests that fail with a connection error, 429 or 503 are retried (a put or a write repeated after a lost answer
stores the same item again); a copy is retried on 429/503 only. Other errors raise `OffpromptClientError`; a put or
writes that would make a checkpoint tuple larger than one answer can carry (4 MiB of blobs: the checkpoint and its
pending writes) raise its subclass `CheckpointTooLarge` (413 `checkpoint_too_large`, nothing stored).
Connection settings as the other doors: `base_url` (default `OFFPROMPT_API_URL`, else the local stack), `api_key`
(default `OFFPROMPT_API_KEY`), `tenant` (the local stack's header), or `client`.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from offprompt_client.client import OffpromptClient, OffpromptClientError
from offprompt_client.retries import with_retries

__all__ = ["CheckpointTooLarge", "OffpromptSaver"]


class CheckpointTooLarge(OffpromptClientError):
    """413 `checkpoint_too_large`: the put or writes would take the checkpoint tuple past the blob bytes one answer
    carries (`body["details"]["limit"]`); nothing was stored."""

    code_name = "checkpoint_too_large"


#: At most this many writes go in one request (the route takes 1..1000).
WRITES_PER_REQUEST = 500


class OffpromptSaver(BaseCheckpointSaver[int]):
    """LangGraph's `BaseCheckpointSaver` on offprompt (see the module docstring)."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        tenant: str | None = None,
        timeout: float = 30.0,
        client: OffpromptClient | None = None,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        if client is None:
            client = OffpromptClient.connect(base_url, api_key, tenant, timeout)
        self.client = client

    def __repr__(self) -> str:
        return f"OffpromptSaver({self.client!r})"

    # ---- reads ------------------------------------------------------------------------------------------------
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint `config` names (`checkpoint_id`), or the newest of its thread and namespace."""
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        checkpoint_ns = str(configurable.get("checkpoint_ns", ""))
        checkpoint_id = get_checkpoint_id(config)
        try:
            found = self._retry(
                lambda: self.client.get_checkpoint(thread_id, checkpoint_ns=checkpoint_ns, checkpoint_id=checkpoint_id)
            )
        except OffpromptClientError as error:
            if error.status == 404 and error.code == "checkpoint_not_found":
                return None
            raise
        return self._tuple(thread_id, found)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """The thread's checkpoints newest first: of `config`'s namespace (every namespace when it names none),
        older than `before`'s checkpoint, whose metadata holds `filter`'s values, at most `limit`."""
        if config is None:
            raise ValueError("OffpromptSaver.list needs a config with a thread_id (a listing is of one thread)")
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        checkpoint_ns = configurable.get("checkpoint_ns")
        if limit is not None and limit <= 0:
            return
        if get_checkpoint_id(config):  # a config naming one checkpoint lists at most that one
            named = self.get_tuple(config)
            if named is not None and _matches(named.metadata, filter) and _before(named, before):
                yield named
            return
        before_id = get_checkpoint_id(before) if before else None
        ns = None if checkpoint_ns is None else str(checkpoint_ns)
        found = 0
        cursor: str | None = None
        while limit is None or found < limit:
            left = None if limit is None else limit - found
            page = self._retry(
                lambda c=cursor, n=left: self.client.list_checkpoints(  # type: ignore[misc]
                    thread_id, checkpoint_ns=ns, before=before_id, filter=filter or None, limit=n, cursor=c
                )
            )
            for item in (page.get("checkpoints") or [])[:left]:
                found += 1
                yield self._tuple(thread_id, item)
            cursor = page.get("next_cursor")
            if not cursor:
                return

    # ---- writes -----------------------------------------------------------------------------------------------
    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store the checkpoint (its channel values whole) under `config`'s thread and namespace; its parent is
        `config`'s checkpoint."""
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        checkpoint_ns = str(configurable.get("checkpoint_ns", ""))
        stored: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = stored.get("channel_values") or {}
        versions: dict[str, Any] = stored.get("channel_versions") or {}
        stored["channel_values"] = {k: v for k, v in values.items() if k in versions}
        blob = _wire(self.serde.dumps_typed(stored))
        md = _json_metadata(get_checkpoint_metadata(config, metadata))
        parent = configurable.get("checkpoint_id")
        self._retry(
            lambda: self.client.put_checkpoint(
                thread_id,
                checkpoint["id"],
                checkpoint=blob,
                metadata=md,
                checkpoint_ns=checkpoint_ns,
                parent_checkpoint_id=str(parent) if parent else None,
            )
        )
        stored_at = {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint["id"]}
        return {"configurable": stored_at}

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes on `config`'s checkpoint (LangGraph's rule: a regular write already stored is kept,
        a special channel's is replaced)."""
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        checkpoint_ns = str(configurable.get("checkpoint_ns", ""))
        checkpoint_id = str(configurable["checkpoint_id"])
        entries = [
            {"idx": WRITES_IDX_MAP.get(channel, idx), "channel": channel, "value": _wire(self.serde.dumps_typed(value))}
            for idx, (channel, value) in enumerate(writes)
        ]
        for start in range(0, len(entries), WRITES_PER_REQUEST):
            chunk = entries[start : start + WRITES_PER_REQUEST]
            self._retry(
                lambda chunk=chunk: self.client.put_checkpoint_writes(  # type: ignore[misc]
                    thread_id,
                    checkpoint_id,
                    task_id=task_id,
                    writes=chunk,
                    checkpoint_ns=checkpoint_ns,
                    task_path=task_path,
                )
            )

    def delete_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes (what a copy of it still reads stays for the copy)."""
        self._retry(lambda: self.client.delete_checkpoint_thread(str(thread_id)))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """`target_thread_id` becomes a fork of the source (every namespace, its checkpoints and writes as they are
        now); nothing is copied. A source without checkpoints copies nothing."""
        try:
            self._retry(
                lambda: self.client.copy_checkpoint_thread(str(source_thread_id), str(target_thread_id)),
                connection_errors=False,
            )
        except OffpromptClientError as error:
            if error.status == 404 and error.code == "checkpoint_thread_not_found":
                return
            raise

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`keep_latest`: only each namespace's newest checkpoint (with its writes) stays; `delete`: everything."""
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"unknown prune strategy {strategy!r} (keep_latest or delete)")
        for thread_id in thread_ids:
            self._retry(lambda t=str(thread_id): self.client.prune_checkpoint_thread(t, strategy=strategy))  # type: ignore[misc]

    # ---- async: the blocking calls in a worker thread ----------------------------------------------------------
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        iterator = self.list(config, filter=filter, before=before, limit=limit)
        done = object()
        while (found := await asyncio.to_thread(next, iterator, done)) is not done:
            yield found  # type: ignore[misc]

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)

    # ---- helpers ----------------------------------------------------------------------------------------------
    def _tuple(self, thread_id: str, found: dict[str, Any]) -> CheckpointTuple:
        """A tuple of the thread asked for (a copy's tuples read from its source are the copy's)."""
        checkpoint_ns = found["checkpoint_ns"]
        parent = found.get("parent_checkpoint_id")
        return CheckpointTuple(
            config={
                "configurable": {
                    "thread_id": thread_id,
                    "checkpoint_ns": checkpoint_ns,
                    "checkpoint_id": found["checkpoint_id"],
                }
            },
            checkpoint=self.serde.loads_typed(_unwire(found["checkpoint"])),
            metadata=found.get("metadata") or {},  # type: ignore[arg-type]
            parent_config=(
                {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": parent}}
                if parent
                else None
            ),
            pending_writes=[
                (w["task_id"], w["channel"], self.serde.loads_typed(_unwire(w["value"])))
                for w in found.get("pending_writes") or []
            ],
        )

    def _retry(self, call: Callable[[], Any], *, connection_errors: bool = True) -> Any:
        try:
            return with_retries(call, resend=connection_errors)
        except OffpromptClientError as error:
            if error.code == CheckpointTooLarge.code_name:
                raise CheckpointTooLarge(error.status, error.code, error.message, error.body) from None
            raise


def _wire(typed: tuple[str, bytes]) -> dict[str, str]:
    kind, data = typed
    return {"type": kind, "data": base64.b64encode(data).decode("ascii")}


def _unwire(blob: dict[str, str]) -> tuple[str, bytes]:
    return blob["type"], base64.b64decode(blob["data"])


def _json_metadata(metadata: CheckpointMetadata) -> dict[str, Any]:
    """The metadata as the JSON object the service stores; a value JSON cannot hold is refused before sending."""
    try:
        return json.loads(json.dumps(metadata, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise TypeError(f"OffpromptSaver stores checkpoint metadata as JSON: {error}") from None


def _matches(metadata: Any, filter: dict[str, Any] | None) -> bool:
    """The service's rule for a listing named by one checkpoint: each field equal as JSON (true is not 1)."""
    return not filter or all(k in metadata and _json_equal(metadata[k], v) for k, v in filter.items())


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_json_equal, a, b))
    return type(a) is type(b) and bool(a == b)


def _before(found: CheckpointTuple, before: RunnableConfig | None) -> bool:
    before_id = get_checkpoint_id(before) if before else None
    return not before_id or found.config["configurable"]["checkpoint_id"] < before_id
