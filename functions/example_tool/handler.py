"""example_tool: the "tool" step of infra/statemachines/offprompt_tool_flow.asl.json.

It stands for any activity whose output is far larger than a Step Functions state may carry (256 KB): it
renders a large web page and PUTs it straight to the presigned S3 upload that ProcessOutputFunction handed
out (`action: create_upload`). Only `{bytes, sha256}` go back into the state; ProcessOutputFunction then stores
the upload in task memory (`value_from`) and answers with Griptape's one-line InfoArtifact reference.

The function needs no AWS permissions of its own: the presigned URL is the authorization, scoped to one key.
Event: `{"upload": {"url", "headers"}, "topic": str, "size_bytes": int}`.
"""

from __future__ import annotations

import hashlib
from typing import Any

import requests

MAX_SIZE_BYTES = 64 * 1024 * 1024
PARAGRAPH = (
    "<p>Section {n} of the {topic} report. Serverless memory keeps large tool outputs out of the prompt and "
    "out of the workflow state: only a reference travels, and later steps load or search the stored text by "
    "memory name and namespace. Measurement {n} recorded a latency of {ms} ms.</p>\n"
)


def render_page(topic: str, size_bytes: int) -> bytes:
    """A deterministic HTML page of at least `size_bytes` bytes about `topic`."""
    parts = [f"<html><head><title>{topic}</title></head><body>\n<h1>{topic}</h1>\n"]
    size, n = len(parts[0]), 0
    while size < size_bytes:
        n += 1
        paragraph = PARAGRAPH.format(n=n, topic=topic, ms=(n * 37) % 1000)
        parts.append(paragraph)
        size += len(paragraph)
    parts.append("</body></html>\n")
    return "".join(parts).encode("utf-8")


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    upload = event["upload"]
    size_bytes = int(event.get("size_bytes", 6 * 1024 * 1024))
    if not 0 < size_bytes <= MAX_SIZE_BYTES:
        raise ValueError(f"size_bytes must be from 1 to {MAX_SIZE_BYTES}")
    page = render_page(str(event.get("topic", "example")), size_bytes)
    response = requests.put(upload["url"], data=page, headers=dict(upload.get("headers") or {}), timeout=60)
    response.raise_for_status()
    return {"bytes": len(page), "sha256": hashlib.sha256(page).hexdigest()}
