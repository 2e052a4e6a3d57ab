"""load-artifacts: `GET /memories/{memory_name}/namespaces/{namespace}/artifacts` → the namespace as ListArtifact JSON.

Exactly what was stored, in order, byte-exact; an unknown namespace is an empty ListArtifact (as in Griptape).
The inline limit is Lambda's response cap (5 MB) over HTTP. Responses:

- `200`, Griptape's ListArtifact JSON: whenever it fits the inline limit (every small namespace).
- `200`, `BlobDownloads` (a blob namespace past the limit): the stored objects themselves, nothing rebuilt:
  `{"type": "BlobDownloads", "size": <total bytes>, "expires_in": <s>,
    "artifacts": [{"artifact": <the artifact's JSON without "value">, "size": <bytes>, "download_url": <GET>}]}`;
  an artifact's `value` is the base64 of what its `download_url` returns (offprompt.client rebuilds the
  ListArtifact). Blob JSON is 4/3 the bytes in base64: rebuilding and re-uploading it cost 16x a raw GET at 50 MB.
- `303 See Other` (a text namespace past the limit): the ListArtifact JSON written to S3, `Location:` its
  presigned GET, body `{"download_url", "expires_in", "size"}`.

Direct events: `{tenant, memory_name, namespace, max_inline_bytes?}`. Direct invocations come from Step Functions,
whose states are capped at 256 KB, so they get the ListArtifact inline only up to 200 KB (`max_inline_bytes`,
1 byte to 5 MB, overrides) and above that the `BlobDownloads` body (blobs) or the
`{"download_url", "expires_in", "size"}` body (text).
"""

import json
from http import HTTPStatus
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response

from api_common.entry import current_tenant, json_response, make_handler, path_param
from offprompt.errors import InvalidInput
from offprompt.services.task_memory import MAX_INLINE_RESPONSE_BYTES, LoadedArtifacts, default_service

# A Step Functions state (input or output) is capped at 256 KB: keep the inline answer well below it.
DIRECT_MAX_INLINE_BYTES = 200 * 1024


# Looked up at call time, so tests can substitute a service built on their own adapters.
service = default_service


def download(loaded: LoadedArtifacts) -> dict[str, Any]:
    return {"download_url": loaded.download_url, "expires_in": loaded.expires_in, "size": loaded.size}


def register(app: APIGatewayHttpResolver) -> None:
    @app.get("/memories/<memory_name>/namespaces/<namespace>/artifacts")
    def get_artifacts(memory_name: str, namespace: str) -> Response[Any]:
        memory = path_param(app, "memory_name", memory_name)
        name = path_param(app, "namespace", namespace)
        loaded = service().load_artifacts(current_tenant(app), memory, name)
        if loaded.blobs is not None:
            return json_response(loaded.blob_listing())
        if loaded.body is None:
            return json_response(download(loaded), HTTPStatus.SEE_OTHER, headers={"Location": str(loaded.download_url)})
        return Response(status_code=HTTPStatus.OK, content_type="application/json", body=loaded.body)


def direct(tenant: str, event: dict[str, Any]) -> Any:
    memory, namespace = event.get("memory_name"), event.get("namespace")
    if not isinstance(memory, str) or not isinstance(namespace, str):
        raise InvalidInput('a direct invocation must name its "memory_name" and "namespace"')
    limit = direct_inline_limit(event)
    loaded = service().load_artifacts(tenant, memory, namespace, max_inline_bytes=limit)
    if loaded.blobs is not None:
        return loaded.blob_listing()
    return json.loads(loaded.body) if loaded.body is not None else download(loaded)


def direct_inline_limit(event: dict[str, Any]) -> int:
    """The event's `max_inline_bytes` (1..5 MB), or 200 KB when absent or null."""
    value = event.get("max_inline_bytes")
    if value is None:
        return DIRECT_MAX_INLINE_BYTES
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_INLINE_RESPONSE_BYTES:
        raise InvalidInput(f"max_inline_bytes must be an integer from 1 to {MAX_INLINE_RESPONSE_BYTES}")
    return value


lambda_handler = make_handler(register, direct)
