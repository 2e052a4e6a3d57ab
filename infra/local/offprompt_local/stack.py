"""The whole offprompt stack on 127.0.0.1 (`make dev`): `python -m offprompt_local.stack [--port N]`.

1. binds the API port first (3000, or OFFPROMPT_PORT / --port), so a taken port fails fast and clearly, but
   listens on it only once everything below is ready: until then a connection is refused, never left hanging;
2. starts moto's server (DynamoDB + S3; a free port, or OFFPROMPT_MOTO_PORT) behind the local substrate
   (atomic, O(items touched), durable: `offprompt_local.substrate`) and creates the table and the bucket from
   template.yaml's own definitions unless a previous run left them in the data directory;
3. starts the local OpenSearch node (or uses OPENSEARCH_URL) and creates the text index;

State lives in the data directory (`.offprompt/` in the repository root, or OFFPROMPT_DATA_DIR) and survives
restarts; `--fresh` (`make dev FRESH=1`) starts empty. Damaged local data (anything but a torn last journal
record) stops the start and is left untouched; `--salvage` (`make dev SALVAGE=1`) keeps a copy of the damaged
files and starts with what is intact (docs/adr/0029-local-data-integrity.md).
4. sets the environment the handlers read (the same OFFPROMPT_* settings template.yaml sets, plus
   AWS_ENDPOINT_URL pointing every boto3 client at moto, fake credentials and Powertools settings);
5. serves the HTTP API (payload v2 events into the real handlers) until Ctrl-C or SIGTERM, then stops the
   server, moto and the JVM, leaving no process behind. Meanwhile a watchdog thread restarts the local
   OpenSearch JVM if it dies (same URL, index re-created; not for an external OPENSEARCH_URL node).

Bedrock is not reachable locally, so summary memory runs with a clearly labelled deterministic extractive
summarizer when the library lets one be injected (see `configure_summaries`); otherwise it is inert. Embeddings
(k-NN and hybrid search) use labelled stand-ins for Titan: all-MiniLM-L6-v2 for conversation search, wordllama for
task memory and records (see `configure_embeddings`; OFFPROMPT_LOCAL_EMBEDDER=wordllama uses wordllama everywhere,
=off leaves search BM25-only). The memory events go to a labelled
local JSONL sink instead of EventBridge, read at `GET /local/events` (memory_events.py).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import json
import logging
import os
import signal
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from . import console
from .datadir import CONNECTION_FILE, REPO_ROOT, DataDir, DataDirBusy, data_dir_from_env
from .devserver import DEFAULT_HOST, DevServer, port_from_env
from .guard import TouchesDeveloperStack

MOTO_PORT_ENV = "OFFPROMPT_MOTO_PORT"
#: The handler settings local tools need to act on the stack's data as the functions do.
CONNECTION_ENVIRONMENT = (
    "OFFPROMPT_TABLE",
    "OFFPROMPT_BUCKET",
    "OFFPROMPT_OPENSEARCH_URL",
    "OFFPROMPT_OPENSEARCH_INDEX",
    "OFFPROMPT_OPENSEARCH_AUTH",
    "OFFPROMPT_OPENSEARCH_MODE",
    "OFFPROMPT_EMBEDDING_DIMENSIONS",
)
TABLE_NAME = "offprompt-local"
BUCKET_NAME = "offprompt-local"
DEFAULT_INDEX = "offprompt-text"
REGION = "us-east-1"
#: The watchdog's retry interval grows to this after failed restarts of the OpenSearch node.
WATCHDOG_MAX_BACKOFF_S = 30.0
#: How long stop() waits for a watchdog that is in the middle of a restart.
STOP_WATCHDOG_TIMEOUT_S = 200.0
#: How long an idle stream poller waits for a write before it reads the stream anyway (a safety net: every
#: write goes through the substrate, which nudges the pollers).
IDLE_POLL_S = 2.0

#: Fixed settings of the local stack (the deployed stack gets these from template.yaml and IAM).
BASE_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    "POWERTOOLS_SERVICE_NAME": "offprompt",
    "POWERTOOLS_METRICS_NAMESPACE": "offprompt",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
}
#: Host settings that would point boto3 at a real account or profile; removed from the stack's environment.
REMOVED_ENVIRONMENT = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN")


class StackError(RuntimeError):
    """The stack could not start; the message says why and what to do."""


def _say(message: str) -> None:
    print(f"[stack] {message}", flush=True)


# ---------------------------------------------------------------------------------------- summaries


class LocalExtractiveSummarizer:
    """LOCAL STAND-IN for Bedrock (the `Summarizer` port): deterministic, extractive, no model.

    It keeps the previous summary (from Griptape's update prompt) whole and adds the first sentence of each
    `Human:` / `Assistant:` line after it, prefixed once with a label so nobody mistakes it for a model's
    summary. Past `max_chars` the oldest part is dropped. Never used outside the local stack.
    """

    LABEL = "[local extractive summary, not a model]"
    _FENCE = '"""'

    def __init__(self, max_chars: int = 1200) -> None:
        self.max_chars = max_chars

    def summarize(self, prompt: str) -> str:
        previous, rest = "", prompt
        if prompt.startswith("Conversation summary:") and prompt.count(self._FENCE) >= 2:
            _, previous, rest = prompt.split(self._FENCE, 2)
            previous = " ".join(previous.replace(self.LABEL, " ").split())
        picked: list[str] = [previous] if previous else []
        for line in rest.splitlines():
            text = line.strip()
            if not text.startswith(("Human:", "Assistant:")):
                continue  # Griptape's instructions, blank lines
            sentence = text.split(". ", 1)[0].rstrip(".").strip()
            if sentence and sentence not in picked:
                picked.append(sentence)
        body = ". ".join(picked)
        if len(body) > self.max_chars:
            body = "... " + body[-self.max_chars :].split(" ", 1)[-1]
        return f"{self.LABEL} {body}".strip()


#: Where the conversation service may expose a summarizer override for the local stack: (module, attribute).
SUMMARIZER_HOOKS: tuple[tuple[str, str], ...] = (("offprompt.composition.conversation", "set_summarizer_override"),)


def configure_summaries() -> str:
    """Install the local summarizer if the library offers a hook; return a one-line description."""
    for module_name, attribute in SUMMARIZER_HOOKS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        hook = getattr(module, attribute, None)
        if callable(hook):
            hook(LocalExtractiveSummarizer())
            return f"local extractive summarizer (deterministic stand-in for Bedrock, via {module_name}.{attribute})"
    os.environ["OFFPROMPT_SUMMARIZE_MODE"] = "off"
    return "off (Bedrock is not reachable locally and the library has no summarizer hook)"


# ------------------------------------------------------------------------------------------- embeddings

#: Where the task-memory service may expose an embedder override for the local stack: (module, attribute).
EMBEDDER_HOOKS: tuple[tuple[str, str], ...] = (
    ("offprompt.composition.task_memory", "set_embedder_override"),
    ("offprompt.composition.records", "set_embedder_override"),
    ("offprompt.composition.conversation_index", "set_embedder_override"),
)
#: The hook whose store is conversation search: with the default choice it gets MiniLM, the others wordllama.
CONVERSATION_HOOK = "offprompt.composition.conversation_index"
#: "minilm" (default: MiniLM for conversation search, wordllama for the rest), "wordllama" (wordllama everywhere,
#: 256-d: an index built before docs/adr/0070) or "off" (no embedder: BM25 search only, as a deployed stack without
#: EmbeddingModelId).
LOCAL_EMBEDDER_ENV = "OFFPROMPT_LOCAL_EMBEDDER"
LOCAL_EMBEDDERS = ("minilm", "wordllama", "off")
WORDLLAMA_DIMENSIONS = 256


def configure_embeddings(index_dimension: int | None = None, *, warm: bool = False) -> str:
    """Install the local embedders through the library's hooks; return a one-line description.

    Default: conversation search embeds with all-MiniLM-L6-v2 (384-d, offprompt_local.minilm); task memory and
    records with wordllama (256-d, fast on 100 KB texts) zero-padded to 384, so the one index holds both (docs/adr/
    0070). An existing index of wordllama's 256-d vectors (`index_dimension`: a data directory made before that)
    keeps wordllama everywhere unless OFFPROMPT_LOCAL_EMBEDDER says otherwise. Sets OFFPROMPT_EMBEDDING_DIMENSIONS to
    the index's width, so the settings the handlers read agree with it. `warm`: load MiniLM's weights now.
    """
    asked = (os.environ.get(LOCAL_EMBEDDER_ENV) or "").strip().lower()
    kept = not asked and index_dimension == WORDLLAMA_DIMENSIONS
    choice = asked or ("wordllama" if kept else "minilm")
    if choice == "off":
        return f"off ({LOCAL_EMBEDDER_ENV}=off): search is BM25 only"
    if choice not in LOCAL_EMBEDDERS:
        raise StackError(f"{LOCAL_EMBEDDER_ENV} must be one of {', '.join(LOCAL_EMBEDDERS)}, not {choice!r}")
    from .embedder import LocalWordLlamaEmbedder, WordLlamaUnavailable, model_files

    try:
        model_files()
    except WordLlamaUnavailable as exc:
        return f"off ({exc}): search is BM25 only"
    conversations: Any = None
    if choice == "minilm":
        from .minilm import LocalMiniLmEmbedder, MiniLmUnavailable, model_dir, padded

        try:
            model_dir()
        except MiniLmUnavailable as exc:
            raise StackError(f"{exc}; or set {LOCAL_EMBEDDER_ENV}=wordllama") from exc
        conversations = LocalMiniLmEmbedder()
        if warm:
            conversations.model  # noqa: B018 (the property loads the weights)
        others: Any = padded(LocalWordLlamaEmbedder(), conversations.dimensions)
    else:
        others = LocalWordLlamaEmbedder()
    installed = False
    for module_name, attribute in EMBEDDER_HOOKS:  # every store that searches gets one
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        hook = getattr(module, attribute, None)
        if callable(hook):
            hook(conversations if conversations is not None and module_name == CONVERSATION_HOOK else others)
            installed = True
    if not installed:
        return "off (the library has no embedder hook): search is BM25 only"
    os.environ["OFFPROMPT_EMBEDDING_DIMENSIONS"] = str(others.dimensions)
    if conversations is None:
        why = " (the index holds 256-d vectors, made before ADR 0070: --fresh or another index for MiniLM)"
        return f"{others.LABEL}: bm25, knn and hybrid search{why if kept else ''}"
    return f"conversation search: {conversations.LABEL}; task memory and records: {others.LABEL}"


def reset_embeddings() -> None:
    """Remove the local embedder again (an in-process stack that stops leaves the library as it found it)."""
    for module_name, attribute in EMBEDDER_HOOKS:
        module = sys.modules.get(module_name)
        hook = getattr(module, attribute, None) if module is not None else None
        if callable(hook):
            hook(None)


# -------------------------------------------------------------------------------------------- stack


@dataclass
class LocalStack:
    api_port: int
    moto_port: int = 0
    index: str = DEFAULT_INDEX
    log: Callable[[str], None] = _say
    api_url: str | None = None
    moto_url: str | None = None
    opensearch_url: str | None = None
    summaries: str = ""
    embeddings: str = ""
    events: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    #: How often the watchdog checks that the local OpenSearch JVM is alive (seconds).
    watchdog_interval: float = 1.0
    #: Where tables, objects and the index live across restarts; None keeps everything in memory.
    data_dir: Path | None = None
    #: Delete what `data_dir` holds before starting (`make dev FRESH=1`).
    fresh: bool = False
    #: Start from what is intact in damaged local data, keeping a copy of the damaged files (`make dev SALVAGE=1`).
    salvage: bool = False
    _data: DataDir | None = None
    _server: DevServer | None = None
    _moto: Any = None
    _opensearch: Any = None
    #: OFFPROMPT_OPENSEARCH_MODE=serverless: the Serverless-faithful layer in front of the node (aoss_proxy).
    _aoss: Any = None
    _watchdog: threading.Thread | None = None
    #: The memory events: the table's stream through the events function into a JSONL sink (memory_events.py).
    _events_poller: Any = None
    _events_sink: Any = None
    #: The conversation index (docs/adr/0048): the same stream through the indexer function into OpenSearch.
    _index_poller: Any = None
    _stopping: threading.Event = field(default_factory=threading.Event)
    _opensearch_lock: threading.Lock = field(default_factory=threading.Lock)
    #: One boto3 session for the stack's own clients: its loader reads each service's model once (a session each
    #: read them again, ~0.2 s of CPU a client at boot).
    _session: Any = None
    _session_lock: threading.Lock = field(default_factory=threading.Lock)

    # --- lifecycle

    def start(self) -> None:
        started = time.monotonic()
        with self._timed("api port"):
            self._bind_api()
        self._open_data_dir()
        os.environ.update(BASE_ENVIRONMENT)
        for name in REMOVED_ENVIRONMENT:
            os.environ.pop(name, None)
        # The JVM takes the longest to boot: start it first and set up moto while it comes up.
        opensearch_failure: list[BaseException] = []

        def boot_opensearch() -> None:
            try:
                with self._timed("opensearch"):
                    self._start_opensearch()
            except BaseException as exc:
                opensearch_failure.append(exc)

        booting = threading.Thread(target=boot_opensearch, name="opensearch-boot", daemon=True)
        booting.start()
        try:
            with self._timed("moto"):
                self._start_moto()
            with self._timed("table+bucket"):
                self._create_resources()
        finally:
            booting.join()
        if opensearch_failure:
            raise opensearch_failure[0]
        self._set_handler_environment()
        with self._timed("tokenizer"):
            # The stack is one long-lived warm environment: add-run counts every run (docs/adr/0040)
            from offprompt.adapters.tokenizer import get_encoding

            get_encoding("cl100k_base")
        self.summaries = configure_summaries()
        with self._timed("embedder"):
            # Loaded now, not on the first run the index embeds (~0.3 s, seconds on a busy machine): a search with
            # `consistency: "search"` right after the stack starts waits for indexing, not for a model's load.
            self.embeddings = configure_embeddings(index_dimension=self._index_dimension(), warm=True)
        with self._timed("events"):
            self._start_events()
        with self._timed("index"):
            self._ensure_index()
        if self._moto.loaded is not None and self._moto.loaded.salvaged_to is not None:
            self._report_salvage()
        self._start_watchdog()
        self._write_connection()
        self._listen()
        self.timings["total"] = time.monotonic() - started

    def serve_forever(self) -> None:
        assert self._server is not None
        self._server.serve_forever(poll_interval=0.2)

    def stop(self) -> None:
        self._stop_watchdog()
        if self._events_poller is not None:
            _stop_quietly("the memory events' poller", self._events_poller.stop)
            self._events_poller = None
        if self._index_poller is not None:
            _stop_quietly("the conversation index's poller", self._index_poller.stop)
            self._index_poller = None
        if self._events_sink is not None:
            from .memory_events import uninstall_sink

            _stop_quietly("the memory events' deliveries", self._events_sink.close)
            uninstall_sink()
            self._events_sink = None
        if self._server is not None:
            _stop_quietly("the API server", self._server.server_close)
            self._server = None
        if self._moto is not None:
            _stop_quietly("moto", self._moto.stop)
            self._moto = None
        with self._opensearch_lock:  # not while the watchdog is restarting the node
            if self._opensearch is not None:
                self._opensearch.stop()
                self._opensearch = None
        if self._aoss is not None:
            self._aoss.stop()
            self._aoss = None
        reset_embeddings()
        if self._data is not None:
            with contextlib.suppress(OSError):
                (self._data.root / CONNECTION_FILE).unlink()
            self._data.release()
            self._data = None

    @contextlib.contextmanager
    def _timed(self, step: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.timings[step] = time.monotonic() - started

    # --- steps

    def _bind_api(self) -> None:
        try:
            self._server = DevServer(DEFAULT_HOST, self.api_port, listen=False)
        except OSError as exc:
            raise self._port_error(self.api_port, exc) from None
        except TouchesDeveloperStack as exc:
            raise StackError(str(exc)) from None
        self.api_url = self._server.url
        self.log(f"API port bound: {self.api_url} (connections are refused until the stack is ready)")

    def _listen(self) -> None:
        """Accept connections from now on (the last step of `start`: everything they reach is up)."""
        assert self._server is not None
        try:
            self._server.activate()
        except OSError as exc:
            raise self._port_error(int(self._server.server_address[1]), exc) from None

    @staticmethod
    def _port_error(port: int, exc: OSError) -> StackError:
        if exc.errno == errno.EADDRINUSE:
            return StackError(
                f"port {port} on {DEFAULT_HOST} is already in use (another `make dev`?). "
                f"Stop that process or choose another port: OFFPROMPT_PORT=3001 make dev"
            )
        return StackError(f"cannot listen on {DEFAULT_HOST}:{port}: {exc.strerror}")

    def _open_data_dir(self) -> None:
        if self.data_dir is None:
            return
        data = DataDir(self.data_dir)
        try:
            data.acquire()
        except (DataDirBusy, TouchesDeveloperStack) as exc:
            raise StackError(str(exc)) from None
        self._data = data
        if self.fresh:
            data.wipe()
            self.log(f"FRESH: emptied {data.root}")
        self.log(f"data directory: {data.root}")

    def _start_moto(self) -> None:
        from .substrate import AtomicMotoServer, DataDamaged, StoreError

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one access-log line per AWS call otherwise
        self.log("starting moto (DynamoDB, S3) behind the local substrate" + (" (SALVAGE)" if self.salvage else ""))
        store = self._data.moto if self._data is not None else None
        self._moto = AtomicMotoServer(
            ip_address=DEFAULT_HOST, port=self.moto_port, data_dir=store, salvage=self.salvage
        )
        try:
            self._moto.start()
        except DataDamaged as exc:
            self._moto = None
            raise StackError(f"the local data is damaged. {exc}") from None
        except (OSError, StoreError) as exc:
            self._moto = None
            raise StackError(f"cannot start moto on {DEFAULT_HOST}:{self.moto_port}: {exc}") from None
        host, port = self._moto.get_host_and_port()
        self.moto_url = f"http://{host}:{port}"
        loaded = f" (restored {self._moto.loaded.describe()})" if self._moto.loaded is not None else ""
        self.log(f"moto is up at {self.moto_url}{loaded}")
        if self.salvage and self._moto.loaded is not None and self._moto.loaded.salvaged_to is None:
            self.log("SALVAGE: nothing to salvage, the data directory is intact")

    def _report_salvage(self) -> None:
        """After a salvage that dropped something: what it means for the data the handlers keep elsewhere, and
        the deletes the dropped records cut off (each finished by repeating it)."""
        self.log(
            "SALVAGE: the OpenSearch index keeps its own data and is not rolled back with DynamoDB and S3: checking "
            "that every text namespace the table holds still has its text there."
        )
        unfinished = unfinished_deletes(self._client("dynamodb"), TABLE_NAME)
        for request in unfinished:
            self.log(f"SALVAGE: a delete was cut off; finish it by repeating it: {request}")
        for line in reconcile_text_namespaces(self._client("dynamodb"), TABLE_NAME):
            self.log(f"SALVAGE: {line}")

    def _client(self, service: str) -> Any:
        import boto3

        with self._session_lock:  # a boto3 session is not thread-safe; its clients are
            if self._session is None:
                self._session = boto3.session.Session(region_name=REGION)
            return self._session.client(service, endpoint_url=self.moto_url)

    def _create_resources(self) -> None:
        from .resources import create_bucket, create_table

        dynamodb = self._client("dynamodb")
        if create_table(dynamodb, TABLE_NAME, exist_ok=True):
            # (no "indexed" marker: a tenant is indexed by its own first export or erase, docs/adr/0043)
            self.log(f"DynamoDB table {TABLE_NAME!r} created from template.yaml")
        else:
            self.log(f"DynamoDB table {TABLE_NAME!r} found in the data directory")
        if create_bucket(self._client("s3"), BUCKET_NAME, exist_ok=True):
            self.log(f"S3 bucket {BUCKET_NAME!r} created from template.yaml")
        else:
            self.log(f"S3 bucket {BUCKET_NAME!r} found in the data directory")

    def _start_events(self) -> None:
        """The memory events (docs/adr/0036): the events function, fed by a poller of moto's stream, publishing
        to a JSONL sink in the data directory; `GET /local/events` on the dev server reads it (local only)."""
        from .devserver import HttpResult
        from .lambda_isolation import isolate_lambda_environments
        from .memory_events import (
            StreamPoller,
            events_handler,
            function_handler,
            install_example_extractor,
            install_extraction,
            install_sink,
        )

        isolate_lambda_environments()  # the pollers and the queue run functions on threads of their own
        sink = install_sink(self._data.root if self._data is not None else None, self.log)
        self._events_sink = sink
        extractor = install_example_extractor(sink)
        extractor += "; " + install_extraction(sink, self.log)
        # Each poller reads the stream every 0.2 s while it has records; idle, it waits for the substrate's word
        # that the table was written (at most IDLE_POLL_S), instead of asking an empty stream 5 times a second.
        poller = StreamPoller(
            self._client("dynamodb"),
            self._client("dynamodbstreams"),
            TABLE_NAME,
            events_handler(),
            idle_interval=IDLE_POLL_S,
            log=self.log,
        )
        poller.start()
        self._events_poller = poller
        # The conversation index's function on the same stream, as its own event source mapping runs it: a run
        # added over HTTP is searchable once its record is read and the index refreshed (1 s).
        indexer = StreamPoller(
            self._client("dynamodb"),
            self._client("dynamodbstreams"),
            TABLE_NAME,
            function_handler("conversation_index"),
            idle_interval=IDLE_POLL_S,
            log=self.log,
            label="conversation index",
        )
        indexer.start()
        self._index_poller = indexer
        assert self._moto is not None
        self._moto.on_write(poller.nudge)
        self._moto.on_write(indexer.nudge)

        def local_events() -> HttpResult:
            body = json.dumps({"events": sink.read(), "sink": sink.LABEL}).encode()
            return HttpResult(200, [("Content-Type", "application/json")], body)

        assert self._server is not None
        self._server.documents["/local/events"] = local_events
        self.events = f"{sink.LABEL}: {sink.path} (GET /local/events); {extractor}"

    def _start_opensearch(self) -> None:
        from .opensearch import LocalOpenSearch, OpenSearchError

        self._opensearch = LocalOpenSearch(home=self._data.opensearch if self._data is not None else None)
        if not self._opensearch.external:
            self.log("starting the local OpenSearch node (first run resolves the jars; about 20-60 s)")
        try:
            self.opensearch_url = self._opensearch.start()
        except OpenSearchError as exc:
            raise StackError(f"OpenSearch did not start: {str(exc).splitlines()[0]}") from None
        self.log(f"OpenSearch is up at {self.opensearch_url}")
        if os.environ.get("OFFPROMPT_OPENSEARCH_MODE") == "serverless":
            from .aoss_proxy import ServerlessProxy

            self._aoss = ServerlessProxy(self.opensearch_url, log=self.log)
            self.opensearch_url = self._aoss.start()
            self.log(
                f"OpenSearch Serverless mode: the handlers use the Serverless-faithful layer at {self.opensearch_url}"
            )

    def _write_connection(self) -> None:
        """`<data dir>/stack.json`: where this stack's API, moto, table, bucket and index are, for local tools
        (`python -m offprompt_admin --local ...`); removed when the stack stops."""
        if self._data is None:
            return
        info = {
            "api_url": self.api_url,
            "aws_endpoint_url": self.moto_url,
            "environment": {k: os.environ[k] for k in CONNECTION_ENVIRONMENT if k in os.environ},
        }
        (self._data.root / CONNECTION_FILE).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")

    def _token_secret(self) -> str:
        """The secret short-lived tokens are signed with (ADR 0055): the environment's, else one generated in the data
        directory on first start (kept, so tokens outlive a restart), else one for this process."""
        import secrets

        if os.environ.get("OFFPROMPT_TOKEN_SECRET"):
            return os.environ["OFFPROMPT_TOKEN_SECRET"]
        if self._data is None:
            return secrets.token_urlsafe(48)
        path = self._data.root / "token-secret"
        if not path.exists():
            path.touch(mode=0o600)
            path.write_text(secrets.token_urlsafe(48), encoding="utf-8")
        return path.read_text(encoding="utf-8").strip()

    def _set_handler_environment(self) -> None:
        assert self.moto_url is not None and self.opensearch_url is not None
        os.environ.update(
            {
                "AWS_ENDPOINT_URL": self.moto_url,
                "OFFPROMPT_TABLE": TABLE_NAME,
                "OFFPROMPT_BUCKET": BUCKET_NAME,
                "OFFPROMPT_OPENSEARCH_URL": self.opensearch_url,
                "OFFPROMPT_OPENSEARCH_INDEX": self.index,
                "OFFPROMPT_OPENSEARCH_AUTH": "none",
                "OFFPROMPT_SUMMARIZE_MODE": "inline",
                "OFFPROMPT_TRUST_TENANT_HEADER": "1",
                "OFFPROMPT_TOKEN_SECRET": self._token_secret(),
                # the dev server's own origins (it refuses every other one first): the MCP function's setting
                "OFFPROMPT_MCP_ALLOWED_ORIGINS": ",".join(self._server.own_origins() if self._server else ()),
            }
        )

    def _ensure_index(self, *, quiet: bool = False) -> None:
        """Create the text index through the text store's own `ensure_index()`, built as the service builds it."""
        from offprompt.config import load_settings

        try:
            from offprompt.composition.task_memory import text_store_from_settings

            store = text_store_from_settings(load_settings(os.environ))
        except ImportError as exc:
            self.log(f"the text store is not importable ({exc}); the index is left to the handlers")
            return
        ensure = getattr(store, "ensure_index", None)
        if not callable(ensure):
            self.log("the text store has no ensure_index(); the index is left to the handlers")
            return
        ensure()
        if not quiet:
            self.log(f"OpenSearch index {self.index!r} ready")
            self._check_index_dimension(store)

    def _index_dimension(self) -> int | None:
        """The width of the vectors the stack's existing index holds (None: no index, or none readable)."""
        url = os.environ.get("OFFPROMPT_OPENSEARCH_URL")
        if not url:
            return None
        try:
            address = f"{url.rstrip('/')}/{urllib.parse.quote(self.index)}/_mapping"
            with urllib.request.urlopen(address, timeout=10) as answer:
                mapping = json.loads(answer.read())
            return int(next(iter(mapping.values()))["mappings"]["properties"]["embedding"]["dimension"])
        except Exception:  # no index yet (404), or one without vectors: the embedders decide its width
            return None

    def _check_index_dimension(self, store: Any) -> None:
        """Warn when an existing index was built for other vectors than the embedder's (k-NN stores would fail)."""
        embedder = getattr(store, "embedder", None)
        if embedder is None:
            return
        dimension = self._index_dimension()
        if dimension is None:  # a diagnostic only: never stop the stack for it
            self.log("could not read the index's embedding dimension")
        elif dimension != embedder.dimensions:
            self.log(
                f"WARNING: index {self.index!r} holds {dimension}-dimension vectors but the local embedder makes "
                f"{embedder.dimensions}; text stores will fail. Use another OFFPROMPT_OPENSEARCH_INDEX, or "
                f"{LOCAL_EMBEDDER_ENV}=wordllama for an index of 256-dimension vectors (docs/adr/0070)."
            )

    # --- OpenSearch watchdog

    def _start_watchdog(self) -> None:
        """Watch the local JVM (not an external OPENSEARCH_URL node) and restart it if it dies."""
        node = self._opensearch
        if node is None or node.external:
            return
        self._stopping.clear()
        self._watchdog = threading.Thread(target=self._watch_opensearch, name="opensearch-watchdog", daemon=True)
        self._watchdog.start()

    def _stop_watchdog(self) -> None:
        self._stopping.set()
        if self._watchdog is not None:
            self._watchdog.join(timeout=STOP_WATCHDOG_TIMEOUT_S)
            self._watchdog = None

    def _watch_opensearch(self) -> None:
        wait = self.watchdog_interval
        while not self._stopping.wait(wait):
            with self._opensearch_lock:
                node = self._opensearch
                if node is None or self._stopping.is_set() or node.is_running():
                    wait = self.watchdog_interval
                    continue
                restarted = self._restart_opensearch(node)
            # A node that will not come back (port taken, jars gone) is retried less and less often.
            wait = self.watchdog_interval if restarted else min(max(2 * wait, 2.0), WATCHDOG_MAX_BACKOFF_S)

    def _restart_opensearch(self, node: Any) -> bool:
        """Start the dead node again on its URL (the handlers' OFFPROMPT_OPENSEARCH_URL), re-create the index."""
        pid, code, started = node.pid, node.returncode, time.monotonic()
        try:
            url = node.restart()
            self._ensure_index(quiet=True)
        except Exception as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.log(f"OpenSearch (pid {pid}) exited with code {code}; restart failed, will retry: {reason}")
            return False
        self.log(
            f"OpenSearch (pid {pid}) exited with code {code}; restarted at {url} (pid {node.pid}) "
            f"in {time.monotonic() - started:.1f}s, index {self.index!r} ready"
        )
        return True

    # --- banner

    def timing_summary(self) -> str:
        return ", ".join(f"{step} {seconds:.1f}s" for step, seconds in self.timings.items() if step != "total")

    def banner(self) -> str:
        url = self.api_url
        tenant = "-H 'X-Offprompt-Tenant: alice'"
        lines = [
            "",
            "=" * 78,
            f"  offprompt local stack ready in {self.timings.get('total', 0):.1f}s ({self.timing_summary()})",
            "",
            f"  API         {url}      (API Gateway HTTP API, payload v2, real handlers)",
            f"  moto        {self.moto_url}   (DynamoDB table {TABLE_NAME!r}, S3 bucket {BUCKET_NAME!r})",
            f"  OpenSearch  {self.opensearch_url}   (index {self.index!r})",
            f"  summaries   {self.summaries}",
            f"  embeddings  {self.embeddings}",
            f"  events      {self.events}",
            f"  data        {self.data_dir or 'in memory'}   (kept across restarts; `make dev FRESH=1` starts empty)",
            "  tenant      X-Offprompt-Tenant header (default 'local'); deployed stacks use the authorizer",
            "",
            "  try:",
            f"    curl -s -X POST {url}/threads/demo/runs {tenant} -H 'Content-Type: application/json' \\",
            '      -d \'{"input": {"type": "TextArtifact", "value": "Hi, I am Ada."},'
            ' "output": {"type": "TextArtifact", "value": "Hello Ada!"}}\'',
            f"    curl -s -X POST {url}/threads/demo/prompt-stack {tenant} -d '{{\"max_tokens\": 500}}'",
            f"    curl -s {url}/threads/demo/runs {tenant}",
            "    make demo",
            "",
            "  Ctrl-C stops everything (API, moto, OpenSearch).",
            "=" * 78,
            "",
        ]
        return "\n".join(lines)


def _unescape(part: str) -> str:
    return part.replace("%23", "#").replace("%25", "%")  # offprompt.identifiers.key's escaping, undone


def unfinished_deletes(dynamodb: Any, table: str) -> list[str]:
    """The records still marked `deleting` (a thread or namespace delete whose last steps were dropped), as the
    request that finishes each delete."""
    requests: list[str] = []
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="attribute_exists(#deleting)",
        ExpressionAttributeNames={"#deleting": "deleting"},
        ProjectionExpression="pk, sk",
    )
    for page in pages:
        for item in page["Items"]:
            pk = [_unescape(part) for part in item["pk"]["S"].split("#")]
            sk = [_unescape(part) for part in item["sk"]["S"].split("#")]
            if len(pk) == 3 and pk[0] == "TASKMEM" and len(sk) == 2 and sk[0] == "NS":
                path = "/memories/{}/namespaces/{}".format(*(urllib.parse.quote(p, safe="") for p in (pk[2], sk[1])))
                requests.append(f"DELETE {path} as tenant {pk[1]!r}")
            elif len(pk) == 4 and pk[0] == "T" and pk[2] == "TH":
                requests.append(f"DELETE /threads/{urllib.parse.quote(pk[3], safe='')} as tenant {pk[1]!r}")
            else:
                requests.append(f"the delete of item pk={item['pk']['S']!r} sk={item['sk']['S']!r}")
    return requests


def reconcile_text_namespaces(dynamodb: Any, table: str) -> list[str]:
    """After a salvage: every namespace record the table holds (not marked deleting) is loaded through the library's
    own load path; one whose text OpenSearch no longer holds (a store or delete of it was in the dropped records,
    and OpenSearch is not rolled back) could only ever answer 503, so it is deleted through the library's own
    delete (the same as `DELETE /memories/{m}/namespaces/{ns}`) and named. What cannot be checked or deleted is
    named too, with the request that finishes it. Returns the lines to log (docs/adr/0043)."""
    from load_artifacts.handler import lambda_handler as load
    from memories.handler import lambda_handler as memories

    from offprompt.errors import OffpromptError

    lines: list[str] = []
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="begins_with(pk, :memory) AND begins_with(sk, :ns) AND attribute_not_exists(#deleting)",
        ExpressionAttributeNames={"#deleting": "deleting"},
        ExpressionAttributeValues={":memory": {"S": "TASKMEM#"}, ":ns": {"S": "NS#"}},
        ProjectionExpression="pk, sk",
    )
    for page in pages:
        for item in page["Items"]:
            pk = item["pk"]["S"].split("#")
            sk = item["sk"]["S"].split("#")
            if len(pk) != 3 or len(sk) != 2 or any(part.startswith("%~") for part in (pk[1], pk[2], sk[1])):
                lines.append(f"could not check the namespace item pk={item['pk']['S']!r} sk={item['sk']['S']!r}")
                continue
            tenant, memory, namespace = _unescape(pk[1]), _unescape(pk[2]), _unescape(sk[1])
            where = {"tenant": tenant, "memory_name": memory, "namespace": namespace}
            named = f"namespace {namespace!r} of memory {memory!r} (tenant {tenant!r})"
            try:
                load(dict(where), None)
                continue
            except OffpromptError as exc:
                if "disagree" not in str(exc):
                    path = "/memories/{}/namespaces/{}".format(
                        *(urllib.parse.quote(p, safe="") for p in (memory, namespace))
                    )
                    lines.append(f"{named} does not load ({exc}); check it: GET {path}/artifacts")
                    continue
            try:
                memories({**where, "action": "delete_namespace"}, None)
            except OffpromptError as exc:
                lines.append(f"{named} lost its text with the dropped records and could not be deleted ({exc})")
                continue
            lines.append(f"{named} lost its text with the dropped records; it was deleted (store into it anew)")
    return lines


# --------------------------------------------------------------------------------------------- main


def _raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


#: What Lambda has on sys.path (`/var/task`, `/opt/python`): the functions' code and the layer's python/ tree. The
#: Makefile exports them as PYTHONPATH; `main` adds them too, so `python -m offprompt_local.stack` runs as is.
LAMBDA_PATHS = (REPO_ROOT / "functions", REPO_ROOT / "layers" / "offprompt")


def _lambda_paths() -> None:
    for path in reversed(LAMBDA_PATHS):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))


def single_threaded_numpy(environ: MutableMapping[str, str]) -> None:
    """OpenBLAS on one thread (unless the environment says otherwise), set before numpy loads: the stack's numpy work
    is small matrices (a question's MiniLM pass, ~8 ms) beside handler threads and a JVM, and OpenBLAS's idle threads
    spin after each call, which cost a search's p95 ~70 ms on 2 cores (docs/adr/0070)."""
    environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None) -> int:
    single_threaded_numpy(os.environ)
    _lambda_paths()
    parser = argparse.ArgumentParser(prog="python -m offprompt_local.stack", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=None, help="API port (default: OFFPROMPT_PORT or 3000)")
    parser.add_argument("--moto-port", type=int, default=None, help="moto port (default: OFFPROMPT_MOTO_PORT or free)")
    start = parser.add_mutually_exclusive_group()
    start.add_argument(
        "--fresh", action="store_true", help="start empty: delete the data directory's tables, objects and index"
    )
    start.add_argument(
        "--salvage",
        action="store_true",
        help="damaged local data: copy the damaged files to <data>/moto/damaged-<time>/, start with what is intact",
    )
    args = parser.parse_args(argv)
    console.whole_lines()  # the handlers' log lines and the stack's own never share a line
    api_port = args.port if args.port is not None else port_from_env()
    moto_port = args.moto_port if args.moto_port is not None else int(os.environ.get(MOTO_PORT_ENV) or 0)
    index = os.environ.get("OFFPROMPT_OPENSEARCH_INDEX") or DEFAULT_INDEX
    signal.signal(signal.SIGTERM, _raise_on_sigterm)  # SIGTERM unwinds like Ctrl-C: every `finally` runs

    stack = LocalStack(
        api_port=api_port,
        moto_port=moto_port,
        index=index,
        data_dir=data_dir_from_env(),
        fresh=args.fresh,
        salvage=args.salvage,
    )
    try:
        _say("starting the offprompt local stack")
        stack.start()
        print(stack.banner(), flush=True)
        _say(f"ready: {stack.api_url}")
        stack.serve_forever()
        return 0
    except StackError as exc:
        print(f"[stack] error: {exc}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) and exc.code != 128 + signal.SIGTERM else 0
    finally:
        _say("stopping (API, moto, OpenSearch)")
        stack.stop()
        _say("stopped")


def _stop_quietly(what: str, stop: Callable[[], object]) -> None:
    """Shutdown goes on when one part fails to stop; the failure is one log line."""
    try:
        stop()
    except Exception as exc:
        print(f"[stack] stopping {what} failed: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
