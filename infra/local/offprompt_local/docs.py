"""The HTTP API's OpenAPI 3.1 document, generated from the functions' Powertools routes, and Swagger UI.

`python -m offprompt_local.docs` (`make openapi`) writes docs/openapi.json; tests/infrastructure/test_openapi.py
checks that the checked-in file equals what the code generates. The dev server serves the document at
`/openapi.json` and Swagger UI at `/docs`, with the Swagger UI assets Powertools bundles (no CDN needed).

Nothing happens at import time: handlers are imported by `generate()`.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from .routes import declared_routes, functions

TITLE = "offprompt"
VERSION = "1.0.0"
DOCUMENT = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"


def generate() -> dict[str, Any]:
    """One document from every HTTP function's resolver: paths, operations and component schemas merged."""
    from api_common.entry import _build_app

    document: dict[str, Any] = {}
    for function in functions():
        module = importlib.import_module(f"{function}.handler")
        app = _build_app(module.register)
        part = json.loads(
            app.get_openapi_json_schema(
                title=TITLE,
                version=VERSION,
                description="Serverless, Griptape-compatible memory for LLM agents. Errors: {code, message, details?}.",
            )
        )
        if not document:
            document = {k: v for k, v in part.items() if k not in ("paths", "components")}
            document["paths"], document["components"] = {}, {"schemas": {}}
        for path, operations in part.get("paths", {}).items():
            document["paths"].setdefault(path, {}).update(operations)
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
    return html.generate_swagger_html(openapi_bytes().decode("utf-8"), js, css, "", None)


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
