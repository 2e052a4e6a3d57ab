"""Conversation search as the threads function (`POST /threads/search`, direct `search_threads`) and the MCP tool
`search_conversations` run it: the use case with the process's index and optional rerank model (docs/adr/0068),
and the metric `SearchRerankFailed` when that model failed and the fused order was answered. The use case is
imported on the first search, not with the handler (cold start, docs/adr/0063)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .entry import observability

if TYPE_CHECKING:
    from offprompt.metering import Meter
    from offprompt.services.conversation.context import Conversation
    from offprompt.services.conversation.requests import ThreadSearchRequest
    from offprompt.services.conversation.search import SearchResult

#: The response header that says whether the rerank model ordered the hits (only with a model set).
RERANKED_HEADER = "X-Offprompt-Reranked"


def run_search(conv: Conversation, tenant: str, request: ThreadSearchRequest, meter: Meter | None) -> SearchResult:
    from offprompt.composition.conversation_index import default_conversation_index, default_reranker
    from offprompt.services.conversation.search import search_threads

    result = search_threads(
        conv, default_conversation_index(), tenant, request, meter=meter, reranker=default_reranker()
    )
    if result.reranked is False:
        _, metrics = observability()
        metrics.add_metric(name="SearchRerankFailed", unit="Count", value=1)
    return result
