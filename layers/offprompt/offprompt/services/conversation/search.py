"""Use case: search a tenant's conversations — runs and session items, by meaning and words (docs/adr/0049, issue
31). Handler: functions/threads (`POST /threads/search`, direct `search_threads`); MCP tool `search_conversations`.

1. The threads searched: `thread_ids` (one consistent BatchGetItem of their thread items), the threads under
   `thread_prefix` (not listed: the index filters on the prefix; only the forks under it are read, one key Query of
   the tenant's fork registry, docs/adr/0064), or the whole tenant. A fork's search covers its shared history without
   copied documents: each searched fork adds a `ThreadCut` per ancestor, up to where it reads it (docs/adr/0037);
   ancestors outside a prefix are asked for in a second candidate query.
2. `consistency: "search"`: before searching, wait (bounded: SEARCH_CONSISTENCY_WAIT_S, within the request's
   deadline) until the index has made every thread's newest stored run searchable (`indexed_through(...,
   refresh=True)`); `searchable` False when it gave up (header `X-Offprompt-Searchable: false`).
3. Candidates from the index (`recall.candidate_count(limit)` per retriever, with `recall.retrieval_queries`), ordered
   by `recall.rank`: the ranking lives there, never here. With a rerank model set, the best of them are reordered by
   it (`rerank.py`, docs/adr/0068; its failure leaves the fused order, `reranked` False).
4. Every hit is checked against DynamoDB, in rank order, a round at a time (the first `limit` + VERIFY_SPARE, then
   VERIFY_BATCH; one BatchGetItem of the thread items not read yet in this request, one of the runs; the threads
   named in 1. were read whole and strongly consistent there): answered only if the run (item) is still
   stored at that seq with that id, unexpired, its thread not being deleted, and visible in a thread searched (the
   thread's own, or a searched fork's shared history up to its fork point; at or above the thread's max_runs floor).
   The index proposes, DynamoDB decides: a deleted, pruned, expired, erased or foreign run is never answered, however
   far the index lags.
5. `context: n`: the n visible runs before and after each hit in the thread it was found in (two Queries a hit).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from offprompt import deadline
from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_LIST_LIMIT, MAX_SEARCH_SCOPE_THREADS, SEARCH_CONSISTENCY_WAIT_S
from offprompt.memory import recall
from offprompt.memory.records import parse_time
from offprompt.metering import Meter
from offprompt.ports import (
    ConversationCandidate,
    ConversationIndex,
    Reranker,
    StoredRun,
    ThreadCut,
    ThreadState,
)
from offprompt.services.conversation.context import Conversation
from offprompt.services.conversation.requests import ThreadSearchRequest
from offprompt.services.conversation.rerank import Reranked, doc_key, rerank
from offprompt.services.conversation.thread_admin import visible_floor

#: Ranked candidates checked against DynamoDB per round after the first (one BatchGetItem: ≤ 100 keys).
VERIFY_BATCH = 100
#: The first round checks `limit` candidates and this many more (most are answerable: a second round is rare).
VERIFY_SPARE = 10
#: Pause between two reads of the index's progress while consistency "search" waits (doubling up to the last).
WAIT_STEPS_S = (0.02, 0.05, 0.1, 0.2, 0.25)

Key = tuple[str, int]  # (the thread whose partition holds the run, seq)


@dataclass
class SearchResult:
    hits: list[dict[str, Any]]
    #: With consistency "search": True when everything acknowledged was searchable, False when the wait gave up.
    searchable: bool | None = None
    #: With a rerank model set: True when it ordered the hits, False when it failed (the fused order answered).
    reranked: bool | None = None

    def body(self) -> dict[str, Any]:
        """What a direct invocation and the MCP tool answer (HTTP answers `hits`, the others as headers)."""
        out: dict[str, Any] = {"hits": self.hits}
        if self.searchable is not None:
            out["searchable"] = self.searchable
        if self.reranked is not None:
            out["reranked"] = self.reranked
        return out


@dataclass
class _Scope:
    """The threads searched and what each one sees."""

    #: Searched threads named (their states, read whole and strongly consistent); None: the prefix or the tenant.
    threads: dict[str, ThreadState] | None
    prefix: str | None
    #: ancestor thread → [(searched fork, through_seq)]: the forks that read that ancestor's runs up to a seq.
    shared: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    #: Named threads that do not exist (read in this request).
    missing: tuple[str, ...] = ()

    def known(self) -> dict[str, ThreadState | None]:
        """The thread states read in this request (strongly consistent), None for a named thread that is not."""
        return {**dict.fromkeys(self.missing), **(self.threads or {})}

    def cuts(self) -> list[ThreadCut] | None:
        """Every thread the index searches, each up to its cut (None: no list, the prefix or the tenant)."""
        if self.threads is None:
            return None
        cuts: dict[str, int | None] = {t: None for t in self.threads}
        for ancestor, readers in self.shared.items():
            if ancestor not in cuts:
                cuts[ancestor] = max(through for _, through in readers)
        return [ThreadCut(t, through) for t, through in cuts.items()]

    def outside_prefix(self) -> list[ThreadCut]:
        """The ancestors a prefix search reads that the prefix does not cover."""
        assert self.prefix is not None
        return [
            ThreadCut(a, max(t for _, t in readers))
            for a, readers in self.shared.items()
            if not a.startswith(self.prefix)
        ]

    def searched(self, thread_id: str) -> bool:
        if self.threads is not None and self.prefix is None:
            return thread_id in self.threads
        return self.prefix is None or thread_id.startswith(self.prefix)

    def viewers(self, owner: str, seq: int) -> list[str]:
        """The searched threads in which `owner`'s run at `seq` is part of the history: the owner itself, then the
        forks reading it that far."""
        out = [owner] if self.searched(owner) else []
        out.extend(fork for fork, through in self.shared.get(owner, ()) if seq <= through and fork != owner)
        return out


def verify_first(limit: int) -> int:
    """How many of the best candidates the first round checks against DynamoDB."""
    return min(VERIFY_BATCH, limit + VERIFY_SPARE)


def search_threads(
    conv: Conversation,
    index: ConversationIndex,
    tenant: str,
    request: ThreadSearchRequest,
    *,
    meter: Meter | None = None,
    reranker: Reranker | None = None,
) -> SearchResult:
    query = request.query
    if not query.strip():
        raise InvalidInput("query must not be empty or blank")
    since = parse_time(request.since, "since")
    until = parse_time(request.until, "until")
    if since is not None and until is not None and until <= since:
        raise InvalidInput("until must be later than since")
    for thread_id in request.thread_ids or ():
        check_identifier("thread_id", thread_id)
    if meter is not None:
        meter.add(searches=1)
    scope = _scope(conv, tenant, request)
    searchable = _wait_searchable(conv, index, tenant, scope) if request.consistency == "search" else None
    candidates = _candidates(index, tenant, request, scope, since, until)
    fused = Reranked(recall.rank(query, candidates, len(candidates)))
    ordered = rerank(reranker, query, fused.ranked, request.limit) if reranker is not None else fused
    hits = _verified(conv, tenant, scope, ordered, request.limit)
    answered = [_hit(conv, tenant, scope, hit, request.context) for hit in hits]
    return SearchResult(answered, searchable, ordered.ok if reranker is not None else None)


# ---- 1. the threads searched ----------------------------------------------------------------------------------
def _scope(conv: Conversation, tenant: str, request: ThreadSearchRequest) -> _Scope:
    prefix = request.thread_prefix
    if request.thread_ids is not None:
        ids = [t for t in dict.fromkeys(request.thread_ids) if prefix is None or t.startswith(prefix)]
        found = conv.runs.get_threads(tenant, ids) if ids else {}
        scope = _Scope(found, None, missing=tuple(t for t in ids if t not in found))
    elif prefix is not None:  # not listed (docs/adr/0064): the forks under it, each with the history it shares
        scope = _Scope(None, prefix)
        _share(scope, conv.runs.forks_under(tenant, prefix).items())
        return scope
    else:
        scope = _Scope(None, None)  # every thread: each run is found as its own thread's, forks' ancestors too
        return scope
    _share(scope, ((state.thread_id, state.ancestry) for state in (scope.threads or {}).values()))
    return scope


def _share(scope: _Scope, forks: Iterable[tuple[str, Sequence[tuple[str, int]]]]) -> None:
    """Record what each searched fork reads of its ancestors (`_Scope.shared`)."""
    for fork_id, ancestry in forks:
        for ancestor, through in ancestry:
            scope.shared.setdefault(ancestor, []).append((fork_id, through))


def _listed(conv: Conversation, tenant: str, prefix: str | None) -> dict[str, ThreadState]:
    """The tenant's threads (under `prefix`), at most MAX_SEARCH_SCOPE_THREADS: listed through the tenant index
    (eventually consistent: a thread made a moment ago may be missing), each state read whole and strongly
    consistent (the check of every hit uses them)."""
    out: dict[str, ThreadState] = {}
    after: str | None = None
    while len(out) < MAX_SEARCH_SCOPE_THREADS:
        page, after = conv.runs.list_threads(tenant, limit=MAX_LIST_LIMIT, after=after, prefix=prefix, whole=True)
        out.update((t.thread_id, t) for t in page)
        if after is None:
            break
    return out


# ---- 2. consistency "search" ----------------------------------------------------------------------------------
def _wait_searchable(conv: Conversation, index: ConversationIndex, tenant: str, scope: _Scope) -> bool:
    """Wait until every searched thread's newest stored run (an ancestor's: up to the cut) is searchable. False when
    the wait gave up (the bound, the request's deadline, or more threads than MAX_SEARCH_SCOPE_THREADS). A prefix or
    whole-tenant search lists its threads here, only when it waits."""
    threads = scope.threads if scope.threads is not None else _listed(conv, tenant, scope.prefix)
    if len(threads) >= MAX_SEARCH_SCOPE_THREADS:
        return False
    cuts = _Scope(threads, None, scope.shared).cuts() or []
    targets = {c.thread_id: seq for c in cuts if (seq := _newest_seq(conv, tenant, c.thread_id, c.through_seq))}
    if not targets:
        return True
    budget = SEARCH_CONSISTENCY_WAIT_S
    left = deadline.remaining()
    if left is not None:
        budget = min(budget, max(0.0, left - 1.0))  # keep a second of the request for the search itself
    give_up = time.monotonic() + budget
    for attempt in range(10_000):
        through = index.indexed_through(tenant, list(targets), refresh=True)
        targets = {t: seq for t, seq in targets.items() if through.get(t, 0) < seq}
        if not targets:
            return True
        pause = WAIT_STEPS_S[min(attempt, len(WAIT_STEPS_S) - 1)]
        if time.monotonic() + pause > give_up:
            return False
        time.sleep(pause)
    return False


def _newest_seq(conv: Conversation, tenant: str, thread_id: str, through: int | None) -> int:
    """The seq of the newest run stored in the thread's own partition (at most `through`), 0 for none."""
    runs, _ = conv.runs.page_runs(
        tenant, thread_id, lo=1, hi=through, newest_first=True, limit=1, now_epoch=0, keys_only=True
    )
    return runs[0].seq if runs else 0


# ---- 3. candidates ----------------------------------------------------------------------------------------------
def _candidates(
    index: ConversationIndex,
    tenant: str,
    request: ThreadSearchRequest,
    scope: _Scope,
    since: float | None,
    until: float | None,
) -> list[ConversationCandidate]:
    queries = recall.retrieval_queries(request.query)

    def ask(threads: Sequence[ThreadCut] | None, prefix: str | None) -> list[ConversationCandidate]:
        return index.candidates(
            tenant,
            bm25_query=queries.bm25,
            embed_query=queries.embed,
            threads=threads,
            thread_prefix=prefix,
            since=since,
            until=until,
            size=recall.candidate_count(request.limit),
            mode=request.mode,
            wait_for_refresh=request.consistency == "search",
        )

    if scope.prefix is not None:  # the prefix, plus the shared history of forks under it whose ancestors are not
        outside = scope.outside_prefix()
        return _merged([ask(None, scope.prefix), ask(outside, None) if outside else []])
    cuts = scope.cuts()
    if cuts is not None and not cuts:
        return []  # none of the threads named exists
    return ask(cuts, None)


def _merged(lists: Iterable[list[ConversationCandidate]]) -> list[ConversationCandidate]:
    """Candidates of several queries, one per document (each retriever's score kept where one query had it)."""
    out: dict[tuple[str, str, int], ConversationCandidate] = {}
    for candidates in lists:
        for c in candidates:
            key = (c.doc.thread_id, c.doc.kind, c.doc.seq)
            seen = out.get(key)
            if seen is None:
                out[key] = c
            else:
                out[key] = ConversationCandidate(
                    seen.doc,
                    bm25=seen.bm25 if seen.bm25 is not None else c.bm25,
                    knn=seen.knn if seen.knn is not None else c.knn,
                )
    return list(out.values())


# ---- 4. every hit checked against DynamoDB --------------------------------------------------------------------
@dataclass(frozen=True)
class _Hit:
    thread_id: str  # the searched thread it is answered in
    owner: str  # the thread whose partition holds it
    run: StoredRun
    kind: str
    score: float
    state: ThreadState  # the searched thread's, as read
    rerank_score: float | None = None  # the rerank model's, when it scored this hit


def _verified(
    conv: Conversation,
    tenant: str,
    scope: _Scope,
    ordered: Reranked,
    limit: int,
) -> list[_Hit]:
    ranked = ordered.ranked
    now = int(conv.clock())
    states = scope.known()  # read strongly consistent in this request (None: gone)
    floors: dict[str, int] = {}
    hits: list[_Hit] = []
    first = verify_first(limit)
    for start, end in _rounds(len(ranked), first):
        batch = [(c, s) for c, s in ranked[start:end] if c.doc.tenant == tenant]
        viewers = {(c.doc.thread_id, c.doc.seq): scope.viewers(c.doc.thread_id, c.doc.seq) for c, _ in batch}
        unread = {t for c, _ in batch for t in (c.doc.thread_id, *viewers[(c.doc.thread_id, c.doc.seq)])}
        unread -= states.keys()
        if unread:
            found = conv.runs.get_threads(tenant, sorted(unread))
            states.update((t, found.get(t)) for t in unread)
        keys = [(c.doc.thread_id, c.doc.seq) for c, _ in batch if states.get(c.doc.thread_id) is not None]
        stored = conv.runs.get_runs(tenant, keys) if keys else {}
        for candidate, score in batch:
            doc = candidate.doc
            run = stored.get((doc.thread_id, doc.seq))
            if run is None or run.run_id != doc.ref_id or (run.thread_kind == "items") != (doc.kind == "item"):
                continue  # deleted, pruned, popped, erased (or another run now holds that seq)
            if run.expires_at is not None and run.expires_at <= now:
                continue  # expired: TTL deletes it soon
            viewer = _visible_in(conv, states, floors, viewers[(doc.thread_id, doc.seq)], doc.thread_id, doc.seq)
            if viewer is None:
                continue
            rerank_score = ordered.scores.get(doc_key(doc))
            hits.append(_Hit(viewer.thread_id, doc.thread_id, run, doc.kind, score, viewer, rerank_score))
            if len(hits) >= limit:
                return hits
    return hits


def _rounds(total: int, first: int) -> list[tuple[int, int]]:
    """The slices of the ranked candidates checked a round at a time: `first`, then VERIFY_BATCH each."""
    bounds = [0, *range(first, total, VERIFY_BATCH), total]
    return [(a, b) for a, b in itertools.pairwise(bounds) if a < b]


def _visible_in(
    conv: Conversation,
    states: dict[str, ThreadState | None],
    floors: dict[str, int],
    viewers: Sequence[str],
    owner: str,
    seq: int,
) -> ThreadState | None:
    """The first searched thread that shows the run at `seq` (its fork point and max_runs floor as read now)."""
    for thread_id in viewers:
        state = states.get(thread_id)
        if state is None:
            continue
        if thread_id != owner and not any(a == owner and seq <= t for a, t in state.ancestry):
            continue  # the fork read this request is not the fork the scope listed (deleted and made again)
        if thread_id not in floors:
            floors[thread_id] = _floor(conv, state)
        if seq >= floors[thread_id]:
            return state
    return None


def _floor(conv: Conversation, state: ThreadState) -> int:
    """The thread's smallest visible seq (`visible_floor`: max_runs, summary memory), its newest keys read here so
    the use case calls the RunStore itself (handler → use case → adapter)."""
    if state.max_runs is None:
        return 1
    seqs: list[int] = []
    keys = conv.runs.iter_keys(
        state.tenant, state.thread_id, lo=1, newest_first=True, now_epoch=int(conv.clock()), ancestry=state.ancestry
    )
    for r in keys:
        seqs.append(r.seq)
        if len(seqs) >= state.max_runs:
            break
    return visible_floor(conv, state, seqs)


# ---- 5. the answer ------------------------------------------------------------------------------------------------
def _hit(conv: Conversation, tenant: str, scope: _Scope, hit: _Hit, context: int) -> dict[str, Any]:
    out: dict[str, Any] = {"thread_id": hit.thread_id, "seq": hit.run.seq}
    out.update(_entry(conv, hit.run, hit.kind))
    out["score"] = hit.score
    if hit.rerank_score is not None:
        out["rerank_score"] = hit.rerank_score
    out["created_at"] = hit.run.created_at
    if context:
        out["context"] = _context(conv, tenant, hit, context)
    return out


def _entry(conv: Conversation, run: StoredRun, kind: str) -> dict[str, Any]:
    body = json.loads(conv.bodies.run_json(run))
    if kind == "item":
        return {"item_id": run.run_id, "item": body}
    return {"run_id": run.run_id, "run": body}


def _context(conv: Conversation, tenant: str, hit: _Hit, n: int) -> list[dict[str, Any]]:
    """The `n` visible runs (items) before the hit and the `n` after it in the thread it is answered in, in order."""
    state = hit.state
    floor = _floor(conv, state)
    now = int(conv.clock())
    seq = hit.run.seq

    def page(lo: int, hi: int | None, newest_first: bool) -> list[StoredRun]:
        if hi is not None and hi < lo:
            return []
        runs, _ = conv.runs.page_runs(
            tenant, state.thread_id, lo=lo, hi=hi, newest_first=newest_first, limit=n, now_epoch=now,
            ancestry=state.ancestry,
        )  # fmt: skip
        return runs

    before = page(max(floor, 1), seq - 1, True)
    after = page(seq + 1, None, False)
    return [{"seq": r.seq, **_entry(conv, r, hit.kind)} for r in [*reversed(before), *after]]
