"""50 MB values in and out through presigned S3 URLs, over HTTP against moto's server (not in-process mocks)."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import requests
from tm_it_helpers import BUCKET, TABLE, call, http_event, make_resources, opensearch_text_store

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
from offprompt.adapters.s3 import S3BlobStore
from offprompt.artifacts import BlobArtifact, TextArtifact
from offprompt.composition.task_memory import task_memory_service
from offprompt.config import get_settings
from offprompt.services.task_memory import TaskMemoryService

pytestmark = pytest.mark.slow
SIZE = 50 * 1024 * 1024


@pytest.fixture
def server(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    get_settings.cache_clear()
    reset_clients()
    make_resources()  # on an empty account: the moto_server fixture resets moto's process-wide state
    yield moto_server
    get_settings.cache_clear()
    reset_clients()


def wire(svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    import load_artifacts.handler as la
    import process_output.handler as po

    for module in (po, la):
        monkeypatch.setattr(module, "service", lambda: svc)
    return SimpleNamespace(po=po, la=la)


def round_trip(h: SimpleNamespace, envelope: dict[str, Any], data: bytes) -> dict[str, Any]:
    status, upload, _ = call(h.po, http_event("process_output_upload_http.json"))
    assert status == 201
    put = requests.put(upload["url"], data=data, headers=upload["headers"], timeout=300)
    assert put.status_code == 200
    body = {
        "tool": "WebTool",
        "activity": "fetch",
        "artifact": envelope,
        "value_from": {"upload_id": upload["upload_id"]},
    }
    status, answer, _ = call(h.po, http_event("process_output_http.json", body=body))
    assert status == 200 and answer["name"] == envelope["name"], answer
    event = http_event(
        "load_artifacts_http.json",
        path=f"/memories/TaskMemory/namespaces/{envelope['name']}/artifacts",
        params={"memory_name": "TaskMemory", "namespace": envelope["name"]},
    )
    status, answer, headers = call(h.la, event)
    if envelope["type"] == "BlobArtifact":  # large blobs: their stored objects, nothing rebuilt
        assert status == 200 and answer["type"] == "BlobDownloads" and answer["size"] == len(data)
        [entry] = answer["artifacts"]
        got = requests.get(entry["download_url"], timeout=300)
        assert got.status_code == 200 and entry["size"] == len(got.content)
        item = entry["artifact"] | {"value": base64.b64encode(got.content).decode()}
        return {"type": "ListArtifact", "value": [item]}
    assert status == 303 and headers["Location"] == answer["download_url"]
    got = requests.get(headers["Location"], timeout=300)
    assert got.status_code == 200
    return json.loads(got.content)


def test_50mb_blob_in_and_out(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    svc = task_memory_service(DynamoDbNamespaceStore(TABLE), S3BlobStore(BUCKET), None, bucket=BUCKET)  # type: ignore[arg-type]
    h = wire(svc, monkeypatch)
    data = os.urandom(SIZE)
    envelope = {"type": "BlobArtifact", "id": "big", "reference": None, "meta": {"src": "x"}, "name": "bigblob"}
    loaded = round_trip(h, envelope, data)
    expected = BlobArtifact(data, id="big", name="bigblob", meta={"src": "x"})
    assert len(loaded["value"]) == 1 and BlobArtifact.from_dict(loaded["value"][0]).to_json() == expected.to_json()


def test_50mb_text_in_and_out(
    server: str, monkeypatch: pytest.MonkeyPatch, opensearch_client: Any, opensearch_index: str
) -> None:
    texts = opensearch_text_store(opensearch_client, opensearch_index)
    svc = task_memory_service(DynamoDbNamespaceStore(TABLE), S3BlobStore(BUCKET), texts, bucket=BUCKET)
    h = wire(svc, monkeypatch)
    unit = "Ünïcødé text 🎉 with words, numbers 12345 and\n\nparagraphs. "
    text = (unit * (SIZE // len(unit.encode()) + 1)).encode()[:SIZE].decode("utf-8", "ignore")
    envelope = {"type": "TextArtifact", "id": "bigt", "reference": None, "meta": {}, "name": "bigtext"}
    loaded = round_trip(h, envelope, text.encode())
    assert json.dumps(loaded["value"][0]) == TextArtifact(text, id="bigt", name="bigtext").to_json()
