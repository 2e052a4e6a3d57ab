"""Helpers for the conversation-memory handler tests: events from events/*.json, the Api wrapper."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

EVENTS = Path(__file__).resolve().parents[3] / "events"
TABLE = "offprompt-test"
BUCKET = "offprompt-test-bucket"


def load_event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return data


def text_run(run_id: str | None, question: str, answer: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Griptape Run JSON (canonical key order) with text input and output."""
    run: dict[str, Any] = {"type": "Run"}
    if run_id is not None:
        run["id"] = run_id
    run["meta"] = meta
    run["input"] = {
        "type": "TextArtifact",
        "id": f"i-{run_id}",
        "reference": None,
        "meta": {},
        "name": "i",
        "value": question,
    }
    run["output"] = {
        "type": "TextArtifact",
        "id": f"o-{run_id}",
        "reference": None,
        "meta": {},
        "name": "o",
        "value": answer,
    }
    return run


class Api:
    """Calls the handlers the way Lambda does, with API Gateway v2 events (and direct events)."""

    def __init__(self) -> None:
        from add_run import handler as add_run
        from prompt_stack import handler as prompt_stack
        from summarizer import handler as summarizer
        from threads import handler as threads

        self.add_run = add_run.lambda_handler
        self.prompt_stack_fn = prompt_stack.lambda_handler
        self.threads = threads.lambda_handler
        self.summarizer = summarizer.lambda_handler

    def http(
        self,
        fn: Any,
        template: str,
        method: str,
        path: str,
        *,
        body: Any = None,
        raw_body: str | None = None,
        query: dict[str, str] | None = None,
        tenant: str = "tenant-a",
        thread_id: str = "thread-1",
    ) -> tuple[int, Any]:
        event = copy.deepcopy(load_event(template))
        event["rawPath"] = path
        event["requestContext"]["http"]["method"] = method
        event["requestContext"]["http"]["path"] = path
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
        event["pathParameters"] = {"thread_id": thread_id}
        event.pop("body", None)
        if raw_body is not None:
            event["body"] = raw_body
        elif body is not None:
            event["body"] = json.dumps(body)
        event.pop("queryStringParameters", None)
        event["rawQueryString"] = urlencode(query or {})
        if query:
            event["queryStringParameters"] = query
        out = fn(event, None)
        text = out.get("body") or ""
        return out["statusCode"], (json.loads(text) if text else None)

    def post_run(
        self, thread_id: str, run: Any, *, tenant: str = "tenant-a", raw: str | None = None
    ) -> tuple[int, Any]:
        path = f"/threads/{quote(thread_id, safe='')}/runs"
        return self.http(
            self.add_run, "add_run_http.json", "POST", path, body=run, raw_body=raw, tenant=tenant, thread_id=thread_id
        )

    def prompt_stack(self, thread_id: str, body: Any, *, tenant: str = "tenant-a") -> tuple[int, Any]:
        path = f"/threads/{quote(thread_id, safe='')}/prompt-stack"
        return self.http(
            self.prompt_stack_fn, "prompt_stack_http.json", "POST", path, body=body, tenant=tenant, thread_id=thread_id
        )

    def thread(self, method: str, thread_id: str, body: Any = None, *, tenant: str = "tenant-a") -> tuple[int, Any]:
        template = {"GET": "thread_get_http.json", "PUT": "thread_put_http.json", "DELETE": "thread_delete_http.json"}
        path = f"/threads/{quote(thread_id, safe='')}"
        return self.http(self.threads, template[method], method, path, body=body, tenant=tenant, thread_id=thread_id)

    def runs(self, thread_id: str, *, tenant: str = "tenant-a", **query: str) -> tuple[int, Any]:
        path = f"/threads/{quote(thread_id, safe='')}/runs"
        return self.http(
            self.threads, "thread_runs_http.json", "GET", path, query=query, tenant=tenant, thread_id=thread_id
        )


def all_items(ddb: Any) -> list[dict[str, Any]]:
    """The table's items but the audit log's (a refused request is recorded there by design, ADR 0056)."""
    items: list[dict[str, Any]] = []
    for page in ddb.get_paginator("scan").paginate(TableName=TABLE):
        items.extend(i for i in page["Items"] if not i["pk"]["S"].startswith("AUDIT#"))
    return items


def all_objects(s3: Any) -> list[str]:
    return [
        o["Key"]
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
        for o in page.get("Contents", [])
    ]
