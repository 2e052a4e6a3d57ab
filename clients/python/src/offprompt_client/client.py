"""A small HTTP client for the offprompt API, on the standard library only (urllib + json).

    from offprompt_client import OffpromptClient

    api = OffpromptClient("http://127.0.0.1:3000", tenant="alice")      # local stack (`make dev`)
    api = OffpromptClient("https://abc.execute-api.eu-west-1.amazonaws.com",
                          headers={"Authorization": f"Bearer {jwt}"})  # deployed stack
    api.add_run("t1", input="Hi, I am Ada.", output="Hello Ada!")
    stack = api.prompt_stack("t1", input="What is my name?", max_tokens=2000)   # -> PromptStack
    ref = api.process_output("TaskMemory", "WebScraper", "get_content", page)  # -> InfoArtifact
    artifacts = api.load_artifacts("TaskMemory", page.name)                    # -> ListArtifact

It covers every route of the HTTP API, raises `OffpromptClientError(status, code, message)` for 4xx/5xx (and
`OffpromptConnectionError` when the API cannot be reached), follows the load route's 303 to S3 without
forwarding credentials, rebuilds a `BlobDownloads` answer into the ListArtifact it stands for, sends
process-output values too large for a Lambda request through the uploads route (presigned PUT + `value_from`)
by itself, and never imports boto3. Results are parsed JSON; the artifact/prompt-stack routes decode theirs into
Griptape's classes (`griptape.artifacts`, `griptape.common.PromptStack`: the wire format is Griptape's) unless
`raw=True`, which gives the JSON with the standard library alone. Decoding needs the `griptape` extra
(`pip install "offprompt-client[griptape]"`); without it such a call raises ImportError before any request.
Nothing happens at import time. Standalone: this is the `offprompt-client` distribution (`clients/python`); it
never imports the server library (`offprompt`), and the Lambda layer does not ship it.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, overload

if TYPE_CHECKING:
    from griptape.artifacts import BaseArtifact, ListArtifact
    from griptape.common import PromptStack
    from griptape.memory.structure import Run

__all__ = ["OffpromptClient", "OffpromptClientError", "OffpromptConnectionError", "Response"]

TENANT_HEADER = "X-Offprompt-Tenant"
DEFAULT_TIMEOUT = 30.0
USER_AGENT = "offprompt-client/0.1"
# Lambda's synchronous invocation payload limit (6 MB). The request body travels inside the event as a JSON
# string (each `"` and `\` escaped once more), next to headers and request context: EVENT_OVERHEAD is kept free.
MAX_REQUEST_BYTES = 6 * 1024 * 1024
#: How many store references (X-Offprompt-Ref) a client keeps for its loads, oldest dropped first.
MAX_KEPT_REFS = 1024
EVENT_OVERHEAD = 64 * 1024
# Artifact kinds the server accepts by reference (`value_from`): their value is one string or one byte string.
_BY_REFERENCE = ("TextArtifact", "BlobArtifact", "ImageArtifact", "AudioArtifact")
NEEDS_GRIPTAPE = (
    "decoding answers into objects needs Griptape: pip install 'offprompt-client[griptape]', "
    "or pass raw=True for the JSON"
)


class OffpromptClientError(Exception):
    """The API answered with an error (`status` 4xx/5xx, the body's stable `code` and its `message`)."""

    def __init__(self, status: int, code: str, message: str, body: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body


class OffpromptConnectionError(OffpromptClientError):
    """The API could not be reached (status 0): connection refused, DNS, timeout."""


class Response:
    """One HTTP response: status, headers (case-insensitive) and the raw body."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are followed by the client itself, so credentials never travel to S3."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _segment(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"path parameters must be non-empty strings, not {value!r}")
    return urllib.parse.quote(value, safe="")


def _to_dict(value: Any) -> Any:
    """Artifacts, runs and prompt stacks (anything with `to_dict`) as their JSON dicts; plain data as is."""
    return value.to_dict() if hasattr(value, "to_dict") else value


def _text_artifact(value: Any) -> Any:
    """A plain string becomes a TextArtifact dict (Griptape's wire form); artifacts become their dicts."""
    if isinstance(value, str):
        return {"type": "TextArtifact", "value": value}
    return _to_dict(value)


#: The local stack (`make dev`), where the framework doors connect when no URL is given.
LOCAL_URL = "http://127.0.0.1:3000"


class OffpromptClient:
    """Every route of the offprompt HTTP API. Thread-safe: it keeps no per-request state."""

    def __init__(
        self,
        base_url: str,
        tenant: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_request_bytes: int = MAX_REQUEST_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_request_bytes = max_request_bytes  # process_output uploads values whose request would exceed it
        self.headers: dict[str, str] = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if tenant is not None:
            self.headers[TENANT_HEADER] = tenant  # honoured by the local stack only
        self.headers.update(headers or {})
        self._opener = urllib.request.build_opener(_NoRedirect)
        #: (memory, namespace) -> the X-Offprompt-Ref its store answered: loads pass it to skip the lookup
        #: (docs/adr/0053). Only a shortcut: the API answers any ref as it would a load by name.
        self._refs: dict[tuple[str, str], str] = {}

    def __repr__(self) -> str:
        return f"OffpromptClient({self.base_url!r}, tenant={self.headers.get(TENANT_HEADER)!r})"

    @classmethod
    def connect(
        cls,
        base_url: str | None = None,
        api_key: str | None = None,
        tenant: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> OffpromptClient:
        """The framework doors' connection settings: `base_url` (default `OFFPROMPT_API_URL`, else the local
        stack), `api_key` (default `OFFPROMPT_API_KEY`; sent as `Authorization: Bearer`), `tenant` (the local stack's
        header)."""
        url = base_url or os.environ.get("OFFPROMPT_API_URL") or LOCAL_URL
        key = api_key if api_key is not None else os.environ.get("OFFPROMPT_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else None
        return cls(url, tenant=tenant, headers=headers, timeout=timeout)

    # ---------------------------------------------------------------------------------------- transport

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        query: Mapping[str, Any] | None = None,
        data: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """One request to the API (`path` already encoded); raises OffpromptClientError on 4xx/5xx."""
        url = self.base_url + path
        params = {k: str(v) for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        all_headers = dict(self.headers)
        if json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        return self._send(urllib.request.Request(url, data=data, headers=all_headers, method=method))

    def _send(self, request: urllib.request.Request, *, raise_for_status: bool = True) -> Response:
        try:
            with self._opener.open(request, timeout=self.timeout) as reply:
                response = Response(reply.status, dict(reply.headers.items()), reply.read())
        except urllib.error.HTTPError as error:
            response = Response(error.code, dict(error.headers.items()), error.read())
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise OffpromptConnectionError(0, "connection_error", f"{request.full_url}: {reason}") from None
        if raise_for_status and response.status >= 400:
            raise _error_from(response)
        return response

    def _json(self, method: str, path: str, body: Any = None, query: Mapping[str, Any] | None = None) -> Any:
        return self.request(method, path, json_body=body, query=query).json()

    # ------------------------------------------------------------------------------- conversation memory

    def add_run(
        self,
        thread_id: str,
        run: Run | Mapping[str, Any] | None = None,
        *,
        input: Any = None,
        output: Any = None,
        id: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Any:
        """Append a Run: a Run/Run dict, or `input`/`output` (strings become TextArtifacts). `id` = idempotency."""
        if run is None:
            if input is None or output is None:
                raise ValueError("add_run needs a run, or both input and output")
            body: dict[str, Any] = {"input": _text_artifact(input), "output": _text_artifact(output)}
            if meta is not None:
                body["meta"] = dict(meta)
            if id is not None:
                body["id"] = id
        else:
            body = dict(_to_dict(run))
            if id is not None:
                body["id"] = id
        return self._json("POST", f"/threads/{_segment(thread_id)}/runs", body)

    @overload
    def prompt_stack(
        self,
        thread_id: str,
        *,
        system: Any = ...,
        input: Any = ...,
        max_tokens: int | None = ...,
        last_n: int | None = ...,
        memory_index: int | None = ...,
        model: str | None = ...,
        tokenizer: str | None = ...,
        as_of_run: str | None = ...,
        raw: Literal[False] = ...,
    ) -> PromptStack: ...

    @overload
    def prompt_stack(
        self,
        thread_id: str,
        *,
        system: Any = ...,
        input: Any = ...,
        max_tokens: int | None = ...,
        last_n: int | None = ...,
        memory_index: int | None = ...,
        model: str | None = ...,
        tokenizer: str | None = ...,
        as_of_run: str | None = ...,
        raw: Literal[True],
    ) -> dict[str, Any]: ...

    def prompt_stack(
        self,
        thread_id: str,
        *,
        system: Any = None,
        input: Any = None,
        max_tokens: int | None = None,
        last_n: int | None = None,
        memory_index: int | None = None,
        model: str | None = None,
        tokenizer: str | None = None,
        as_of_run: str | None = None,
        raw: bool = False,
    ) -> PromptStack | dict[str, Any]:
        """The thread's history as a PromptStack (system, summary, runs, input) pruned to `max_tokens`, counted
        as Griptape counts for `model`, or with `tokenizer` (cl100k_base, o200k_base, chars_per_token:N);
        `as_of_run`: as the thread was right after that run (time travel; on a fork, also a run it shares)."""
        fields = {
            "system": system,
            "input": input,
            "max_tokens": max_tokens,
            "last_n": last_n,
            "memory_index": memory_index,
            "model": model,
            "tokenizer": tokenizer,
            "as_of_run": as_of_run,
        }
        body = {k: _to_dict(v) for k, v in fields.items() if v is not None}
        decode = _prompt_stack_decoder(raw)
        return decode(self._json("POST", f"/threads/{_segment(thread_id)}/prompt-stack", body))

    def get_thread(self, thread_id: str) -> Any:
        return self._json("GET", f"/threads/{_segment(thread_id)}")

    def configure_thread(self, thread_id: str, settings: Mapping[str, Any] | None = None, **fields: Any) -> Any:
        """PUT the thread's settings (max_runs, summary memory, offset, retention, ...)."""
        return self._json("PUT", f"/threads/{_segment(thread_id)}", {**(settings or {}), **fields})

    def delete_thread(self, thread_id: str) -> Any:
        return self._json("DELETE", f"/threads/{_segment(thread_id)}")

    def list_threads(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        prefix: str | None = None,
        order: str | None = None,
    ) -> Any:
        """One page of the tenant's threads, the most recently written first (or `order="id"`: by id), those whose
        id starts with `prefix`: the API's JSON (threads and the next cursor, if any)."""
        return self._json("GET", "/threads", query={"limit": limit, "cursor": cursor, "prefix": prefix, "order": order})

    def iter_threads(
        self, *, page_size: int | None = None, prefix: str | None = None, order: str | None = None
    ) -> Iterator[Any]:
        """Every thread of the tenant (the most recently written first, or by id), following the cursors."""
        return self._pages(
            lambda c: self.list_threads(limit=page_size, cursor=c, prefix=prefix, order=order), "threads"
        )

    def list_runs(
        self,
        thread_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        order: str | None = None,
        as_of_run: str | None = None,
    ) -> Any:
        """One page of runs: the API's JSON (runs and the next cursor, if any); `as_of_run`: of the thread as it
        was right after that run (pass it again with the cursor)."""
        query = {"limit": limit, "cursor": cursor, "order": order, "as_of_run": as_of_run}
        return self._json("GET", f"/threads/{_segment(thread_id)}/runs", query=query)

    def fork_thread(
        self,
        thread_id: str,
        *,
        after_run_id: str | None = None,
        new_thread_id: str | None = None,
        request_id: str | None = None,
    ) -> Any:
        """Fork the thread after `after_run_id` (default: its newest run) into `new_thread_id` (default: derived
        from `request_id`, or new): the fork reads the parent's runs up to there without a copy (ADR 0037).
        Returns `{thread_id, forked_from, through_seq, after_run_id, ancestry, kind, replayed}`; the same
        `request_id` again is a retry that answers the same fork."""
        fields = {"after_run_id": after_run_id, "thread_id": new_thread_id, "request_id": request_id}
        body = {k: v for k, v in fields.items() if v is not None}
        return self._json("POST", f"/threads/{_segment(thread_id)}/fork", body)

    def search_threads(
        self,
        query: str,
        *,
        thread_prefix: str | None = None,
        thread_ids: Sequence[str] | None = None,
        limit: int | None = None,
        mode: str | None = None,
        since: str | None = None,
        until: str | None = None,
        consistency: str | None = None,
        context: int | None = None,
    ) -> Any:
        """Search the tenant's conversations (runs and session items) by meaning and words (ADR 0049): in
        `thread_ids` and/or the threads under `thread_prefix` (neither: every thread; a fork's search covers its
        shared history), created in [`since`, `until`) (ISO times). Returns `{"hits": [{thread_id, seq, run_id |
        item_id, score, run | item, created_at, context?}]}`, best first; `context=n` adds the n runs before and
        after each hit; `consistency="search"` waits (bounded) until every write acknowledged before is searchable
        (`searchable`: False when the wait gave up, from the `X-Offprompt-Searchable` header)."""
        fields = {
            "query": query,
            "thread_prefix": thread_prefix,
            "thread_ids": list(thread_ids) if thread_ids is not None else None,
            "limit": limit,
            "mode": mode,
            "since": since,
            "until": until,
            "consistency": consistency,
            "context": context,
        }
        response = self.request("POST", "/threads/search", json_body={k: v for k, v in fields.items() if v is not None})
        body = response.json()
        searchable = response.headers.get("x-offprompt-searchable")
        if searchable is not None and isinstance(body, dict):
            body["searchable"] = searchable == "true"
        return body

    def iter_runs(self, thread_id: str, *, page_size: int | None = None, order: str | None = None) -> Iterator[Any]:
        """Every run of the thread, following the cursors page by page."""
        return self._pages(lambda c: self.list_runs(thread_id, limit=page_size, cursor=c, order=order), "runs")

    def all_runs(self, thread_id: str, *, page_size: int | None = None, order: str | None = None) -> list[Any]:
        return list(self.iter_runs(thread_id, page_size=page_size, order=order))

    # ------------------------------------------------------------- framework session items (ADR 0033)

    def add_items(self, thread_id: str, items: list[Any], *, request_id: str | None = None) -> Any:
        """Append framework session items (JSON objects) in order; the same `request_id` again is a retry (stored
        once). A thread holds runs or items, fixed at creation: the other kind is a 409 `thread_kind_mismatch`."""
        body: dict[str, Any] = {"items": [_to_dict(i) for i in items]}
        if request_id is not None:
            body["request_id"] = request_id
        return self._json("POST", f"/threads/{_segment(thread_id)}/items", body)

    def get_items(
        self, thread_id: str, *, limit: int | None = None, before: int | None = None, max_tokens: int | None = None
    ) -> Any:
        """The newest `limit` items (before seq `before`), or the newest that fit `max_tokens` (never a tool result
        without its call), oldest first: `{items, seqs, next_before, tokens}`."""
        query = {"limit": limit, "before": before, "max_tokens": max_tokens}
        return self._json("GET", f"/threads/{_segment(thread_id)}/items", query=query)

    def pop_item(self, thread_id: str) -> Any:
        """Remove the newest item and return `{item, seq}` (`item` None when there is none); atomic."""
        return self._json("POST", f"/threads/{_segment(thread_id)}/items/pop")

    # --------------------------------------------------------------------- extraction strategies (ADR 0051)

    def put_strategy(
        self,
        name: str,
        type: Literal["facts", "preferences", "summary", "custom"],
        namespace: str,
        *,
        after_runs: int | None = None,
        idle_seconds: int | None = None,
        instructions: str | None = None,
        enabled: bool | None = None,
    ) -> Any:
        """Create or replace the extraction strategy `name`: the stored strategy. `namespace` is a template of
        `/`-separated labels with `{actor_id}`, `{thread_id}`, `{strategy}`; the trigger: `after_runs` new runs,
        the newest `idle_seconds` old."""
        trigger = {k: v for k, v in {"after_runs": after_runs, "idle_seconds": idle_seconds}.items() if v is not None}
        body: dict[str, Any] = {"type": type, "namespace": namespace, "trigger": trigger}
        body.update({k: v for k, v in {"instructions": instructions, "enabled": enabled}.items() if v is not None})
        return self._json("PUT", f"/extraction/strategies/{_segment(name)}", body)

    def list_strategies(self) -> Any:
        """`{"strategies": [...]}`, by name."""
        return self._json("GET", "/extraction/strategies")

    def get_strategy(self, name: str) -> Any:
        return self._json("GET", f"/extraction/strategies/{_segment(name)}")

    def delete_strategy(self, name: str) -> None:
        """Delete the strategy (idempotent; the records it wrote stay)."""
        self.request("DELETE", f"/extraction/strategies/{_segment(name)}")

    def thread_extraction(self, thread_id: str) -> Any:
        """Where each strategy stands on the thread: `{"thread_id", "strategies": {name: {processed_through_seq,
        pending_runs, records_written, last_error, paused, enabled, updated_at}}}`."""
        return self._json("GET", f"/threads/{_segment(thread_id)}/extraction")

    # --------------------------------------------------------------------- long-term records (ADR 0034)

    def put_record(
        self,
        namespace: Sequence[str],
        key: str,
        value: Mapping[str, Any],
        *,
        index: Literal[False] | list[str] | None = None,
        ttl_minutes: float | None = None,
    ) -> Any:
        """Create or replace the record `(namespace, key)` (the old version stays in its history): the record.
        `index`: False (not searchable by text) or the field paths whose strings are indexed (default: all)."""
        body: dict[str, Any] = {"value": dict(value)}
        if index is not None:
            body["index"] = index
        if ttl_minutes is not None:
            body["ttl_minutes"] = ttl_minutes
        return self._json("PUT", _record_path(namespace, key), body)

    def get_record(
        self, namespace: Sequence[str], key: str, *, as_of: str | None = None, refresh_ttl: bool | None = None
    ) -> Any:
        """The current record (or the version valid at `as_of`, ISO 8601); 404 `record_not_found` otherwise."""
        query = {"as_of": as_of, "refresh_ttl": _flag(refresh_ttl)}
        return self._json("GET", _record_path(namespace, key), query=query)

    def delete_record(self, namespace: Sequence[str], key: str) -> None:
        """Delete the record (idempotent); the delete is a version of its history."""
        self.request("DELETE", _record_path(namespace, key))

    def record_history(self, namespace: Sequence[str], key: str) -> Any:
        """Every stored version of the record, newest first."""
        return self._json("GET", _record_path(namespace, key) + "/history")

    def search_records(
        self,
        namespace_prefix: Sequence[str] = (),
        *,
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        as_of: str | None = None,
        refresh_ttl: bool | None = None,
    ) -> Any:
        """Records under a namespace prefix: `{"items": [record + "score"]}` (BM25 with `query`, newest first
        without); `filter` on value fields (`{"f": v}` or `{"f": {"$gt": v}}`, ...; LangGraph's; `"a.b"` is the
        field `b` of the object at `a` unless the value has a field named `a.b`)."""
        fields = {
            "query": query,
            "filter": dict(filter) if filter is not None else None,
            "limit": limit,
            "offset": offset,
            "as_of": as_of,
            "refresh_ttl": refresh_ttl,
        }
        body = {"namespace_prefix": list(namespace_prefix), **{k: v for k, v in fields.items() if v is not None}}
        return self._json("POST", "/records/search", body)

    def list_record_namespaces(
        self,
        *,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Any:
        """The namespaces holding records: `{"namespaces": [[label, ...], ...]}`, sorted; prefix/suffix labels may
        be "*" (any one label), `max_depth` cuts them (deduplicated)."""
        fields = {
            "prefix": list(prefix) if prefix is not None else None,
            "suffix": list(suffix) if suffix is not None else None,
            "max_depth": max_depth,
            "limit": limit,
            "offset": offset,
        }
        return self._json("POST", "/records/namespaces", {k: v for k, v in fields.items() if v is not None})

    def configure_record_namespace(self, namespace: Sequence[str], *, default_ttl_minutes: float | None) -> Any:
        """The namespace's default TTL for puts that give none (None: no default)."""
        path = f"/record-namespaces/{_segment(_namespace_path(namespace))}"
        return self._json("PUT", path, {"default_ttl_minutes": default_ttl_minutes})

    # ------------------------------------------------------------ LangGraph checkpoints (ADR 0039)

    def put_checkpoint(
        self,
        thread_id: str,
        checkpoint_id: str,
        *,
        checkpoint: Mapping[str, Any],
        metadata: Mapping[str, Any],
        checkpoint_ns: str = "",
        parent_checkpoint_id: str | None = None,
    ) -> Any:
        """Store (or replace) a checkpoint: `checkpoint` is `{"type", "data"}` (data base64, the pair a LangGraph
        serializer's `dumps_typed` returns), `metadata` a JSON object. Answers `{thread_id, checkpoint_ns,
        checkpoint_id}`."""
        body = {
            "checkpoint_ns": checkpoint_ns,
            "parent_checkpoint_id": parent_checkpoint_id,
            "checkpoint": dict(checkpoint),
            "metadata": dict(metadata),
        }
        return self._json("PUT", f"{_checkpoint_thread_path(thread_id)}/checkpoints/{_segment(checkpoint_id)}", body)

    def put_checkpoint_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        *,
        task_id: str,
        writes: Sequence[Mapping[str, Any]],
        checkpoint_ns: str = "",
        task_path: str = "",
    ) -> Any:
        """Store a task's pending writes `[{"idx", "channel", "value": {"type", "data"}}]` on a checkpoint: a write
        with idx >= 0 already stored is kept, a special channel's (idx < 0) is replaced. Answers `{stored}`."""
        body = {"checkpoint_ns": checkpoint_ns, "task_id": task_id, "task_path": task_path, "writes": list(writes)}
        path = f"{_checkpoint_thread_path(thread_id)}/checkpoints/{_segment(checkpoint_id)}/writes"
        return self._json("PUT", path, body)

    def get_checkpoint(self, thread_id: str, *, checkpoint_ns: str = "", checkpoint_id: str | None = None) -> Any:
        """The checkpoint (the newest of the namespace without `checkpoint_id`) with its pending writes; 404
        `checkpoint_not_found` when there is none."""
        query = {"checkpoint_ns": checkpoint_ns or None, "checkpoint_id": checkpoint_id}  # "" is the default
        return self._json("GET", f"{_checkpoint_thread_path(thread_id)}/checkpoint", query=query)

    def list_checkpoints(
        self,
        thread_id: str,
        *,
        checkpoint_ns: str | None = None,
        before: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Any:
        """One page of the thread's checkpoints, newest first (every namespace when `checkpoint_ns` is None), those
        older than `before` whose metadata has `filter`'s values: `{checkpoints, next_cursor}`."""
        body = {
            "checkpoint_ns": checkpoint_ns,
            "before": before,
            "filter": dict(filter) if filter is not None else None,
            "limit": limit,
            "cursor": cursor,
        }
        return self._json("POST", f"{_checkpoint_thread_path(thread_id)}/checkpoints/list", body)

    def iter_checkpoints(
        self,
        thread_id: str,
        *,
        checkpoint_ns: str | None = None,
        before: str | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> Iterator[Any]:
        """Every matching checkpoint, newest first, following the cursors page by page."""
        return self._pages(
            lambda c: self.list_checkpoints(
                thread_id, checkpoint_ns=checkpoint_ns, before=before, filter=filter, cursor=c
            ),
            "checkpoints",
        )

    def delete_checkpoint_thread(self, thread_id: str) -> None:
        """Delete the thread's checkpoints and writes (idempotent); what a copy of it reads stays for the copy."""
        self.request("DELETE", _checkpoint_thread_path(thread_id))

    def copy_checkpoint_thread(self, thread_id: str, target_thread_id: str) -> Any:
        """Copy the thread into `target_thread_id` as a fork (no checkpoint is copied): `{thread_id, copied_from,
        through}`; 404 `checkpoint_thread_not_found`, 409 `checkpoint_thread_exists`."""
        body = {"target_thread_id": target_thread_id}
        return self._json("POST", f"{_checkpoint_thread_path(thread_id)}/copy", body)

    def prune_checkpoint_thread(self, thread_id: str, *, strategy: str = "keep_latest") -> Any:
        """`keep_latest`: only each namespace's newest checkpoint stays; `delete`: like delete_checkpoint_thread."""
        return self._json("POST", f"{_checkpoint_thread_path(thread_id)}/prune", {"strategy": strategy})

    # -------------------------------------------------------------------------------------- task memory

    @overload
    def process_output(
        self,
        memory_name: str,
        tool: str,
        activity: str,
        artifact: Any,
        *,
        actions: Any = ...,
        thought: str | None = ...,
        value_from: Mapping[str, str] | None = ...,
        consistency: Literal["load", "search"] | None = ...,
        raw: Literal[False] = ...,
    ) -> BaseArtifact: ...

    @overload
    def process_output(
        self,
        memory_name: str,
        tool: str,
        activity: str,
        artifact: Any,
        *,
        actions: Any = ...,
        thought: str | None = ...,
        value_from: Mapping[str, str] | None = ...,
        consistency: Literal["load", "search"] | None = ...,
        raw: Literal[True],
    ) -> dict[str, Any]: ...

    def process_output(
        self,
        memory_name: str,
        tool: str,
        activity: str,
        artifact: Any,
        *,
        actions: Any = None,
        thought: str | None = None,
        value_from: Mapping[str, str] | None = None,
        consistency: Literal["load", "search"] | None = None,
        raw: bool = False,
    ) -> BaseArtifact | dict[str, Any]:
        """Store a tool's output off-prompt; returns the InfoArtifact reference (or Griptape's other answers).

        It returns once the output is durable and loadable; a search finds its text within the index's refresh
        interval (1 s on a domain, 10-60 s on OpenSearch Serverless). `consistency="search"` returns only once a
        search finds it too (for a step that searches right after; ADR 0031).

        A request too large for Lambda (see `request_too_large`) goes through the uploads route automatically:
        a Text/Blob/Image/Audio artifact's value is PUT to S3 (presigned) and the request carries the envelope and
        `value_from`. `value_from` ({"upload_id": ...} from `create_upload`) may also be given explicitly.
        """
        decode = _artifact_decoder(raw)
        body: dict[str, Any] = {"tool": tool, "activity": activity, "artifact": _to_dict(artifact)}
        if value_from is not None:
            body["value_from"] = dict(value_from)
        if actions is not None:
            body["actions"] = [_to_dict(a) for a in actions] if isinstance(actions, list | tuple) else actions
        if thought is not None:
            body["thought"] = thought
        if consistency is not None:
            body["consistency"] = consistency
        encoded = json.dumps(body).encode("utf-8")
        if value_from is None and self.request_too_large(encoded):
            split = _split_value(body["artifact"])
            if split is not None:  # other kinds (a ListArtifact) are sent as they are: the API answers 413
                envelope, payload = split
                del encoded  # bounded memory: the value is held once as JSON, once as bytes
                ticket = self.upload(memory_name, payload)
                body["artifact"] = envelope
                body["value_from"] = {"upload_id": ticket["upload_id"]}
                encoded = json.dumps(body).encode("utf-8")
        path = f"/memories/{_segment(memory_name)}/outputs"
        response = self.request("POST", path, data=encoded, headers={"Content-Type": "application/json"})
        data = response.json()
        ref = response.headers.get("x-offprompt-ref")
        if ref and isinstance(data, dict) and isinstance(data.get("name"), str):
            if len(self._refs) >= MAX_KEPT_REFS:
                self._refs.pop(next(iter(self._refs)))
            self._refs[(memory_name, data["name"])] = ref
        return decode(data)

    def request_too_large(self, body: bytes) -> bool:
        """Whether a JSON request body would push the Lambda event past `max_request_bytes` (the event carries
        the body as a JSON string: every `"` and `\\` gains an escape)."""
        escaped = len(body) + body.count(b'"') + body.count(b"\\")
        return escaped + EVENT_OVERHEAD > self.max_request_bytes

    def create_upload(self, memory_name: str) -> Any:
        """A presigned S3 PUT for a value too large for a request body: `{upload_id, url, expires_in, headers,
        s3_uri}`. Upload with `upload_bytes`, then reference it with `process_output(..., value_from=...)`."""
        return self._json("POST", f"/memories/{_segment(memory_name)}/uploads", {})

    def upload_bytes(self, url: str, data: bytes, headers: Mapping[str, str] | None = None) -> int:
        """PUT `data` to a presigned URL (no API credentials are sent); returns the HTTP status."""
        # application/octet-stream, never urllib's default form type: S3 (and moto) would parse the body.
        sent = {"User-Agent": USER_AGENT, **(headers or {}), "Content-Type": "application/octet-stream"}
        request = urllib.request.Request(url, data=data, headers=sent, method="PUT")
        return self._send(request).status

    def upload(self, memory_name: str, data: bytes) -> Any:
        """create_upload + upload_bytes: returns the upload ticket once the bytes are in S3."""
        ticket = self.create_upload(memory_name)
        self.upload_bytes(ticket["url"], data, ticket.get("headers"))
        return ticket

    @overload
    def process_upload(
        self,
        memory_name: str,
        tool: str,
        activity: str,
        data: bytes | str,
        *,
        artifact: Mapping[str, Any] | None = ...,
        actions: Any = ...,
        thought: str | None = ...,
        raw: Literal[False] = ...,
    ) -> BaseArtifact: ...

    @overload
    def process_upload(
        self,
        memory_name: str,
        tool: str,
        activity: str,
        data: bytes | str,
        *,
        artifact: Mapping[str, Any] | None = ...,
        actions: Any = ...,
        thought: str | None = ...,
        raw: Literal[True],
    ) -> dict[str, Any]: ...

    def process_upload(
        self,
        memory_name: str,
        tool: str,
        activity: str,
        data: bytes | str,
        *,
        artifact: Mapping[str, Any] | None = None,
        actions: Any = None,
        thought: str | None = None,
        raw: bool = False,
    ) -> BaseArtifact | dict[str, Any]:
        """process_output for a value of any size: the bytes go to S3 by presigned PUT, the request carries
        only the artifact's envelope (`artifact`: type, name, meta, ...; default a BlobArtifact) and a
        reference. `str` data is sent as UTF-8 (use a TextArtifact envelope for text)."""
        decode = _artifact_decoder(raw)
        payload = data.encode("utf-8") if isinstance(data, str) else data
        ticket = self.upload(memory_name, payload)
        envelope = dict(artifact or {"type": "BlobArtifact"})
        data_out = self.process_output(
            memory_name,
            tool,
            activity,
            envelope,
            actions=actions,
            thought=thought,
            value_from={"upload_id": ticket["upload_id"]},
            raw=True,
        )
        return decode(data_out)

    @overload
    def load_artifacts(self, memory_name: str, namespace: str, *, raw: Literal[False] = ...) -> ListArtifact: ...

    @overload
    def load_artifacts(self, memory_name: str, namespace: str, *, raw: Literal[True]) -> dict[str, Any]: ...

    def load_artifacts(self, memory_name: str, namespace: str, *, raw: bool = False) -> ListArtifact | dict[str, Any]:
        """Everything the namespace holds, as a ListArtifact, byte-exact; large answers come from S3: a text
        namespace's JSON through the 303's presigned GET, a blob namespace's bytes through the presigned GETs of
        a `BlobDownloads` answer (rebuilt here into the ListArtifact JSON the API would have sent inline)."""
        decode = _artifact_decoder(raw)
        path = f"/memories/{_segment(memory_name)}/namespaces/{_segment(namespace)}/artifacts"
        ref = self._refs.get((memory_name, namespace))
        if ref is not None:
            path += "?" + urllib.parse.urlencode({"ref": ref})
        response = self.request("GET", path)
        data = response.json() if response.status != 303 else None
        location = response.headers.get("location") if response.status in (301, 302, 303, 307, 308) else None
        if isinstance(data, dict) and data.get("type") == "BlobDownloads":
            return decode(self._blob_downloads(data))
        if location is None and isinstance(data, dict) and data.get("type") != "ListArtifact":
            location = data.get("download_url")
        if location:
            data = self._download(location).json()
        return decode(data)

    def _download(self, url: str) -> Response:
        """GET a presigned S3 URL: no API credentials, no tenant header."""
        return self._send(urllib.request.Request(url, headers={"User-Agent": USER_AGENT}, method="GET"))

    def _blob_downloads(self, listing: dict[str, Any]) -> dict[str, Any]:
        """The ListArtifact JSON a `BlobDownloads` answer stands for: each artifact's envelope with `value` = the
        padded standard base64 of its downloaded bytes (what Griptape's BlobArtifact JSON holds), in order."""
        items = [
            {**entry["artifact"], "value": base64.b64encode(self._download(entry["download_url"]).body).decode("ascii")}
            for entry in listing.get("artifacts") or []
        ]
        return _list_artifact_json(items)

    def list_namespaces(self, memory_name: str, *, limit: int | None = None, cursor: str | None = None) -> Any:
        """One page of the memory's namespaces with their metadata: `{namespaces, next_cursor}`."""
        query = {"limit": limit, "cursor": cursor}
        return self._json("GET", f"/memories/{_segment(memory_name)}/namespaces", query=query)

    def iter_namespaces(self, memory_name: str, *, page_size: int | None = None) -> Iterator[Any]:
        return self._pages(lambda c: self.list_namespaces(memory_name, limit=page_size, cursor=c), "namespaces")

    def get_namespace(self, memory_name: str, namespace: str) -> Any:
        return self._json("GET", f"/memories/{_segment(memory_name)}/namespaces/{_segment(namespace)}")

    def delete_namespace(self, memory_name: str, namespace: str) -> Any:
        self._refs.pop((memory_name, namespace), None)
        return self._json("DELETE", f"/memories/{_segment(memory_name)}/namespaces/{_segment(namespace)}")

    def meta(self, memory_name: str, *, limit: int | None = None, cursor: str | None = None) -> Any:
        """One page of the memory's meta entries ({thought, actions, answer} per stored output)."""
        query = {"limit": limit, "cursor": cursor}
        return self._json("GET", f"/memories/{_segment(memory_name)}/meta", query=query)

    def iter_meta(self, memory_name: str, *, page_size: int | None = None) -> Iterator[Any]:
        return self._pages(lambda c: self.meta(memory_name, limit=page_size, cursor=c), "entries")

    @staticmethod
    def _pages(fetch: Callable[[str | None], Any], key: str) -> Iterator[Any]:
        cursor: str | None = None
        while True:
            page = fetch(cursor)
            yield from page.get(key) or []
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def search(
        self, memory_name: str, namespace: str, query: str, *, top_k: int | None = None, mode: str | None = None
    ) -> Any:
        """Search the namespace's text (mode bm25, knn or hybrid)."""
        body = {k: v for k, v in {"query": query, "top_k": top_k, "mode": mode}.items() if v is not None}
        path = f"/memories/{_segment(memory_name)}/namespaces/{_segment(namespace)}/search"
        return self._json("POST", path, body)


def _namespace_path(namespace: Sequence[str]) -> str:
    """A record namespace's path form, one URL segment: its labels joined by "." (a label never holds one)."""
    if isinstance(namespace, str):
        raise ValueError(f"a namespace is a sequence of labels, not the string {namespace!r}")
    labels = list(namespace)
    if not labels or any(not isinstance(label, str) or not label or "." in label for label in labels):
        raise ValueError(f'a namespace is 1 or more non-empty labels without ".", not {namespace!r}')
    return ".".join(labels)


def _record_path(namespace: Sequence[str], key: str) -> str:
    return f"/records/{_segment(_namespace_path(namespace))}/{_segment(key)}"


def _checkpoint_thread_path(thread_id: str) -> str:
    return f"/checkpoint-threads/{_segment(thread_id)}"


def _flag(value: bool | None) -> str | None:
    return None if value is None else ("true" if value else "false")


def _split_value(artifact: Any) -> tuple[dict[str, Any], bytes] | None:
    """An artifact dict as (envelope without the value, the value's bytes) when the API accepts it by reference:
    UTF-8 text for TextArtifact, the decoded base64 for Blob/Image/Audio artifacts; None otherwise."""
    if not isinstance(artifact, dict) or artifact.get("type") not in _BY_REFERENCE:
        return None
    value = artifact.get("value")
    if not isinstance(value, str):
        return None
    try:
        payload = value.encode("utf-8") if artifact["type"] == "TextArtifact" else base64.b64decode(value)
    except (UnicodeEncodeError, ValueError):  # lone surrogates, not base64: send inline
        return None
    return {k: v for k, v in artifact.items() if k != "value"}, payload


def _list_artifact_json(items: list[dict[str, Any]]) -> dict[str, Any]:
    """A fresh ListArtifact's JSON around artifact dicts, as Griptape's `ListArtifact(items).to_dict()` writes it
    (keys in Griptape's order, a new id that is also its name), and as the API answers a load inline."""
    artifact_id = uuid.uuid4().hex
    return {
        "type": "ListArtifact",
        "id": artifact_id,
        "reference": None,
        "meta": {},
        "name": artifact_id,
        "value": items,
        "item_separator": "\n\n",
        "validate_uniform_types": False,
    }


def _artifact_decoder(raw: bool) -> Callable[[Any], Any]:
    """How an artifact answer is returned: as parsed (raw), or decoded into Griptape's artifact classes. Called
    before the request, so that a missing `griptape` extra fails without anything being sent or stored."""
    if raw:
        return _as_is
    with _griptape_needed():
        from griptape.artifacts import BaseArtifact

    def decode(data: Any) -> Any:
        return BaseArtifact.from_dict(data) if isinstance(data, dict) and "type" in data else data

    return decode


def _prompt_stack_decoder(raw: bool) -> Callable[[Any], Any]:
    """A prompt stack answer as a dict (raw) or Griptape's PromptStack; called before the request, as above."""
    if raw:
        return dict
    with _griptape_needed():
        from griptape.common import PromptStack
    return PromptStack.from_dict


@contextmanager
def _griptape_needed() -> Iterator[None]:
    """Turns Griptape's absence into an ImportError naming the extra (any other missing module propagates)."""
    try:
        yield
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] != "griptape":
            raise
        raise ImportError(NEEDS_GRIPTAPE, name="griptape") from None


def _as_is(data: Any) -> Any:
    return data


def _error_from(response: Response) -> OffpromptClientError:
    body: Any
    try:
        body = response.json()
    except ValueError:
        body = response.body.decode("utf-8", "replace")
    if isinstance(body, dict):
        code = str(body.get("code") or f"http_{response.status}")
        message = str(body.get("message") or body.get("Message") or "")
    else:
        code = f"http_{response.status}"
        message = str(body)[:500]
    return OffpromptClientError(response.status, code, message, body)
