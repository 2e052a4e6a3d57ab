"""The Bedrock rerank adapter (docs/adr/0068) with real boto3 against a scripted server speaking the Rerank API's
wire format: the request boto3 sends (signed for Bedrock, the model's ARN, INLINE TEXT documents), the scores read
back, and each failure (4xx, 5xx, throttling, an unreadable answer) as DependencyUnavailable naming nothing internal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rerank_server import RerankServer, aws_error, rerank_server

from offprompt.adapters.bedrock_rerank import API_TEXT_CHARS, BedrockReranker
from offprompt.adapters.clients import reset_clients
from offprompt.errors import DependencyUnavailable

MODEL = "amazon.rerank-v1:0"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[RerankServer]:
    with rerank_server() as scripted:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME", scripted.url)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
        monkeypatch.setenv("AWS_REGION", "us-west-2")
        reset_clients()
        yield scripted
    reset_clients()


def test_the_request_boto3_sends_and_the_scores_it_reads(server: RerankServer) -> None:
    texts = ["the cat sat", "dogs bark at the mail", "my cat Mochi sleeps"]
    assert BedrockReranker(MODEL).rerank("where does my cat sleep", texts, 3) == [
        (2, pytest.approx(0.4)),  # "my", "cat"
        (0, pytest.approx(0.2)),
        (1, 0.0),
    ]
    (request,) = server.requests
    assert request["path"] == "/rerank"
    assert "/us-west-2/bedrock/aws4_request" in request["headers"]["Authorization"]  # SigV4 for Bedrock
    assert request["body"] == {
        "queries": [{"type": "TEXT", "textQuery": {"text": "where does my cat sleep"}}],
        "sources": [
            {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": t}}} for t in texts
        ],
        "rerankingConfiguration": {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": {
                "numberOfResults": 3,
                "modelConfiguration": {"modelArn": f"arn:aws:bedrock:us-west-2::foundation-model/{MODEL}"},
            },
        },
    }


def test_a_model_arn_is_sent_as_is_and_texts_are_kept_within_the_api_limits(server: RerankServer) -> None:
    arn = "arn:aws:bedrock:eu-central-1::foundation-model/cohere.rerank-v3-5:0"
    out = BedrockReranker(arn).rerank("q", ["x" * (API_TEXT_CHARS + 10), "  "], 5)
    assert [i for i, _ in out] == [0, 1]
    body = server.bodies()[0]
    config = body["rerankingConfiguration"]["bedrockRerankingConfiguration"]
    assert config["modelConfiguration"]["modelArn"] == arn
    assert config["numberOfResults"] == 2  # never more than the documents sent
    sent = [s["inlineDocumentSource"]["textDocument"]["text"] for s in body["sources"]]
    assert sent == ["x" * API_TEXT_CHARS, "-"]  # cut to the API's bound; a blank text is not refused
    with pytest.raises(ValueError):
        BedrockReranker(MODEL).rerank("q", ["t"] * 101, 10)  # a billed query holds 100: the caller bounds it
    assert BedrockReranker(MODEL).rerank("q", [], 10) == []
    assert len(server.requests) == 1  # neither reached the API


@pytest.mark.parametrize(
    ("status", "code", "attempts"),
    [
        (400, "ValidationException", 1),
        (403, "AccessDeniedException", 1),
        (404, "ResourceNotFoundException", 1),
        (429, "ThrottlingException", 3),  # botocore's standard retries, then unavailable
        (500, "InternalServerException", 3),
        (502, "BadGatewayException", 3),
    ],
)
def test_a_refused_or_failed_call_is_dependency_unavailable(
    server: RerankServer, status: int, code: str, attempts: int
) -> None:
    server.answer = lambda _: aws_error(status, code, "model arn:aws:bedrock:internal detail")
    with pytest.raises(DependencyUnavailable) as caught:
        BedrockReranker(MODEL).rerank("q", ["a", "b"], 2)
    assert str(caught.value) == f"Bedrock rerank failed: {code}"  # the AWS code, never the message or endpoint
    assert len(server.requests) == attempts


@pytest.mark.parametrize(
    "body",
    [
        {},  # no results
        {"results": "none"},
        {"results": [{"index": 2, "relevanceScore": 0.5}]},  # an index not sent
        {"results": [{"index": 0, "relevanceScore": 0.5}, {"index": 0, "relevanceScore": 0.4}]},  # twice
        {"results": [{"index": 0}]},  # no score
        {"results": [{"index": 0, "relevanceScore": "high"}]},
        b"{not json",
    ],
)
def test_an_unreadable_answer_is_dependency_unavailable(server: RerankServer, body: object) -> None:
    server.answer = lambda _: (200, body, {})
    with pytest.raises(DependencyUnavailable, match=r"^Bedrock rerank answered"):
        BedrockReranker(MODEL).rerank("q", ["a", "b"], 2)


def test_fewer_results_than_documents_are_read_best_first(server: RerankServer) -> None:
    server.answer = lambda _: (
        200,
        {"results": [{"index": 1, "relevanceScore": 0.2}, {"index": 0, "relevanceScore": 0.7}]},
        {},
    )
    assert BedrockReranker(MODEL).rerank("q", ["a", "b", "c"], 3) == [(0, 0.7), (1, 0.2)]


def test_a_hung_model_costs_seconds_not_the_request(server: RerankServer) -> None:
    from offprompt.adapters.clients import aws_client

    reranker = BedrockReranker(MODEL)
    assert reranker.client is aws_client("bedrock-agent-runtime")
    assert reranker.client.meta.config.read_timeout == 5  # per attempt; the deadline caps it further
