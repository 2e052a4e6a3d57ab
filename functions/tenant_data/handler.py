"""tenant_data: the caller's own data, all of it (docs/adr/0024-tenant-export-erase.md).

- `POST /export` → 200 `{"tenant", "export_id", "manifest_url", "expires_in", "counts"}`: every thread, run,
  namespace, artifact (text and blobs) and meta entry as JSONL + object files under a per-export S3 prefix; the
  manifest (presigned GET) lists each file with its size, SHA-256 and its own presigned GET.
- `DELETE /tenant` body `{"confirm": "<the caller's tenant id>"}` → 200 `{"tenant", "deleted", "remaining",
  "verified"}`: every DynamoDB item, S3 object and OpenSearch document of the tenant, then a pass that finds
  none; 400 without the confirmation. Idempotent: repeat it after a 503 to finish.

Both read the whole table once (a filtered Scan: the table has no index by tenant). Direct invocation:
`{"tenant", "action": "export"}` or `{"tenant", "action": "erase", "confirm"}` (longer than API Gateway's 30 s
allows, up to the function's timeout).
"""

from typing import Annotated, Any

from api_common.entry import current_tenant, direct_fields, json_response, make_handler
from api_common.errors import error_responses
from api_common.powertools import APIGatewayHttpResolver, Body, Response
from api_common.schemas import EraseReport, ExportResult, json_content
from offprompt.composition.tenant_data import default_stores
from offprompt.errors import InvalidInput
from offprompt.services.tenant_data import EraseRequest, erase_self, export_self
from offprompt.validation import validate

ACTIONS = ("export", "erase")


def register(app: APIGatewayHttpResolver) -> None:
    @app.post(
        "/export",
        summary="Export all of the caller's data (JSONL + files in S3, presigned URLs)",
        responses={200: json_content(ExportResult, "The export's manifest URL and counts"), **error_responses()},
    )
    def post_export() -> Response[Any]:
        return json_response(export_self(current_tenant(app), default_stores()))

    @app.delete(
        "/tenant",
        summary="Erase all of the caller's data (needs the tenant id as confirmation)",
        responses={200: json_content(EraseReport, "What was deleted, and that nothing is left"), **error_responses()},
    )
    def delete_tenant(request: Annotated[EraseRequest, Body()]) -> Response[Any]:
        return json_response(erase_self(current_tenant(app), request, default_stores()))


def direct(tenant: str, event: dict[str, Any]) -> Any:
    action = event.get("action")
    if action not in ACTIONS:
        raise InvalidInput(f'"action" must be one of {", ".join(ACTIONS)}')
    if action == "export":
        return export_self(tenant, default_stores())
    return erase_self(tenant, validate(EraseRequest, direct_fields(event)), default_stores())


lambda_handler = make_handler(register, direct)
