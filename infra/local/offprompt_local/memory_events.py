"""The memory events on the local stack (docs/adr/0036-memory-events.md): the table's stream, read from moto's
server, through the real events function, into a JSONL sink instead of EventBridge.

- `LocalEventSink` is the `EventPublisher` the stack installs through `offprompt.composition.events`'
  `set_publisher_override`: each event one JSON line (`to_dict()`) appended to
  `<data dir>/events/memory-events.jsonl` (`make dev FRESH=1` empties it)
  (a temporary file for an in-memory stack). LOCAL STAND-IN for the EventBridge bus.
- `StreamPoller` is what Lambda's event source mapping does for the deployed function: it reads every shard of
  the table's stream (moto's DynamoDB Streams API) from its oldest record, hands batches of ≤ 100 records to
  `memory_events.handler.lambda_handler` in Lambda's event shape, and re-reads from the first record the handler
  reported as failed (up to `MAX_ATTEMPTS` times; then the records are skipped, as a deployed mapping would send
  them to its dead-letter queue). The template's filter criteria are not applied: the decoder ignores what they
  would have dropped.
- the example extractor (functions/example_extractor) runs on the sink's `run.added` events, as the template's
  EventBridge rule runs it, with the rule-based stand-in for its model (extractor.py), labelled in what it writes.
- `GET /local/events` on the dev server answers the sink's events, oldest first: a LOCAL-ONLY route outside the
  deployed API (not in template.yaml or the OpenAPI document), for tests and the demo.

The stream is not persisted (moto's stream starts empty on a restart) and moto's keeps at most 24 h or
`STREAM_MAX_RECORDS` records (substrate/moto_patches.py); a trimmed stream resumes from its oldest record.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from offprompt.ports import MemoryEvent

SINK_FILE = "memory-events.jsonl"
PUBLISHER_HOOK = ("offprompt.composition.events", "set_publisher_override")
Handler = Callable[[dict[str, Any], Any], Any]
BATCH_SIZE = 100
MAX_ATTEMPTS = 3
#: A poller with an `idle_interval` counts as idle once nothing was read for this long.
IDLE_AFTER_S = 2.0
#: How long a poller trusts the stream's shard list before describing the stream again.
SHARDS_TTL_S = 5.0
#: Lambda's shape of a record's source, for the handler's BatchProcessor.
REGION = "us-east-1"


class LocalEventSink:
    """LOCAL STAND-IN for the EventBridge bus: every published event one JSON line in a file, then handed to the
    targets of the rules that match its type (`subscribe`), each on its own thread, as EventBridge delivers
    asynchronously (a target's failure is logged; EventBridge would retry it). `close` waits for the deliveries
    under way, so a stopping stack does not pull the substrate from under a target mid-call."""

    LABEL = "local JSONL sink (stand-in for the EventBridge bus)"

    def __init__(self, path: Path, log: Callable[[str], None] = print) -> None:
        self.path = path
        self.log = log
        self._lock = threading.Lock()
        self._rules: list[tuple[frozenset[str], str, Handler]] = []
        self._deliveries: set[threading.Thread] = set()
        self._closers: list[Callable[[float], None]] = []
        self._closed = False
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def subscribe(self, detail_types: Sequence[str], name: str, target: Handler) -> None:
        self._rules.append((frozenset(detail_types), name, target))

    def on_close(self, closer: Callable[[float], None]) -> None:
        """`closer(timeout)` runs when the sink closes, after its own deliveries (a target's timer queue)."""
        self._closers.append(closer)

    def close(self, timeout: float = 30.0) -> None:
        """No new deliveries; waits (at most `timeout` s in all) for those under way, then runs the closers. The
        events are in the file already; what a stopped stack did not deliver is logged, as EventBridge's
        undelivered events would be retried, not lost."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._closed = True
            deliveries = list(self._deliveries)
        for thread in deliveries:
            thread.join(max(0.0, deadline - time.monotonic()))
        left = sum(thread.is_alive() for thread in deliveries)
        if left:
            self.log(f"memory events: {left} deliveries still running at stop")
        for closer in self._closers:
            closer(max(0.0, deadline - time.monotonic()))

    def publish(self, events: Sequence[MemoryEvent]) -> set[str]:
        lines = "".join(json.dumps(e.to_dict(), separators=(",", ":"), ensure_ascii=False) + "\n" for e in events)
        with self._lock:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(lines)
            if self._closed:
                self.log(f"memory events: {len(events)} events published while stopping; not delivered")
                return set()
            for event in events:
                for types, name, target in self._rules:
                    if event.type in types:
                        thread = threading.Thread(target=self._deliver, args=(name, target, event), daemon=True)
                        self._deliveries.add(thread)
                        thread.start()
        return set()

    def _deliver(self, name: str, target: Handler, event: MemoryEvent) -> None:
        try:
            self._deliver_once(name, target, event)
        finally:
            with self._lock:
                self._deliveries.discard(threading.current_thread())

    def _deliver_once(self, name: str, target: Handler, event: MemoryEvent) -> None:
        envelope = {
            "version": "0",
            "id": event.id,
            "detail-type": event.type,
            "source": "offprompt",
            "account": "000000000000",
            "time": event.time,
            "region": REGION,
            "resources": [],
            "detail": event.to_dict(),
        }
        try:
            result = target(envelope, None)
        except Exception as exc:
            self.log(f"memory events: {name} failed on {event.type} {event.id}: {type(exc).__name__}: {exc}")
            return
        self.log(f"memory events: {name} on {event.type}: {json.dumps(result)[:200]}")

    def read(self) -> list[dict[str, Any]]:
        with self._lock:
            text = self.path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def install_sink(data_dir: Path | None, log: Callable[[str], None] = print) -> LocalEventSink:
    """The sink, installed as the events' publisher (through the composition root's hook)."""
    root = data_dir / "events" if data_dir is not None else Path(tempfile.mkdtemp(prefix="offprompt-events-"))
    sink = LocalEventSink(root / SINK_FILE, log)
    module, attribute = PUBLISHER_HOOK
    getattr(importlib.import_module(module), attribute)(sink)
    return sink


def uninstall_sink() -> None:
    module, attribute = PUBLISHER_HOOK
    getattr(importlib.import_module(module), attribute)(None)
    getattr(importlib.import_module(module), EXTRACTOR_HOOK)(None)
    module, attribute = DEFERRER_HOOK
    getattr(importlib.import_module(module), attribute)(None)


#: The example extractor's function (template.yaml) and the hook its local model is installed through.
EXTRACTOR_FUNCTION = "ExampleExtractorFunction"
EXTRACTOR_HOOK = "set_fact_extractor_override"


def install_example_extractor(sink: LocalEventSink) -> str:
    """The example extractor with the rule-based stand-in, subscribed to the sink as template.yaml's EventBridge
    rule subscribes it (the rule's `detail-type` list read from the template)."""
    from .extractor import RuleBasedFactExtractor
    from .resources import template_resource

    module, _ = PUBLISHER_HOOK
    getattr(importlib.import_module(module), EXTRACTOR_HOOK)(RuleBasedFactExtractor())
    rules = [e for e in template_resource(EXTRACTOR_FUNCTION)["Events"].values() if e["Type"] == "EventBridgeRule"]
    types = [t for rule in rules for t in rule["Properties"]["Pattern"]["detail-type"]]
    handler: Handler = importlib.import_module("example_extractor.handler").lambda_handler
    sink.subscribe(types, "example_extractor", handler)
    return f"example extractor on {', '.join(types)} with the {RuleBasedFactExtractor.label}"


#: The extraction runner's function and queue (template.yaml; docs/adr/0051).
EXTRACTION_RULE = "ExtractionEventsRule"
DEFERRER_HOOK = ("offprompt.composition.extraction", "set_deferrer_override")


class LocalQueue:
    """LOCAL STAND-IN for the extraction queue (SQS): a message is handed to the extraction function as an SQS batch
    of one, at once or after its delay (a timer thread), as Lambda's SQS poller would."""

    LABEL = "local timer queue (stand-in for SQS)"

    def __init__(self, handler: Handler, log: Callable[[str], None] = print) -> None:
        self.handler = handler
        self.log = log
        self._lock = threading.Lock()
        self._timers: list[threading.Timer] = []
        self._stopped = False

    def send(self, body: dict[str, Any], delay: float = 0.0) -> Any:
        record = {"messageId": uuid.uuid4().hex, "body": json.dumps(body), "eventSource": "aws:sqs"}
        if delay <= 0:
            return self.handler({"Records": [record]}, None)
        timer = threading.Timer(delay, self._deliver, args=(record,))
        timer.daemon = True
        with self._lock:
            if self._stopped:
                self.log("extraction: a delayed check asked for while stopping; not scheduled")
                return {"delayed": delay}
            self._timers = [t for t in self._timers if t.is_alive()] + [timer]
            timer.start()
        return {"delayed": delay}

    def _deliver(self, record: dict[str, Any]) -> None:
        try:
            self.log(f"extraction: delayed check: {json.dumps(self.handler({'Records': [record]}, None))[:200]}")
        except Exception as exc:
            self.log(f"extraction: a delayed check failed: {type(exc).__name__}: {exc}")

    def defer(self, message: dict[str, Any], seconds: float) -> None:
        self.send(message, seconds)

    def stop(self, timeout: float = 30.0) -> None:
        """No new checks; those waiting are cancelled, one already running is waited for (at most `timeout` s)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._stopped = True
            timers = list(self._timers)
        for timer in timers:
            timer.cancel()
        for timer in timers:
            timer.join(max(0.0, deadline - time.monotonic()))


def install_extraction(sink: LocalEventSink, log: Callable[[str], None] = print) -> str:
    """The extraction runner on the sink's events its rule names (read from template.yaml), its delayed checks on a
    local timer queue; the model is `OFFPROMPT_EXTRACTION_MODEL` (`rules` unless set: one variable points it at a
    local Ollama, README)."""
    from offprompt.config import get_settings

    from .resources import template_resource

    queue = LocalQueue(importlib.import_module("extraction.handler").lambda_handler, log)
    module, attribute = DEFERRER_HOOK
    getattr(importlib.import_module(module), attribute)(queue)
    types = list(template_resource(EXTRACTION_RULE)["EventPattern"]["detail-type"])
    sink.subscribe(types, "extraction", lambda envelope, _context: queue.send(envelope))
    sink.on_close(queue.stop)
    return f"extraction on {', '.join(types)} with the model {get_settings().extraction_model!r}"


def events_handler() -> Handler:
    """The events function's `lambda_handler`, as the dev server imports function code (functions/ on sys.path)."""
    return function_handler("memory_events")


def function_handler(function: str) -> Handler:
    """A stream function's `lambda_handler` (`memory_events`, `conversation_index`), imported as the dev server
    imports function code (functions/ on sys.path)."""
    handler: Handler = importlib.import_module(f"{function}.handler").lambda_handler
    return handler


class StreamPoller:
    """Lambda's stream polling for a stream function (the events function; the conversation indexer), against moto's
    DynamoDB Streams API."""

    def __init__(
        self,
        dynamodb: Any,
        streams: Any,
        table: str,
        handler: Handler,
        *,
        interval: float = 0.2,
        idle_interval: float | None = None,
        log: Callable[[str], None] = print,
        label: str = "memory events",
    ) -> None:
        """Polls every `interval` s; with `idle_interval`, an idle poller (nothing read for `IDLE_AFTER_S`) waits up
        to that long instead, or until `nudge()` (a write to the table: the stack nudges it from the substrate)."""
        self.label = label
        self.dynamodb, self.streams, self.table = dynamodb, streams, table
        self.handler = handler
        self.interval = interval
        self.idle_interval = idle_interval
        self.log = log
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._iterators: dict[str, str] = {}
        self._shards: list[str] = []
        self._finished: set[str] = set()
        self._shards_read_at = 0.0
        self._busy_at = 0.0
        self._arn: str | None = None

    def start(self) -> None:
        self._arn = self.dynamodb.describe_table(TableName=self.table)["Table"]["LatestStreamArn"]
        self._thread = threading.Thread(target=self._run, name=f"{self.label.replace(' ', '-')}-poller", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def nudge(self) -> None:
        """The table was written: poll now (its stream may hold new records)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()  # before reading: a write during the read nudges the next one
            try:
                busy = self.poll_once()
            except Exception as exc:  # moto restarting, a trimmed shard: start over from the oldest record
                self.log(f"{self.label}: reading the stream failed ({type(exc).__name__}: {exc}); retrying")
                self._iterators.clear()
                self._shards = []
                busy = False
            now = time.monotonic()
            if busy:
                self._busy_at = now
                continue
            idle = self.idle_interval is not None and now - self._busy_at > IDLE_AFTER_S
            self._wake.wait(self.idle_interval if idle else self.interval)

    def poll_once(self) -> bool:
        """One read of every shard; True when some shard had records."""
        assert self._arn is not None
        busy = False
        for shard_id in self._shard_ids():
            if shard_id not in self._iterators:
                self._iterators[shard_id] = self._iterator(shard_id, "TRIM_HORIZON")
            out = self.streams.get_records(ShardIterator=self._iterators[shard_id], Limit=BATCH_SIZE)
            records = [lambda_record(r, self._arn) for r in out.get("Records", [])]
            following = out.get("NextShardIterator")
            if following is None:  # a closed shard, read to its end: not read again; its children may be new
                self._finished.add(shard_id)
                self._shards = []
            else:
                self._iterators[shard_id] = following
            if records:
                busy = True
                self._deliver(shard_id, records)
        return busy

    def _shard_ids(self) -> list[str]:
        """The stream's shards, described again every `SHARDS_TTL_S` (or after a shard closed or a read failed)."""
        assert self._arn is not None
        if not self._shards or time.monotonic() - self._shards_read_at > SHARDS_TTL_S:
            description = self.streams.describe_stream(StreamArn=self._arn)["StreamDescription"]
            self._shards = [s["ShardId"] for s in description["Shards"] if s["ShardId"] not in self._finished]
            self._shards_read_at = time.monotonic()
        return self._shards

    def _iterator(self, shard_id: str, kind: str, sequence: str | None = None) -> str:
        params: dict[str, Any] = {"StreamArn": self._arn, "ShardId": shard_id, "ShardIteratorType": kind}
        if sequence is not None:
            params["SequenceNumber"] = sequence
        iterator: str = self.streams.get_shard_iterator(**params)["ShardIterator"]
        return iterator

    def _deliver(self, shard_id: str, records: list[dict[str, Any]]) -> None:
        """The batch to the handler; a reported failure retries from it (at most MAX_ATTEMPTS deliveries)."""
        batch = records
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                response = self.handler({"Records": batch}, None)
                failed = [f["itemIdentifier"] for f in (response or {}).get("batchItemFailures", [])]
            except Exception as exc:
                self.log(f"{self.label}: the function raised {type(exc).__name__}: {exc}")
                failed = [batch[0]["dynamodb"]["SequenceNumber"]]
            if not failed:
                return
            first = min(failed, key=int)
            batch = [r for r in batch if int(r["dynamodb"]["SequenceNumber"]) >= int(first)]
            if attempt < MAX_ATTEMPTS:
                self._stop.wait(0.2 * attempt)
        self.log(f"{self.label}: {len(batch)} stream records of {shard_id} were not delivered; skipped")


def lambda_record(record: dict[str, Any], stream_arn: str) -> dict[str, Any]:
    """A DynamoDB Streams API record in the shape Lambda hands the function (epoch seconds, the source ARN)."""
    change = dict(record["dynamodb"])
    stamp = change.get("ApproximateCreationDateTime")
    if isinstance(stamp, datetime):
        change["ApproximateCreationDateTime"] = int(stamp.timestamp())
    out = {**record, "dynamodb": change, "eventSourceARN": stream_arn}
    out.setdefault("awsRegion", REGION)
    with contextlib.suppress(KeyError):
        out["userIdentity"] = dict(record["userIdentity"])
    return out
