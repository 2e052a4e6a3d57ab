"""The HTTP API's OpenAPI 3.1 document, generated from the functions' Powertools routes, and Swagger UI.

`python -m offprompt_local.docs` (`make openapi`) writes docs/openapi.json; tests/infrastructure/test_openapi.py
checks that the checked-in file equals what the code generates. The dev server serves the document at
`/openapi.json` and Swagger UI at `/docs`, with the Swagger UI assets Powertools bundles (no CDN needed).

What the routes do not declare is added here, from two tables: each operation's tag comes from the function that
serves it (FUNCTION_TAGS; routes.py names the function of every route), and every operation accepts any one of
the three ways a deployment authenticates (SECURITY_SCHEMES: a deployment's AuthMode picks one). Swagger UI keeps
what "Authorize" was given (persistAuthorization), and sends an API key as `Authorization: Bearer op_...` itself.

Nothing happens at import time: handlers are imported by `generate()`.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from .routes import PUBLIC_FUNCTIONS, declared_routes, functions

TITLE = "offprompt"
VERSION = "1.0.0"
DOCUMENT = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"
DESCRIPTION = (
    "Serverless, Griptape-compatible memory for LLM agents. Errors: {code, message, details?}. "
    "Authentication: a deployment accepts one of the security schemes below, the one its AuthMode names; the caller's "
    "identity names the tenant. `make dev` needs none (the tenant is the X-Offprompt-Tenant header, default `local`) "
    "unless the request carries an offprompt API key (apiKey), which it checks with the deployed authorizer's code."
)

CONVERSATION = "conversation"
TASK_MEMORY = "task memory"
CLOUD_THREADS = "Griptape Cloud threads"
KEYS_AND_USAGE = "keys and usage"
TENANT_DATA = "tenant data"
MCP = "MCP"
RECORDS = "records"
CHECKPOINTS = "LangGraph checkpoints"
EXTRACTION = "extraction"
CONSOLE = "console"
#: The document's tags, in the order Swagger UI lists them.
TAGS: tuple[dict[str, str], ...] = (
    {
        "name": CONVERSATION,
        "description": "Conversation memory: append and list a thread's runs, read, configure (max_runs, memory_type, "
        "retention) and delete the thread, and its history as a token-budgeted Griptape PromptStack.",
    },
    {
        "name": TASK_MEMORY,
        "description": "Off-prompt task memory: store a tool's output by memory name and namespace (text in "
        "OpenSearch, blobs in S3; presigned uploads for large values), load it back as a ListArtifact, search it "
        "(BM25, k-NN, hybrid), list and delete namespaces, read the meta entries.",
    },
    {
        "name": CLOUD_THREADS,
        "description": "Griptape Cloud's Threads API under /api, over the same threads and runs: Griptape's "
        "GriptapeCloudConversationMemoryDriver works with a base URL and an API key.",
    },
    {
        "name": KEYS_AND_USAGE,
        "description": "Hosted mode (AuthMode=apikey): the caller's own API keys (create, list, revoke) and its usage "
        "per UTC day.",
    },
    {
        "name": TENANT_DATA,
        "description": "All of the caller's data: export it (JSONL + files in S3, presigned) or erase it from every "
        "store, verified.",
    },
    {
        "name": RECORDS,
        "description": "Long-term memory (LangGraph's store): JSON records by namespace and key, with text search "
        "(OpenSearch proposes, DynamoDB decides), filters, TTL and history (every replace and delete is a version; "
        "as_of reads the past).",
    },
    {
        "name": EXTRACTION,
        "description": "Long-term memory that builds itself (docs/adr/0051): strategies (facts, preferences, summary, "
        "custom) turn settled conversations into records through a model, consolidated with what a namespace holds "
        "(add, update with history, delete), each record with its provenance; each thread's status per strategy.",
    },
    {
        "name": CHECKPOINTS,
        "description": "LangGraph's checkpointer (offprompt_client.langgraph.OffpromptSaver): checkpoints and "
        "pending writes one item each, blobs past the item limit in S3, the latest in one DynamoDB Query, "
        "copy_thread as a fork that shares the history, prune and delete that keep what live copies read.",
    },
    {
        "name": CONSOLE,
        "description": "The memory console (a web page at /console): its static files, with no credentials; it "
        "signs in with an API key (or the local tenant) and calls the routes above (docs/adr/0038).",
    },
    {
        "name": MCP,
        "description": "The Model Context Protocol endpoint (Streamable HTTP, stateless JSON-RPC 2.0): the same "
        "memory as MCP tools ({tools}; docs/mcp.md) for Claude, Cursor, VS Code, Strands, the OpenAI Agents SDK, ...",
    },
)
#: The tag of each HTTP function's operations (routes.py's functions): one table, so route declarations carry none.
FUNCTION_TAGS: dict[str, str] = {
    "add_run": CONVERSATION,
    "threads": CONVERSATION,
    "prompt_stack": CONVERSATION,
    "cloud_threads": CLOUD_THREADS,
    "process_output": TASK_MEMORY,
    "load_artifacts": TASK_MEMORY,
    "memories": TASK_MEMORY,
    "account": KEYS_AND_USAGE,
    "tenant_data": TENANT_DATA,
    "mcp_server": MCP,
    "records": RECORDS,
    "extraction": EXTRACTION,
    "checkpoints": CHECKPOINTS,
    "console": CONSOLE,
}
#: The three ways a deployment authenticates (template.yaml's AuthMode), as OpenAPI can say them.
SECURITY_SCHEMES: dict[str, dict[str, str]] = {
    "apiKey": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "op_<key_id>_<secret>",
        "description": "AuthMode=apikey (hosted mode): an offprompt API key, sent as `Authorization: Bearer "
        "op_<key_id>_<secret>`; the key names the tenant and its plan. `offprompt-admin tenant create` (or "
        "`POST /keys`) makes one; it is shown once. make dev checks keys with the same authorizer code (a revoked "
        "key fails at once there; deployed, within the authorizer cache's 300 s). In Swagger UI: Authorize, then "
        "paste the whole key (without `Bearer`).",
    },
    "jwt": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "AuthMode=jwt: a JWT issued by the deployment's JwtIssuer for one of its JwtAudience (e.g. "
        "a Cognito ID or access token), sent as `Authorization: Bearer <JWT>`; API Gateway's JWT authorizer "
        "checks it, and its TenantClaim claim (default `sub`) names the tenant. make dev does not check JWTs.",
    },
    "iam": {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "AuthMode=iam: the request signed with AWS Signature Version 4 for the service `execute-api` "
        "(`Authorization: AWS4-HMAC-SHA256 ...` with `X-Amz-Date`, and `X-Amz-Security-Token` for temporary "
        "credentials); the caller's IAM principal names the tenant. OpenAPI has no SigV4 scheme, so this names "
        "only the header: sign with an AWS SDK (Swagger UI cannot sign a request).",
    },
}
#: Every operation: any one of the schemes (a deployment accepts the one its AuthMode names).
SECURITY: tuple[dict[str, list[str]], ...] = tuple({name: []} for name in SECURITY_SCHEMES)


def _tag(tag: dict[str, str]) -> dict[str, str]:
    """A tag as the document says it: the MCP tag names the tools of the MCP tool table (mcp_server.tools)."""
    if tag["name"] != MCP:
        return dict(tag)
    from mcp_server.tools import specs

    return tag | {"description": tag["description"].format(tools=", ".join(specs()))}


def generate() -> dict[str, Any]:
    """One document from every HTTP function's resolver: paths, operations and component schemas merged."""
    document: dict[str, Any] = {}
    for function in functions():
        module = importlib.import_module(f"{function}.handler")
        app = module.routes.openapi_app()  # the routes with their response models (the handler's resolver has none)
        part = json.loads(app.get_openapi_json_schema(title=TITLE, version=VERSION, description=DESCRIPTION))
        if function not in FUNCTION_TAGS:
            raise RuntimeError(f"function {function} has no tag: add it to FUNCTION_TAGS")
        if not document:
            document = {k: v for k, v in part.items() if k not in ("paths", "components")}
            document["tags"] = [_tag(tag) for tag in TAGS]
            document["paths"] = {}
            document["components"] = {"schemas": {}, "securitySchemes": SECURITY_SCHEMES}
        for path, operations in part.get("paths", {}).items():
            for method, operation in operations.items():
                security = [] if function in PUBLIC_FUNCTIONS else list(SECURITY)  # the console's files: none
                tagged = {"tags": [FUNCTION_TAGS[function]], **operation, "security": security}
                document["paths"].setdefault(path, {})[method] = tagged
        for name, schema in part.get("components", {}).get("schemas", {}).items():
            known = document["components"]["schemas"].setdefault(name, schema)
            if known != schema:
                raise RuntimeError(f"two functions declare different schemas named {name}")
    declared = {(r.method.lower(), r.path) for r in declared_routes()}
    generated = {(m, p) for p, ops in document["paths"].items() for m in ops}
    if declared != generated:
        raise RuntimeError(f"the declared routes and the resolvers differ: {sorted(declared ^ generated)}")
    for operations in document["paths"].values():
        for operation in operations.values():
            operation["responses"] = dict(sorted(operation["responses"].items()))
    document["paths"] = dict(sorted(document["paths"].items()))
    schemas = document["components"]["schemas"]
    # Powertools adds its own validation-error schemas; our errors are ErrorBody, so drop what nothing references.
    kept: dict[str, Any] = {}
    while True:
        text = json.dumps(document["paths"]) + json.dumps(kept)
        referenced = {name: schema for name, schema in schemas.items() if f'#/components/schemas/{name}"' in text}
        if referenced.keys() == kept.keys():
            break
        kept = referenced
    document["components"]["schemas"] = dict(sorted(kept.items()))
    return document


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


@functools.cache
def openapi_bytes() -> bytes:
    return render(generate()).encode("utf-8")


def swagger_html() -> str:
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import html

    assets = Path(html.__file__).parent
    js = (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8")
    css = (assets / "swagger-ui.min.css").read_text(encoding="utf-8")
    # persist_authorization: what "Authorize" was given survives a reload (kept in the browser's localStorage).
    return html.generate_swagger_html(openapi_bytes().decode("utf-8"), js, css, "", None, persist_authorization=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render(generate())
    if args == ["--check"]:
        current = DOCUMENT.read_text(encoding="utf-8") if DOCUMENT.exists() else ""
        if current != text:
            print(f"{DOCUMENT} is out of date: run make openapi", file=sys.stderr)
            return 1
        return 0
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote {DOCUMENT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
