"""process-output: store a tool's output off-prompt (Griptape `TaskMemory.process_output`), and hand out uploads.

Routes:
- `POST /memories/{memory_name}/outputs` body `{tool, activity, artifact, actions?, thought?, value_from?,
  consistency?}` → the artifact to give the model (the InfoArtifact reference, "tool output is empty", or the output
  itself). It answers once the output is durable and loadable; `consistency: "search"` waits until a search finds
  its text too (header `X-Offprompt-Searchable`; ADR 0031).
- `POST /memories/{memory_name}/uploads` → `{upload_id, url, expires_in, headers, s3_uri}`: a presigned S3 PUT
  for values too large for a request body, then referenced by `value_from`.
An optional `idempotency_key` makes retries safe (same key + same request = the first answer, nothing stored
again; use case `offprompt.services.task_memory.idempotent_output`, ADR 0026).
Direct events: the same fields plus `tenant`, `memory_name` and `action` ("process_output" | "create_upload").

Use cases: `offprompt.services.task_memory.process_output` (through `.idempotent_output` when keyed) and
`.uploads`.
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_field, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Response
from api_common.routes import FunctionRoutes, json_content
from api_common.scope_rules import write
from offprompt.composition.task_memory import default_receipts, default_service, prime_task_memory
from offprompt.errors import Conflict
from offprompt.metering import Meter
from offprompt.services.task_memory import (
    OnceResult,
    OutputRequest,
    StorageKindConflict,
    parse_request,
)
from offprompt.services.task_memory.process_output import store_output
from offprompt.services.task_memory.uploads import create_upload

# Looked up at call time, so tests can substitute a service (and receipts) built on their own adapters.
service = default_service
receipts = default_receipts

routes = FunctionRoutes("process_output", default_action="process_output", prime=prime_task_memory)


def process(tenant: str, memory: str, request: OutputRequest, meter: Meter | None) -> OnceResult:
    return store_output(service(), receipts(), tenant, memory, request, meter)


_STORED = {
    "X-Offprompt-Stored": {"description": "whether the output was stored", "schema": {"type": "string"}},
    "X-Offprompt-Searchable": {
        "description": 'with consistency "search": whether a search finds the stored text now (false: the index '
        "was slower than the wait; the text is stored and loadable all the same)",
        "schema": {"type": "string", "enum": ["true", "false"]},
    },
    "X-Offprompt-Replayed": {
        "description": "true when an idempotency_key retry got the first request's answer (nothing stored again)",
        "schema": {"type": "string"},
    },
    "X-Offprompt-Ref": {
        "description": "a store that created a blob namespace: the reference its load may pass as `ref` to read it "
        "without a lookup (docs/adr/0053); opaque, and only ever a shortcut: any ref loads what the namespace holds",
        "schema": {"type": "string"},
    },
}


@routes.post(
    "/memories/{memory_name}/outputs",
    scope=write("memories", path="memory_name"),
    action="process_output",
    summary="Store a tool's output off-prompt (Griptape TaskMemory.process_output)",
    responses={
        200: json_content("ArtifactJSON", "The artifact to give the model", headers=_STORED),
        **error_responses(409),
    },
)
def post_output(memory_name: Annotated[str, Path()], request: Annotated[OutputRequest, Body()]) -> Response[Any]:
    memory = routes.param("memory_name", memory_name)
    once = process(routes.tenant(), memory, request, routes.meter())
    headers = {
        "X-Offprompt-Stored": "true" if once.result.stored else "false",
        "X-Offprompt-Replayed": "true" if once.replayed else "false",
    }
    if once.result.searchable is not None:
        headers["X-Offprompt-Searchable"] = "true" if once.result.searchable else "false"
    if once.result.ref is not None:
        headers["X-Offprompt-Ref"] = once.result.ref
    return Response(
        status_code=HTTPStatus.OK,
        content_type="application/json",
        body=once.result.artifact.to_json(),
        headers=headers,
    )


@routes.post(
    "/memories/{memory_name}/uploads",
    scope=write("memories", path="memory_name"),
    action="create_upload",
    summary="A presigned S3 PUT for a value too large for a request body",
    responses={201: json_content("Upload", "The upload"), **error_responses()},
)
def post_upload(memory_name: Annotated[str, Path()]) -> Response[Any]:
    upload = create_upload(service(), routes.tenant(), routes.param("memory_name", memory_name))
    return json_response(upload.to_dict(), HTTPStatus.CREATED)


@routes.direct("create_upload")
def create_upload_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return create_upload(service(), tenant, direct_field(event, "memory_name")).to_dict()


@routes.direct("process_output")
def process_output_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory = direct_field(event, "memory_name")
    fields = {k: v for k, v in event.items() if k not in ("tenant", "memory_name", "action")}
    try:
        return process(tenant, memory, parse_request(OutputRequest, fields), meter).result.artifact.to_dict()
    except StorageKindConflict as exc:
        # Step Functions matches on the error's class name: a plain Conflict, carrying Griptape's ErrorArtifact.
        raise Conflict(exc.message, details={**exc.details, "artifact": exc.artifact.to_dict()}) from None


register = routes.register
lambda_handler = routes.handler()
