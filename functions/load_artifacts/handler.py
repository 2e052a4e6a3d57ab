"""load-artifacts: `GET /memories/{memory_name}/namespaces/{namespace}/artifacts` → the namespace as ListArtifact JSON.

Exactly what was stored, in order, byte-exact; an unknown namespace is an empty ListArtifact (as in Griptape).
The inline limit is Lambda's response cap (5 MB) over HTTP. Responses:

- `200`, Griptape's ListArtifact JSON: whenever it fits the inline limit (every small namespace).
- `200`, `BlobDownloads` (a blob namespace past the limit): the stored objects themselves, nothing rebuilt:
  `{"type": "BlobDownloads", "size": <total bytes>, "expires_in": <s>,
    "artifacts": [{"artifact": <the artifact's JSON without "value">, "size": <bytes>, "download_url": <GET>}]}`;
  an artifact's `value` is the base64 of what its `download_url` returns (`offprompt_client` rebuilds the
  ListArtifact). Blob JSON is 4/3 the bytes in base64: rebuilding and re-uploading it cost 16x a raw GET at 50 MB.
- `303 See Other` (a text namespace past the limit): the ListArtifact JSON written to S3, `Location:` its
  presigned GET, body `{"download_url", "expires_in", "size"}`.

Direct events: `{tenant, memory_name, namespace, max_inline_bytes?, ref?}`. Direct invocations come from Step Functions,
whose states are capped at 256 KB, so they get the ListArtifact inline only up to 200 KB (`max_inline_bytes`,
1 byte to 5 MB, overrides) and above that the `BlobDownloads` body (blobs) or the
`{"download_url", "expires_in", "size"}` body (text).

Use case: `offprompt.services.task_memory.load`.
"""

import json
from http import HTTPStatus
from typing import Annotated, Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from pydantic import BaseModel, ConfigDict, Field

from api_common.entry import direct_field, json_response
from api_common.errors import error_responses
from api_common.powertools import Path, Query, Response
from api_common.routes import FunctionRoutes, json_content
from api_common.scope_rules import read
from offprompt.composition.task_memory import default_service, prime_task_memory
from offprompt.limits import DIRECT_MAX_INLINE_BYTES
from offprompt.metering import Meter
from offprompt.services.task_memory import MAX_INLINE_RESPONSE_BYTES, parse_request
from offprompt.services.task_memory.load import load_artifacts

# Looked up at call time, so tests can substitute a service built on their own adapters.
service = default_service

routes = FunctionRoutes("load_artifacts", default_action="load", prime=prime_task_memory)


@routes.get(
    "/memories/{memory_name}/namespaces/{namespace}/artifacts",
    scope=read("memories", path="memory_name"),
    action="load",
    summary="A namespace's artifacts as Griptape ListArtifact JSON",
    responses={
        200: json_content(
            "LoadedNamespace",
            "The ListArtifact JSON, byte-exact, whenever it fits a response (5 MB); past that, a blob namespace"
            " answers BlobDownloads (presigned GETs of the stored objects; an artifact's value is the base64 of"
            " what its download_url returns)",
        ),
        303: json_content(
            "Download", "A text namespace too large to answer inline: Location is a presigned GET of the JSON"
        ),
        **error_responses(409),
    },
)
def get_artifacts(
    memory_name: Annotated[str, Path()],
    namespace: Annotated[str, Path()],
    ref: Annotated[
        str | None,
        Query(
            description="the X-Offprompt-Ref its store answered: read without a lookup when it still names the "
            "namespace as it is (docs/adr/0053); otherwise, or absent, the namespace is read by name"
        ),
    ] = None,
) -> Response[Any]:
    memory = routes.param("memory_name", memory_name)
    name = routes.param("namespace", namespace)
    loaded = load_artifacts(service(), routes.tenant(), memory, name, meter=routes.meter(), ref=ref)
    if loaded.blobs is not None:
        return json_response(loaded.blob_listing())
    if loaded.body is None:
        return json_response(loaded.download(), HTTPStatus.SEE_OTHER, headers={"Location": str(loaded.download_url)})
    return Response(status_code=HTTPStatus.OK, content_type="application/json", body=loaded.body)


class DirectLoad(BaseModel):
    """The optional field of a direct load event."""

    model_config = ConfigDict(extra="ignore", strict=True)

    max_inline_bytes: int | None = Field(default=None, ge=1, le=MAX_INLINE_RESPONSE_BYTES)


@routes.direct("load")
def load_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory, namespace = direct_field(event, "memory_name"), direct_field(event, "namespace")
    limit = direct_inline_limit(event)
    ref = event.get("ref")
    loaded = load_artifacts(
        service(),
        tenant,
        memory,
        namespace,
        max_inline_bytes=limit,
        meter=meter,
        ref=ref if isinstance(ref, str) else None,
    )
    if loaded.blobs is not None:
        return loaded.blob_listing()
    return json.loads(loaded.body) if loaded.body is not None else loaded.download()


def direct_inline_limit(event: dict[str, Any]) -> int:
    """The event's `max_inline_bytes` (1..5 MB), or 200 KB when absent or null; SchemaInvalid otherwise."""
    value = parse_request(DirectLoad, {"max_inline_bytes": event.get("max_inline_bytes")}).max_inline_bytes
    return DIRECT_MAX_INLINE_BYTES if value is None else value


register = routes.register
lambda_handler = routes.handler()
