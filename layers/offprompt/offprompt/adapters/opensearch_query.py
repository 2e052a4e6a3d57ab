"""Search mechanics shared by the OpenSearch adapters of the one index (task-memory text chunks, long-term records):
the checks a search makes before any request, the bm25 / knn / hybrid request bodies, one round trip for them, and
reciprocal-rank fusion (docs/adr/0005-text-storage.md, "Search"; docs/adr/0034-records.md). Each adapter keeps its
own filters, source fields and hit parsing; nothing here builds a client or holds state, and the one function that
sends requests does so through callables the adapter passes (its own, with its error translation).

Also here: opensearch-py's errors as the library's (`translate`), used by every adapter of the index.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar

from offprompt import deadline
from offprompt.errors import DependencyUnavailable, InvalidInput, OffpromptError
from offprompt.limits import MAX_QUERY_CHARS, MAX_SEARCH_DEPTH, SEARCH_MODES
from offprompt.ports import Embedder

#: Reciprocal-rank fusion constant (Cormack et al. 2009; the value OpenSearch and Elasticsearch use).
RRF_K = 60
#: The knn clause's `k` is also the HNSW candidate list (Lucene's numCandidates): asking for k = top_k = 1 is a greedy
#: graph walk that can miss the nearest chunk. k-NN asks for at least this many candidates and returns `size`.
KNN_MIN_CANDIDATES = 100

H = TypeVar("H")


def check_search(query: object, size: object, mode: object, embedder: Embedder | None, size_name: str) -> None:
    """A search's arguments, refused as `InvalidInput` before any request: a non-empty query of at most
    MAX_QUERY_CHARS (a `match` makes one clause per term; OpenSearch refuses more than 1,024), a size of 1 to
    MAX_SEARCH_DEPTH, a known mode, and an embedder for the vector modes."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is too long (at most {MAX_QUERY_CHARS} characters)")
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SEARCH_DEPTH:
        raise InvalidInput(f"{size_name} must be an integer from 1 to {MAX_SEARCH_DEPTH}")
    if mode not in SEARCH_MODES:
        raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}")
    if mode != "bm25" and embedder is None:
        raise InvalidInput(f"{mode} search needs an embedder, and none is configured")


def search_bodies(
    mode: str, query: str, size: int, scope_filter: dict[str, Any], source: list[str], embedder: Embedder | None
) -> list[dict[str, Any]]:
    """The request bodies of a checked search: one for bm25 (`match` on text, the scope as a filter) and knn (the
    embedded query, the scope filter *inside* the knn clause so that k counts only the scope's documents), two for
    hybrid (both, each `max(2 * size, 20)` deep, capped at MAX_SEARCH_DEPTH, for `fuse`)."""
    if mode == "bm25":
        return [bm25_body(query, scope_filter, size, source)]
    vector = embed_query(embedder, query)
    if mode == "knn":
        return [knn_body(vector, scope_filter, size, source)]
    depth = min(MAX_SEARCH_DEPTH, max(2 * size, 20))
    return [bm25_body(query, scope_filter, depth, source), knn_body(vector, scope_filter, depth, source)]


def bm25_body(query: str, scope_filter: dict[str, Any], size: int, source: list[str]) -> dict[str, Any]:
    return {
        "size": size,
        "_source": source,
        "query": {"bool": {"must": [{"match": {"text": query}}], "filter": [scope_filter]}},
    }


def knn_body(vector: list[float], scope_filter: dict[str, Any], size: int, source: list[str]) -> dict[str, Any]:
    return {
        "size": size,
        "_source": source,
        "query": {"knn": {"embedding": {"vector": vector, "k": max(size, KNN_MIN_CANDIDATES), "filter": scope_filter}}},
    }


def embed_query(embedder: Embedder | None, query: str) -> list[float]:
    if embedder is None:
        raise InvalidInput("this search needs an embedder, and none is configured")
    vectors = embedder.embed([query])
    if len(vectors) != 1:
        raise DependencyUnavailable(f"the embedder returned {len(vectors)} vectors for one query")
    return vectors[0]


def responses(
    bodies: list[dict[str, Any]],
    index: str,
    search: Callable[[dict[str, Any]], dict[str, Any]],
    msearch: Callable[[str], dict[str, Any]],
) -> list[dict[str, Any]]:
    """One response per body, in one round trip: `search` for one body, one `_msearch` for several. A failed
    sub-search is `DependencyUnavailable`."""
    if len(bodies) == 1:
        return [search(bodies[0])]
    lines = "".join(json.dumps({"index": index}) + "\n" + json.dumps(body) + "\n" for body in bodies)
    answers = msearch(lines).get("responses")
    if not isinstance(answers, list) or len(answers) != len(bodies):
        raise DependencyUnavailable("OpenSearch msearch answered with a different number of responses")
    for sub in answers:
        if "error" in sub:
            kind, reason = describe(sub["error"])
            raise DependencyUnavailable(f"OpenSearch hybrid search failed: {sub.get('status')} {kind}: {reason}")
    return list(answers)


def fuse(ranked: Sequence[Sequence[H]], key: Callable[[H], Any], size: int) -> list[tuple[H, float]]:
    """Reciprocal-rank fusion: score = sum over the lists of 1 / (RRF_K + rank), rank from 1; the best `size`
    (each with the first hit seen under its key), ties broken by key. Needs no score normalization (BM25 scores are
    unbounded, cosine scores in [0, 1]) and no search pipeline."""
    fused: dict[Any, float] = {}
    best: dict[Any, H] = {}
    for hits in ranked:
        for rank, hit in enumerate(hits, start=1):
            k = key(hit)
            fused[k] = fused.get(k, 0.0) + 1.0 / (RRF_K + rank)
            best.setdefault(k, hit)
    order = sorted(fused, key=lambda k: (-fused[k], k))
    return [(best[k], fused[k]) for k in order[:size]]


def call(action: str, request: Callable[[], Any], *, tolerate: Collection[str] = ()) -> Any:
    """`request()` with opensearch-py's errors as the library's (`translate`); an OpenSearch error whose type is in
    `tolerate` (e.g. "resource_already_exists_exception") answers None instead."""
    try:
        return request()
    except OffpromptError:
        raise
    except Exception as exc:
        if tolerate and error_type(exc) in tolerate:
            return None
        translated = translate(exc, action)
        if translated is exc:
            raise
        raise translated from exc


def describe(error: Any) -> tuple[str, str]:
    """(type, reason) of an OpenSearch error object, the reason cut short."""
    if isinstance(error, dict):
        cause = error.get("caused_by") if isinstance(error.get("caused_by"), dict) else {}
        reason = str(error.get("reason") or "")
        if cause:
            reason = f"{reason} (caused by {cause.get('type')}: {cause.get('reason')})"
        return str(error.get("type") or "error"), reason[:300]
    return "error", str(error)[:300]


def error_type(exc: Exception) -> str | None:
    """The OpenSearch error type of a TransportError (e.g. "resource_already_exists_exception")."""
    from opensearchpy.exceptions import TransportError

    if isinstance(exc, TransportError):
        return str(exc.error) if exc.error else None
    return None


def translate(exc: Exception, action: str) -> Exception:
    """An opensearch-py exception as the library's error; anything else (a bug) unchanged."""
    from opensearchpy import exceptions as ose

    if isinstance(exc, ose.ConnectionTimeout):
        left = deadline.remaining()
        if left is not None and left < deadline.MIN_ATTEMPT_S:  # the request's budget, not OpenSearch's own
            return deadline.timed_out(f"OpenSearch ({action})")
        return DependencyUnavailable(f"OpenSearch timed out during {action}")
    if isinstance(exc, ose.ConnectionError):  # includes SSLError; opensearch-py already retried
        return DependencyUnavailable(f"cannot reach OpenSearch during {action}: {type(exc.info).__name__}")
    if isinstance(exc, ose.TransportError):
        kind, reason = describe(exc.info.get("error") if isinstance(exc.info, dict) else exc.error)
        if kind in ("too_many_clauses", "too_many_nested_clauses") or "maxClauseCount" in reason:
            return InvalidInput("the query has too many terms")
        return DependencyUnavailable(
            f"OpenSearch {action} failed: {exc.status_code} {kind}: {reason}",
            details={"status": exc.status_code if isinstance(exc.status_code, int) else None, "error": kind},
        )
    if isinstance(exc, ose.OpenSearchException):
        return DependencyUnavailable(f"OpenSearch {action} failed: {type(exc).__name__}")
    return exc
