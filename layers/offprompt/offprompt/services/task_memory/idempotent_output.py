"""process-output with an idempotency key (ADR 0026): a retry of the same request gets the first answer.

A client that may retry a store (Step Functions' Retry, an HTTP client after a timeout) sends
`idempotency_key`. The key is claimed for the request's canonical hash before anything is written; the store
runs; its answer is kept with the key for a day. Then:
- the same key and the same request (the key aside) → the first answer, nothing stored again (`replayed`);
- the same key and another request → 409 `conflict`, nothing written;
- the same key while the first request is still running → 409 `conflict` ("in progress"; retry later);
- a request that failed, or stored nothing (the output came back as itself), releases its claim: a retry
  runs afresh. A process that died mid-store leaves its claim until its lease (the invocation's remaining
  time) has passed; then a retry runs again.
Without a key, process-output behaves as Griptape's: each call appends.

`process_output.store_output` (the use case the route, its direct action and the MCP tool call) runs a request
through `process_once`.
"""

from __future__ import annotations

import json
import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from offprompt.artifacts import BaseArtifact
from offprompt.deadline import remaining
from offprompt.errors import Conflict
from offprompt.identifiers import canonical_hash
from offprompt.ports import ReceiptStore
from offprompt.services.task_memory.requests import OutputRequest
from offprompt.services.task_memory.results import ProcessResult

#: How long a completed request's answer is kept for replays.
RECEIPT_TTL_S = 86_400
#: A claim's lease when nothing bounds the invocation (Lambda's longest timeout), plus a margin past it.
MAX_LEASE_S = 900
LEASE_MARGIN_S = 5


@dataclass(frozen=True)
class OnceResult:
    result: ProcessResult
    replayed: bool


def request_hash(request: OutputRequest) -> str:
    """The request as the client sent it (canonical JSON), the key itself aside."""
    return canonical_hash(request.model_dump(mode="json", exclude={"idempotency_key"}, exclude_unset=True))


def process_once(
    receipts: ReceiptStore,
    tenant: str,
    memory: str,
    request: OutputRequest,
    run: Callable[[], ProcessResult],
    clock: Callable[[], float] = time.time,
) -> OnceResult:
    key = request.idempotency_key
    if key is None:
        return OnceResult(run(), replayed=False)
    digest = request_hash(request)
    claim_id = uuid.uuid4().hex
    now = int(clock())
    left = remaining()
    lease_until = now + math.ceil(MAX_LEASE_S if left is None else max(left, 0)) + LEASE_MARGIN_S
    held = receipts.claim(tenant, memory, key, digest, claim_id, now, lease_until)
    if held is not None:
        if held.request_hash != digest:
            raise Conflict("idempotency_key was used for another request (the key must be unique per request)")
        if not held.completed or held.result_json is None:
            raise Conflict("a request with this idempotency_key is in progress; retry later")
        return OnceResult(_decode(held.result_json), replayed=True)
    try:
        result = run()
    except BaseException:
        receipts.release(tenant, memory, key, claim_id)
        raise
    if not result.stored:  # nothing written: a retry may just run again
        receipts.release(tenant, memory, key, claim_id)
        return OnceResult(result, replayed=False)
    receipts.complete(tenant, memory, key, _encode(result), now + RECEIPT_TTL_S)
    return OnceResult(result, replayed=False)


def _encode(result: ProcessResult) -> str:
    return json.dumps(
        {"artifact": result.artifact.to_dict(), "namespace": result.namespace, "positions": result.positions},
        separators=(",", ":"),
    )


def _decode(text: str) -> ProcessResult:
    data = json.loads(text)
    positions = tuple(data["positions"]) if data.get("positions") is not None else None
    return ProcessResult(
        artifact=BaseArtifact.from_dict(data["artifact"]),
        stored=True,
        namespace=data.get("namespace"),
        positions=positions,
    )
