"""The table's changes as run changes for the conversation index (docs/adr/0048-conversation-index.md): a DynamoDB
stream record (NEW_AND_OLD_IMAGES, as Lambda delivers it) or a scanned run item → zero or one `RunChange`. Pure: no
SDK, no I/O.

Every change of a `RUN#` item counts, whoever made it: INSERT and MODIFY index the run as written (add-run, an
append of session items, an import; a retried batch writes the same document again), REMOVE deletes its document,
whatever removed it (a pop, `max_runs` pruning, DynamoDB's TTL, a thread delete, an erase). The tenant and the thread
are the ones the item's key names (`layout.parse_key`; an attribute only recovers a digested key part that it
digests to); the kind is the item's `thread_kind` ("items": a session item). A MODIFY that only sets the ids of the
run's search documents (the indexer's own bookkeeping on Serverless, `dynamodb_conversation_docs`) is no change; a
REMOVE carries the ids the removed item named. Anything else is no change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from offprompt.ports import RunChange

from .dynamodb_conversation_docs import DOC_IDS, doc_ids_of
from .dynamodb_run_items import stored_run_of_item
from .layout import parse_key


class StreamRunDecoder:
    """`RunChangeDecoder` over the table's stream records."""

    def change_of(self, record: Mapping[str, object]) -> RunChange | None:
        return run_change(record)


def run_change(record: Mapping[str, Any]) -> RunChange | None:
    """The run change one stream record means, or None."""
    change = record.get("dynamodb")
    event_id, name = record.get("eventID"), record.get("eventName")
    if not isinstance(change, Mapping) or not isinstance(event_id, str) or not event_id:
        return None
    if name not in ("INSERT", "MODIFY", "REMOVE"):
        return None
    keys = change.get("Keys") or {}
    new, old = change.get("NewImage") or {}, change.get("OldImage") or {}
    if name == "MODIFY" and _unchanged_but_doc_ids(new, old):
        return None  # the indexer keeping its documents' ids on the item: the run itself did not change
    return _change(event_id, keys, new if name != "REMOVE" else None, old)


def _unchanged_but_doc_ids(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    return {k: v for k, v in new.items() if k != DOC_IDS} == {k: v for k, v in old.items() if k != DOC_IDS}


def scanned_run(item: Mapping[str, Any]) -> RunChange | None:
    """A run item read from the table (a reindex) as the change that indexes it, or None for any other item."""
    return _change(f"{_s(item, 'pk')}|{_s(item, 'sk')}", item, item, {})


def _change(
    change_id: str, keys: Mapping[str, Any], new: Mapping[str, Any] | None, old: Mapping[str, Any]
) -> RunChange | None:
    pk, sk = _s(keys, "pk"), _s(keys, "sk")
    if pk is None or sk is None:
        return None
    image = new or old
    hints = {"tenant": _s(image, "tenant"), "thread_id": _s(image, "thread_id")}
    parsed = parse_key(pk, sk, hints)
    if parsed is None or parsed.kind != "run" or parsed.tenant is None or parsed.ids.get("thread_id") is None:
        return None
    kind: Literal["run", "item"] = "item" if _s(image, "thread_kind") == "items" else "run"
    thread_id, seq = str(parsed.ids["thread_id"]), int(parsed.ids["seq"])
    if new is None:
        return RunChange(change_id, parsed.tenant, thread_id, seq, kind, removed=True, doc_ids=doc_ids_of(old))
    return RunChange(change_id, parsed.tenant, thread_id, seq, kind, removed=False, run=stored_run_of_item(dict(new)))


def _s(image: Mapping[str, Any], name: str) -> str | None:
    value = image.get(name)
    return str(value["S"]) if isinstance(value, Mapping) and "S" in value else None
