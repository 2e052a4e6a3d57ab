"""process-output: store a tool's output off-prompt (Griptape `TaskMemory.process_output`), and hand out uploads.

Routes:
- `POST /memories/{memory_name}/outputs` body `{tool, activity, artifact, actions?, thought?, value_from?}` →
  the artifact to give the model (the InfoArtifact reference, "tool output is empty", or the output itself).
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

from api_common.entry import current_tenant, direct_field, json_response, make_handler, path_param
from api_common.errors import error_responses
from api_common.powertools import APIGatewayHttpResolver, Body, Path, Response
from api_common.schemas import ArtifactJSON, Upload, json_content
from offprompt.composition.task_memory import default_receipts, default_service
from offprompt.errors import Conflict, InvalidInput
from offprompt.services.task_memory import (
    OnceResult,
    OutputRequest,
    ProcessResult,
    StorageKindConflict,
    parse_request,
    process_once,
)
from offprompt.services.task_memory.process_output import process_output
from offprompt.services.task_memory.uploads import create_upload

# Looked up at call time, so tests can substitute a service (and receipts) built on their own adapters.
service = default_service
receipts = default_receipts


def process(tenant: str, memory: str, request: OutputRequest) -> OnceResult:
    def run() -> ProcessResult:
        return process_output(
            service(),
            tenant,
            memory,
            tool=request.tool,
            activity=request.activity,
            artifact=request.artifact,
            actions=[a.to_action() for a in request.actions],
            thought=request.thought,
            value_from=request.value_from,
        )

    if request.idempotency_key is None:
        return OnceResult(run(), replayed=False)
    return process_once(receipts(), tenant, memory, request, run)


def register(app: APIGatewayHttpResolver) -> None:
    stored = {
        "X-Offprompt-Stored": {"description": "whether the output was stored", "schema": {"type": "string"}},
        "X-Offprompt-Replayed": {
            "description": "true when an idempotency_key retry got the first request's answer (nothing stored again)",
            "schema": {"type": "string"},
        },
    }

    @app.post(
        "/memories/<memory_name>/outputs",
        summary="Store a tool's output off-prompt (Griptape TaskMemory.process_output)",
        responses={
            200: json_content(ArtifactJSON, "The artifact to give the model", headers=stored),
            **error_responses(409),
        },
    )
    def post_output(memory_name: Annotated[str, Path()], request: Annotated[OutputRequest, Body()]) -> Response[Any]:
        memory = path_param(app, "memory_name", memory_name)
        once = process(current_tenant(app), memory, request)
        return Response(
            status_code=HTTPStatus.OK,
            content_type="application/json",
            body=once.result.artifact.to_json(),
            headers={
                "X-Offprompt-Stored": "true" if once.result.stored else "false",
                "X-Offprompt-Replayed": "true" if once.replayed else "false",
            },
        )

    @app.post(
        "/memories/<memory_name>/uploads",
        summary="A presigned S3 PUT for a value too large for a request body",
        responses={201: json_content(Upload, "The upload"), **error_responses()},
    )
    def post_upload(memory_name: Annotated[str, Path()]) -> Response[Any]:
        memory = path_param(app, "memory_name", memory_name)
        upload = create_upload(service(), current_tenant(app), memory)
        return json_response(upload.to_dict(), HTTPStatus.CREATED)


def direct(tenant: str, event: dict[str, Any]) -> Any:
    action = event.get("action", "process_output")
    memory = direct_field(event, "memory_name")
    if action == "create_upload":
        return create_upload(service(), tenant, memory).to_dict()
    if action != "process_output":
        raise InvalidInput('action must be "process_output" or "create_upload"')
    fields = {k: v for k, v in event.items() if k not in ("tenant", "memory_name", "action")}
    try:
        return process(tenant, memory, parse_request(OutputRequest, fields)).result.artifact.to_dict()
    except StorageKindConflict as exc:
        # Step Functions matches on the error's class name: a plain Conflict, carrying Griptape's ErrorArtifact.
        raise Conflict(exc.message, details={**exc.details, "artifact": exc.artifact.to_dict()}) from None


lambda_handler = make_handler(register, direct)
