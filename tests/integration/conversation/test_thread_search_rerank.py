"""Conversation search with the optional rerank model (docs/adr/0068) through the threads handler and the MCP tool:
moto over HTTP, the in-memory index fed from DynamoDB (as test_thread_search.py), and the Bedrock adapter built by
the composition root from `OFFPROMPT_RERANK_MODEL_ID`, its boto3 client pointed at a scripted Rerank API server by
botocore's AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conversation_api import Api
from fakes.conversation_index import FakeConversationIndex
from rerank_server import RerankServer, aws_error, rerank_server
from search_support import add, direct, ids, index_stored, mcp, search

from offprompt.adapters.clients import reset_clients
from offprompt.composition.conversation_index import default_reranker
from offprompt.config import get_settings

QUERY = {"query": "Tokyo sushi"}
FUSED = [("u1-s2", "r3"), ("u1-s1", "r1"), ("u1-s2", "r4")]  # what the fused ranking answers (no model)


def reversed_order(request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    """A model that puts the last document sent first."""
    n = len(request["sources"])
    return 200, {"results": [{"index": i, "relevanceScore": (i + 1) / n} for i in reversed(range(n))]}, {}


def _settings_changed() -> None:
    reset_clients()
    get_settings.cache_clear()
    default_reranker.cache_clear()


@pytest.fixture
def model(aws_over_http: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[RerankServer]:
    with rerank_server() as server:
        monkeypatch.setenv("OFFPROMPT_RERANK_MODEL_ID", "amazon.rerank-v1:0")
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME", server.url)
        _settings_changed()
        yield server
    monkeypatch.delenv("OFFPROMPT_RERANK_MODEL_ID")
    _settings_changed()


@pytest.fixture
def stored(aws_over_http: dict[str, Any], index: FakeConversationIndex) -> Api:
    api = Api()
    add(api, "u1-s1", ("r1", "I am flying to Tokyo in May", "Enjoy Tokyo!"), ("r2", "my cat is Mochi", "Cute"))
    add(api, "u1-s2", ("r3", "Tokyo sushi tips?", "sushi at Tsukiji"), ("r4", "Tokyo", "ok"))
    index_stored(index, "tenant-a", "u1-s1", "u1-s2")
    return api


def test_without_a_model_search_answers_the_fused_order_and_says_nothing_of_reranking(stored: Api) -> None:
    status, body, headers = search(stored, QUERY)
    assert status == 200 and ids(body) == FUSED
    assert "X-Offprompt-Reranked" not in headers and all("rerank_score" not in h for h in body["hits"])
    assert "reranked" not in direct(stored, **QUERY)


def test_the_model_orders_the_hits(stored: Api, model: RerankServer) -> None:
    model.answer = reversed_order
    status, body, headers = search(stored, QUERY)
    assert status == 200, body
    assert headers["X-Offprompt-Reranked"] == "true"
    assert ids(body) == list(reversed(FUSED))
    assert [h["rerank_score"] for h in body["hits"]] == [1.0, pytest.approx(2 / 3), pytest.approx(1 / 3)]
    assert all(isinstance(h["score"], float) for h in body["hits"])  # the fused score stays
    (request,) = model.bodies()
    assert request["queries"][0]["textQuery"]["text"] == "Tokyo sushi"
    sent = [s["inlineDocumentSource"]["textDocument"]["text"] for s in request["sources"]]
    assert sent == ["Tokyo sushi tips?\nsushi at Tsukiji", "I am flying to Tokyo in May\nEnjoy Tokyo!", "Tokyo\nok"]

    answer = direct(stored, **QUERY)
    assert answer["reranked"] is True and ids(answer) == list(reversed(FUSED))
    tool = mcp(QUERY)["structuredContent"]  # the MCP tool: the same answer
    assert tool["reranked"] is True and ids(tool) == list(reversed(FUSED)) and tool["hits"] == body["hits"]


@pytest.mark.parametrize(
    "failure",
    [aws_error(429, "ThrottlingException"), aws_error(500, "InternalServerException"), (200, {"results": 3}, {})],
)
def test_search_answers_the_fused_order_when_the_model_fails(
    stored: Api,
    model: RerankServer,
    failure: tuple[int, Any, dict[str, str]],
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    model.answer = lambda _: failure
    status, body, headers = search(stored, QUERY)
    assert status == 200, body
    assert headers["X-Offprompt-Reranked"] == "false"
    assert ids(body) == FUSED and all("rerank_score" not in h for h in body["hits"])
    assert '"SearchRerankFailed":[1.0]' in capsys.readouterr().out  # the request's EMF line
    assert "the rerank model failed, answering the fused order (Bedrock rerank" in caplog.text

    answer = direct(stored, **QUERY)
    assert answer["reranked"] is False and ids(answer) == FUSED
    tool = mcp(QUERY)
    assert tool["isError"] is False and tool["structuredContent"]["reranked"] is False
    assert ids(tool["structuredContent"]) == FUSED
