"""A plan's stored-bytes limit holds: what an upload really holds is counted, an upload is consumed once, and
concurrent stores cannot pass the limit together (outsider finding 5)."""

from __future__ import annotations

import base64
import threading
from typing import Any

import requests
from hosted_support import MEMORY, Deployment, authorized, call, new_key

TENANT = "acme"
LIMIT = 50_000


def create_upload(token: str) -> dict[str, Any]:
    status, upload, _ = call(
        "process_output",
        "process_output_upload_http.json",
        token,
        path=f"/memories/{MEMORY}/uploads",
        method="POST",
        body={},
        memory_name=MEMORY,
    )
    assert status == 201, upload
    return upload


def store(token: str, artifact: dict[str, Any], cached: dict[str, Any] | None = None, **fields: Any) -> tuple[int, Any]:
    body = {"tool": "T", "activity": "a", "artifact": artifact, **fields}
    status, answer, _ = call(
        "process_output",
        "process_output_http.json",
        token,
        path=f"/memories/{MEMORY}/outputs",
        method="POST",
        body=body,
        cached=cached,
        memory_name=MEMORY,
    )
    return status, answer


def gauge(token: str) -> int:
    status, body, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, body
    return int(body["stored_bytes"])


def test_an_upload_is_metered_by_what_it_holds(stack: Deployment) -> None:
    token = new_key(TENANT, stored_bytes=LIMIT)
    upload = create_upload(token)
    requests.put(upload["url"], data=b"x" * 500_000, headers=upload["headers"], timeout=30).raise_for_status()
    artifact = {"type": "BlobArtifact", "name": "big", "meta": {}}
    status, answer = store(token, artifact, value_from={"upload_id": upload["upload_id"]})
    assert status == 429 and answer["code"] == "quota_exceeded", answer
    assert answer["details"]["quota"] == "stored_bytes", answer
    assert gauge(token) == 0
    status, listed, _ = call(
        "memories",
        "memories_list_namespaces_http.json",
        token,
        path=f"/memories/{MEMORY}/namespaces",
        method="GET",
        memory_name=MEMORY,
    )
    assert listed["namespaces"] == [], listed


def test_an_upload_is_consumed_once_even_by_concurrent_stores(stack: Deployment) -> None:
    token = new_key(TENANT, stored_bytes=10 * LIMIT)
    cached = authorized(token)
    upload = create_upload(token)
    requests.put(upload["url"], data=b"y" * 20_000, headers=upload["headers"], timeout=30).raise_for_status()
    answers: list[tuple[int, Any]] = []
    start = threading.Barrier(6)

    def one(n: int) -> None:
        start.wait()
        artifact = {"type": "BlobArtifact", "name": f"ns-{n}", "meta": {}}
        answers.append(store(token, artifact, cached=cached, value_from={"upload_id": upload["upload_id"]}))

    workers = [threading.Thread(target=one, args=(n,)) for n in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    statuses = sorted(status for status, _ in answers)
    assert statuses.count(200) == 1, answers
    assert all(400 <= s < 500 for s in statuses if s != 200), answers
    assert gauge(token) == 20_000 + 2  # the blob and its meta entry ("[]"; no thought), once


def test_concurrent_stores_cannot_pass_the_limit_together(stack: Deployment) -> None:
    token = new_key(TENANT, stored_bytes=LIMIT)
    cached = authorized(token)
    answers: list[tuple[int, Any]] = []
    start = threading.Barrier(20)
    payload = base64.b64encode(b"z" * 12_500).decode()

    def one(n: int) -> None:
        start.wait()
        artifact = {"type": "BlobArtifact", "name": f"ns-{n}", "meta": {}, "value": payload}
        answers.append(store(token, artifact, cached=cached))

    workers = [threading.Thread(target=one, args=(n,)) for n in range(20)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    stored = [a for a in answers if a[0] == 200]
    refused = [a for a in answers if a[0] == 429]
    assert len(stored) + len(refused) == 20, answers
    assert 1 <= len(stored) <= LIMIT // 12_500, len(stored)
    assert gauge(token) <= LIMIT
    assert gauge(token) == len(stored) * (12_500 + 2)
