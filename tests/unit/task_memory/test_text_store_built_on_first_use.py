"""Blob-only requests never configure, build or connect an OpenSearch store: the text store adapter
(`adapters.opensearch_text.LazyTextStore`) builds it on the first text call, through the composition root's factory."""

from __future__ import annotations

from typing import Any

import pytest
from tm_unit_helpers import BUCKET, TABLE

from offprompt.artifacts import BlobArtifact, ListArtifact, TextArtifact
from offprompt.composition import task_memory
from offprompt.config import load_settings


class Refused(Exception):
    pass


def test_blob_requests_never_build_the_text_store(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []

    def factory(settings: Any) -> Any:
        built.append(settings)
        raise Refused("the text store was built")

    monkeypatch.setattr(task_memory, "text_store_from_settings", factory)
    # No OpenSearch URL at all: building the text store would also fail on configuration.
    svc = task_memory.service_from_settings(load_settings({"OFFPROMPT_TABLE": TABLE, "OFFPROMPT_BUCKET": BUCKET}))

    blobs = ListArtifact([BlobArtifact(b"one", name="a"), BlobArtifact(b"two", name="b")], name="blobs")
    assert svc.process_output("t1", "TaskMemory", tool="T", activity="a", artifact=blobs).stored
    assert len(svc.load_items_json("t1", "TaskMemory", "blobs")) == 2
    assert svc.create_upload("t1", "TaskMemory").upload_id
    assert svc.search("t1", "TaskMemory", "unknown", "query") == []  # no batches: OpenSearch is not asked
    assert built == []

    # The first text call builds it (so the check above can fail).
    with pytest.raises(Refused):
        svc.process_output("t1", "TaskMemory", tool="T", activity="a", artifact=TextArtifact("hi", name="texts"))
    assert len(built) == 1
