"""add-run refuses a run whose artifacts cannot become messages whether or not it counts the run's tokens: counting
(a warm tokenizer, ADR 0040) used to be the only check, so a cold add-run stored a binary BlobArtifact that every
later prompt-stack of the thread refused."""

from __future__ import annotations

import base64

import pytest

from offprompt.errors import OffpromptError
from offprompt.services.conversation.add_run import parse_run


def test_a_blob_whose_bytes_are_not_text_is_refused_before_anything_is_counted_or_written() -> None:
    run = {
        "type": "Run",
        "id": "r1",
        "input": {"type": "TextArtifact", "value": "give me the bytes"},
        "output": {"type": "BlobArtifact", "value": base64.b64encode(b"\x89PNG\xff\xfe\x00").decode()},
    }
    with pytest.raises(OffpromptError) as refused:
        parse_run("t1", run)
    assert refused.value.to_dict()["code"] == "invalid_artifact"
    assert "BlobArtifact" in refused.value.to_dict()["message"]


def test_a_blob_of_text_bytes_parses() -> None:
    run = {
        "type": "Run",
        "input": {"type": "TextArtifact", "value": "q"},
        "output": {"type": "BlobArtifact", "value": base64.b64encode("héllo".encode()).decode()},
    }
    assert parse_run("t1", run).run.output.to_text() == "héllo"
