"""BedrockTitanEmbedder against botocore's Stubber: the exact request, response parsing, and failures."""

from __future__ import annotations

import io
import json
import threading
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber

from offprompt.adapters.embeddings import TITAN_V2, BedrockTitanEmbedder
from offprompt.config import ConfigurationError
from offprompt.errors import DependencyUnavailable, InvalidInput


class JsonBody:
    """Matches a request body (a JSON string) by its decoded value."""

    def __init__(self, expected: dict[str, Any]) -> None:
        self.expected = expected

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str | bytes) and json.loads(other) == self.expected

    def __repr__(self) -> str:
        return f"JsonBody({self.expected!r})"


def streaming(payload: Any) -> StreamingBody:
    raw = json.dumps(payload).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def expect(stubber: Stubber, text: str, vector: list[float], dimensions: int = 256) -> None:
    stubber.add_response(
        "invoke_model",
        {"body": streaming({"embedding": vector, "inputTextTokenCount": 3}), "contentType": "application/json"},
        {
            "modelId": TITAN_V2,
            "body": JsonBody({"inputText": text, "dimensions": dimensions, "normalize": True}),
            "contentType": "application/json",
            "accept": "application/json",
        },
    )


def test_one_call_per_text_in_order(client: Any) -> None:
    embedder = BedrockTitanEmbedder(dimensions=256, client=client, max_workers=1)
    first, second = [0.5] * 256, [-0.25] * 256
    with Stubber(client) as stubber:
        expect(stubber, "hello world", first)
        expect(stubber, "caf\u00e9 \U0001f600", second)
        assert embedder.embed(["hello world", "caf\u00e9 \U0001f600"]) == [first, second]
        stubber.assert_no_pending_responses()


def test_the_default_model_and_dimensions(client: Any) -> None:
    embedder = BedrockTitanEmbedder(client=client)
    assert (embedder.model_id, embedder.dimensions) == (TITAN_V2, 1024)
    with Stubber(client) as stubber:
        expect(stubber, "x", [0.1] * 1024, dimensions=1024)
        assert embedder.embed(["x"]) == [[0.1] * 1024]


def test_no_texts_no_calls(client: Any) -> None:
    with Stubber(client) as stubber:
        assert BedrockTitanEmbedder(dimensions=256, client=client).embed([]) == []
        stubber.assert_no_pending_responses()


@pytest.mark.parametrize(
    "code,status",
    [
        ("ThrottlingException", 429),
        ("ServiceUnavailableException", 503),
        ("ModelTimeoutException", 408),
        ("AccessDeniedException", 403),
        ("ValidationException", 400),
    ],
)
def test_bedrock_errors_are_dependency_unavailable(client: Any, code: str, status: int) -> None:
    embedder = BedrockTitanEmbedder(dimensions=256, client=client, max_workers=1)
    with Stubber(client) as stubber:
        stubber.add_client_error("invoke_model", service_error_code=code, http_status_code=status)
        with pytest.raises(DependencyUnavailable) as raised:
            embedder.embed(["hello"])
    assert raised.value.details == {"error": code}
    assert code in raised.value.message


@pytest.mark.parametrize(
    "payload", [{}, {"embedding": [0.1] * 255}, {"embedding": None}, {"embedding": ["a"] * 256}, [0.1] * 256]
)
def test_a_malformed_response_is_dependency_unavailable(client: Any, payload: Any) -> None:
    embedder = BedrockTitanEmbedder(dimensions=256, client=client, max_workers=1)
    with Stubber(client) as stubber:
        stubber.add_response("invoke_model", {"body": streaming(payload), "contentType": "application/json"})
        with pytest.raises(DependencyUnavailable, match="256-dimensional"):
            embedder.embed(["hello"])


def test_a_non_json_response_is_dependency_unavailable(client: Any) -> None:
    embedder = BedrockTitanEmbedder(dimensions=256, client=client, max_workers=1)
    with Stubber(client) as stubber:
        stubber.add_response("invoke_model", {"body": StreamingBody(io.BytesIO(b"<html>"), 6), "contentType": "x"})
        with pytest.raises(DependencyUnavailable):
            embedder.embed(["hello"])


@pytest.mark.parametrize("text", ["", "   \n", "x" * 50_001])
def test_unembeddable_text_is_refused_before_any_call(client: Any, text: str) -> None:
    with Stubber(client) as stubber, pytest.raises(InvalidInput):
        BedrockTitanEmbedder(dimensions=256, client=client).embed(["fine", text])
    stubber.assert_no_pending_responses()


def test_bad_dimensions_are_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        BedrockTitanEmbedder(dimensions=100)


def test_parallel_calls_keep_the_order() -> None:
    """Many texts go out concurrently (boto3 clients are thread-safe) and come back in input order."""

    class Recorder:
        def __init__(self) -> None:
            self.threads: set[int] = set()
            self.barrier = threading.Barrier(4, timeout=10)

        def invoke_model(self, **request: Any) -> dict[str, Any]:
            self.threads.add(threading.get_ident())
            text = json.loads(request["body"])["inputText"]
            if len(self.threads) <= 4 and int(text) < 4:
                self.barrier.wait()  # proves the first four calls were in flight together
            return {"body": streaming({"embedding": [float(text)] * 256})}

    recorder = Recorder()
    embedder = BedrockTitanEmbedder(dimensions=256, client=recorder, max_workers=4)
    vectors = embedder.embed([str(i) for i in range(40)])
    assert [v[0] for v in vectors] == [float(i) for i in range(40)]
    assert len(recorder.threads) == 4


def test_the_default_client_is_built_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    from offprompt.adapters import clients

    built: list[str] = []
    monkeypatch.setattr(clients, "aws_client", lambda service: built.append(service) or "client")
    embedder = BedrockTitanEmbedder()
    assert built == []
    assert embedder.client == "client"
    assert built == ["bedrock-runtime"]
