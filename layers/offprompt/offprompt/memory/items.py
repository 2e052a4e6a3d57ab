"""Framework session items: which newest items a token budget keeps without splitting a tool call from its result
(docs/adr/0033). Pure: the items are plain JSON objects.

A tool call and its result are two items (OpenAI Responses: `function_call` / `function_call_output`, and the other
`*_call` / `*_call_output` pairs, by `call_id`; Bedrock Converse / Strands: an assistant message's `toolUse` blocks
and the next user message's `toolResult` blocks, by `toolUseId`). A history that starts with a result whose call was
cut off is refused by the model APIs, so the kept suffix starts after every such orphan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def call_ids(item: Any) -> set[str]:
    """The tool-call ids an item opens (a call)."""
    return _ids(item, "_call", "toolUse")


def result_ids(item: Any) -> set[str]:
    """The tool-call ids an item answers (a result)."""
    return _ids(item, "_call_output", "toolResult")


def _ids(item: Any, type_suffix: str, block_key: str) -> set[str]:
    """OpenAI Responses items of a type ending in `type_suffix` (by `call_id`), Converse blocks `block_key` (by
    `toolUseId`)."""
    if not isinstance(item, dict):
        return set()
    found: set[str] = set()
    kind = item.get("type")
    if isinstance(kind, str) and kind.endswith(type_suffix) and isinstance(item.get("call_id"), str):
        found.add(item["call_id"])
    for block in _blocks(item):
        inner = block.get(block_key)
        if isinstance(inner, dict) and isinstance(inner.get("toolUseId"), str):
            found.add(inner["toolUseId"])
    return found


def _blocks(item: dict[str, Any]) -> Iterable[dict[str, Any]]:
    content = item.get("content")
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def without_orphan_results(items: list[Any]) -> int:
    """How many of the oldest of `items` (oldest first) to drop so that no kept result answers a call that is not
    kept: the index of the first item from which every result's call is in the kept suffix."""
    start = 0
    opened: set[str] = set()
    for index, item in enumerate(items):
        if result_ids(item) - opened:
            start = index + 1  # an orphan: the suffix starts after it
            opened = set()
            continue
        opened |= call_ids(item)
    return start
