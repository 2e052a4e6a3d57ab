"""Use case: keep the conversation index exact with the table's run changes (docs/adr/0048-conversation-index.md).
Handler: functions/conversation_index (the table's stream, filtered to `RUN#` items); also `offprompt-admin reindex`.

Changes are applied in their order (the stream's order per item, so a run removed after it was written ends with no
document), consecutive changes of one sort together: the written runs of a stretch in one bulk request, the removed
ones by id. A written run's document is its text (`memory.search_text`): the body read from the item, or from S3 for a
big run (a body already gone means the run is too: its removal follows, and nothing is indexed), and the text of the
run before it (one read, unless that run is in the same stretch) as its context. When a stretch fails, it and every
change after it are reported failed (Lambda retries the batch from the first, in order); nothing after it is applied.

Nothing here changes add-run: the index is written off its path, by the stream; the index only proposes candidates
and the search checks each against DynamoDB, so a change not indexed yet is never a wrong answer, only a late one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby

from offprompt.errors import DependencyUnavailable
from offprompt.memory.search_text import TurnText, turn_text
from offprompt.ports import ConversationDoc, RunChange, StoredRun
from offprompt.services.conversation_index.context import Indexing

logger = logging.getLogger("offprompt.services.conversation_index")


@dataclass
class IndexOutcome:
    indexed: int = 0
    deleted: int = 0
    #: Written runs not indexed: gone when read, or changed again later in the batch (their later change decides).
    skipped: int = 0
    #: The ids of the changes not applied: the first failed one and every change after it.
    failed: list[str] = field(default_factory=list)


def index_stream_records(ctx: Indexing, records: Iterable[Mapping[str, object]]) -> IndexOutcome:
    """The stream records' run changes applied (records that mean none are skipped)."""
    changes = [c for c in (ctx.decoder.change_of(r) for r in records) if c is not None]
    return index_changes(ctx, changes)


def index_changes(ctx: Indexing, changes: Sequence[RunChange]) -> IndexOutcome:
    outcome = IndexOutcome()
    done = 0
    # A run changed again later in the batch (removed, or written anew) is not indexed now: the later change decides,
    # and on Serverless a document indexed and deleted in one batch would not be found by the delete yet (ADR 0048).
    last = {_key(c): i for i, c in enumerate(changes)}
    for removed, stretch in groupby(enumerate(changes), key=lambda ic: ic[1].removed):
        numbered = list(stretch)
        batch = [c for _, c in numbered]
        try:
            if removed:
                outcome.deleted += _delete(ctx, batch)
            else:
                docs = _documents(ctx, [c for i, c in numbered if last[_key(c)] == i])
                if docs:
                    _keep_ids(ctx, docs, ctx.index.index(docs))
                outcome.indexed += len(docs)
                outcome.skipped += len(batch) - len(docs)
        except DependencyUnavailable as exc:
            logger.warning("conversation index: %d changes not applied: %s", len(changes) - done, exc)
            outcome.failed = [c.id for c in changes[done:]]
            return outcome
        done += len(batch)
    return outcome


def _key(change: RunChange) -> tuple[str, str, str, int]:
    return (change.tenant, change.thread_id, change.kind, change.seq)


def _delete(ctx: Indexing, batch: list[RunChange]) -> int:
    by_thread: dict[tuple[str, str, str], list[int]] = {}
    for change in batch:
        by_thread.setdefault((change.tenant, change.thread_id, change.kind), []).append(change.seq)
    named = [i for change in batch for i in change.doc_ids]
    if named:  # the ids the removed items named: documents search may not see yet (Serverless)
        ctx.index.delete_ids(named)
    for (tenant, thread_id, kind), seqs in by_thread.items():
        ctx.index.delete(tenant, thread_id, kind, seqs)
    return len(batch)


def _keep_ids(ctx: Indexing, docs: list[ConversationDoc], ids: list[str | None]) -> None:
    """Serverless: each run's new document id kept on its item (the documents of the text it had before go); a run
    removed or replaced since it was read keeps nothing, and its new document goes now (its own change follows)."""
    if ctx.doc_ids is None:
        return
    stale: list[str] = []
    for doc, doc_id in zip(docs, ids, strict=True):
        if doc_id is None:
            continue
        before = ctx.doc_ids.remember(doc.tenant, doc.thread_id, doc.seq, doc.ref_id, [doc_id])
        stale.extend([doc_id] if before is None else [i for i in before if i != doc_id])
    if stale:
        ctx.index.delete_ids(stale)


def _documents(ctx: Indexing, batch: list[RunChange]) -> list[ConversationDoc]:
    texts: dict[tuple[str, str, int], TurnText | None] = {}
    for change in batch:
        assert change.run is not None
        texts[(change.tenant, change.thread_id, change.seq)] = _text(ctx, change, change.seq, change.run)
    docs = []
    for change in batch:
        text = texts[(change.tenant, change.thread_id, change.seq)]
        if text is None or change.run is None:
            continue
        docs.append(
            ConversationDoc(
                tenant=change.tenant,
                thread_id=change.thread_id,
                kind=change.kind,
                seq=change.seq,
                ref_id=change.run.run_id,
                created_at=_epoch(change.run.created_at),
                input_text=text.input_text,
                output_text=text.output_text,
                meta_text=text.meta_text,
                context_text=_context(ctx, change, texts),
            )
        )
    return docs


def _text(ctx: Indexing, change: RunChange, seq: int, run: StoredRun) -> TurnText | None:
    """The text of the run at `seq` of the change's thread, or None when its body is gone with it (a thread deleted,
    an erase, after the write)."""
    try:
        body = ctx.bodies.run_json(run)
    except DependencyUnavailable:
        if run.blob_key is not None and ctx.runs.get_run(change.tenant, change.thread_id, seq) is None:
            return None
        raise
    return turn_text(body, item=change.kind == "item")


def _context(ctx: Indexing, change: RunChange, texts: dict[tuple[str, str, int], TurnText | None]) -> str:
    """The text of the run before this one: from this batch, or one read (none for the first, or one gone)."""
    if change.seq <= 1:
        return ""
    key = (change.tenant, change.thread_id, change.seq - 1)
    if key in texts:
        previous = texts[key]
        return previous.joined if previous is not None else ""
    stored = ctx.runs.get_run(change.tenant, change.thread_id, change.seq - 1)
    text = _text(ctx, change, change.seq - 1, stored) if stored is not None else None
    texts[key] = text
    return text.joined if text is not None else ""


def _epoch(created_at: str) -> float:
    try:
        return datetime.fromisoformat(created_at).timestamp()
    except ValueError:
        return 0.0
