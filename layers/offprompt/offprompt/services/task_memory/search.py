"""Use case: search — BM25 / vector / hybrid search over a text namespace's committed chunks. Handler:
functions/memories (POST .../search)."""

from __future__ import annotations

from typing import cast

from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_QUERY_CHARS, MAX_SEARCH_DEPTH, MAX_TOP_K, SEARCH_MODES
from offprompt.memory.task import StorageKind
from offprompt.metering import Meter
from offprompt.ports import SearchHit, SearchMode, TextScope
from offprompt.services.task_memory.context import TaskMemory
from offprompt.services.task_memory.errors import NotTextNamespace


def search(
    tm: TaskMemory,
    tenant: str,
    memory: str,
    namespace: str,
    query: str,
    top_k: int = 5,
    mode: str = "bm25",
    *,
    meter: Meter | None = None,
) -> list[SearchHit]:
    check_identifier("memory_name", memory)
    check_identifier("namespace", namespace)
    if meter is not None:
        meter.add(searches=1)
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is longer than {MAX_QUERY_CHARS} characters")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be an integer from 1 to {MAX_TOP_K}")
    if mode not in SEARCH_MODES:
        raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}")
    batches = tm.namespaces.batches(tenant, memory, namespace)
    if not batches:  # an unknown namespace holds nothing: no hits, as a load of it is an empty list
        return []
    if batches[0].kind != StorageKind.TEXT.value:
        raise NotTextNamespace(f'namespace "{namespace[:100]}" holds blobs; only text can be searched')
    committed = {b.start + i for b in batches for i in range(b.count)}
    scope = TextScope(tenant, memory, namespace)
    k = top_k
    while True:
        hits = tm.texts.search(scope, query, k, cast(SearchMode, mode))
        kept = [h for h in hits if h.position in committed]
        # Documents of stores that never committed are skipped; ask for more if they crowded the top k.
        if len(kept) >= top_k or len(hits) < k or k >= MAX_SEARCH_DEPTH:
            return kept[:top_k]
        k = min(k * 4, MAX_SEARCH_DEPTH)
