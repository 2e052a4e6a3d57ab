"""Helpers of the task-memory unit tests: their moto table and bucket, and the shared helpers bound to them."""

from __future__ import annotations

import functools
from typing import Any

import task_memory_support as support
from task_memory_support import http_event, load_event

TABLE = "offprompt-unit"
BUCKET = "offprompt-unit-bucket"

make_resources = functools.partial(support.make_resources, TABLE, BUCKET)
all_items = functools.partial(support.all_items, TABLE)
all_objects = functools.partial(support.all_objects, BUCKET)


def count_calls(svc: Any) -> list[str]:
    """The AWS operations the service's DynamoDB and S3 clients make from now on, in order."""
    calls: list[str] = []
    for client in (svc.namespaces.client, svc.blobs.client):
        client.meta.events.register("before-call", lambda model, **_: calls.append(model.name))
    return calls


class Ctx:
    aws_request_id = "test-request"
    function_name = "test"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test"


def call(handler: Any, event: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    """Invoke a Lambda handler with an HTTP event; return (status, parsed JSON body or None, headers)."""
    return support.call(handler, event, Ctx())


__all__ = ["BUCKET", "TABLE", "Ctx", "all_items", "all_objects", "call", "http_event", "load_event", "make_resources"]
