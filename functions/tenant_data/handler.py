"""tenant_data: the caller's own data, all of it (docs/adr/0024-tenant-export-erase.md).

- `POST /export` → 200 `{"tenant", "export_id", "manifest_url", "expires_in", "counts"}`: every thread, run,
  namespace, artifact (text and blobs) and meta entry as JSONL + object files under a per-export S3 prefix; the
  manifest (presigned GET) lists each file with its size, SHA-256 and its own presigned GET.
- `DELETE /tenant` body `{"confirm": "<the caller's tenant id>"}` → 200 `{"tenant", "deleted", "remaining",
  "verified"}`: every DynamoDB item, S3 object and OpenSearch document of the tenant, then a pass that finds
  none; 400 without the confirmation. With an API key the tenant is fenced first and the first answer is 202
  `{"status": "erasing", "retry_after"}` (+ Retry-After): repeat it then to verify and finish (the key works until
  the erase is done). Idempotent: repeat it after a 503 to finish.

Both Query the tenant's partitions through the tenant index, after indexing a tenant not known to be indexed (its
data may predate the index: docs/adr/0043); while that is unfinished both answer 202 `{"status": "indexing",
"retry_after"}` (the export `complete: false`, nothing exported; the erase not verified, nothing deleted), and the
repeat goes on where it stopped. Direct invocation:
`{"tenant", "action": "export"}` or `{"tenant", "action": "erase", "confirm"}` (longer than API Gateway's 30 s
allows, up to the function's timeout).
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_fields, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Response
from api_common.routes import FunctionRoutes, json_content
from api_common.scope_rules import ADMIN
from offprompt.composition.tenant_data import default_stores
from offprompt.metering import Meter
from offprompt.services.tenant_data import EraseRequest, erase_self, export_self
from offprompt.validation import validate

routes = FunctionRoutes("tenant_data", event_prefixes=("tenant",))


@routes.post(
    "/export",
    scope=ADMIN,
    action="export",
    summary="Export all of the caller's data (JSONL + files in S3, presigned URLs)",
    responses={
        200: json_content("ExportResult", "The export's manifest URL and counts"),
        202: json_content(
            "ExportPending",
            "Not exported yet: the tenant's data is still being indexed (data from before the tenant index); repeat"
            " the request after Retry-After seconds",
        ),
        **error_responses(),
    },
)
def post_export() -> Response[Any]:
    result = export_self(routes.tenant(), default_stores())
    if not result["complete"]:
        return json_response(result, HTTPStatus.ACCEPTED, headers={"Retry-After": str(result["retry_after"])})
    return json_response(result)


@routes.delete(
    "/tenant",
    scope=ADMIN,
    action="erase",
    summary="Erase all of the caller's data (needs the tenant id as confirmation)",
    responses={
        200: json_content("EraseReport", "What was deleted, and that nothing is left (verified)"),
        202: json_content(
            "ErasePending",
            "API keys fenced and the data deleted (`status: erasing`), or the tenant's data still being indexed"
            " (`status: indexing`: nothing deleted yet); repeat the request after Retry-After seconds to go on, verify"
            " and finish (a request admitted before the fence may still land a write until then; the key works until"
            " the end)",
        ),
        **error_responses(),
    },
)
def delete_tenant(request: Annotated[EraseRequest, Body()]) -> Response[Any]:
    meter = routes.meter()
    report = erase_self(routes.tenant(), request, default_stores(), with_keys=meter is not None)
    if meter is not None:
        meter.forget()  # nothing of the tenant is written after its erase (its usage neither)
    if report.retry_after is not None:
        headers = {"Retry-After": str(report.retry_after)}
        return json_response(report.to_dict(), HTTPStatus.ACCEPTED, headers=headers)
    return json_response(report.to_dict())


@routes.direct("export")
def export_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return export_self(tenant, default_stores())


@routes.direct("erase")
def erase_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    """A direct erase (IAM-authorized infrastructure): the tenant's keys are fenced and removed last as well; an
    answer with `"status": "erasing"` is finished by invoking again after `retry_after` seconds."""
    return erase_self(tenant, validate(EraseRequest, direct_fields(event)), default_stores(), with_keys=True).to_dict()


register = routes.register
lambda_handler = routes.handler()
