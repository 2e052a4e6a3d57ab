"""The pure rules of checkpoints (docs/adr/0039): key order (a checkpoint's items are one key range, its writes sort
before it newest first, the head first of all), what floors hide and holds keep, blob decoding and the inline
budget, id checks."""

from __future__ import annotations

import base64
import random
import string

import pytest

from offprompt.adapters import layout
from offprompt.errors import InvalidInput, PayloadTooLarge
from offprompt.ports import CheckpointThreadState, StoredCheckpoint, TypedBlob
from offprompt.services.checkpoints import blobs, rules
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.requests import Blob

ID_CHARS = string.ascii_letters + string.digits + "-_.:"


def test_a_checkpoints_items_are_exactly_its_key_range_and_sort_writes_first_newest_first() -> None:
    rng = random.Random(7)
    ids = sorted({"".join(rng.choice(ID_CHARS) for _ in range(rng.randint(1, 6))) for _ in range(300)})
    ids += ["abc", "abc-1", "abc.", "abc:", "ab"]
    for ns in ("", "a", "node:1|sub:2"):
        keys = []
        for cid in set(ids):
            keys.append((layout.checkpoint_sk(ns, cid), cid, "c"))
            keys.append((layout.checkpoint_write_sk(ns, cid, "task#1", -1), cid, "w"))
            keys.append((layout.checkpoint_write_sk(ns, cid, "task", 3, version=12), cid, "w"))
        keys.sort(reverse=True)  # a newest-first Query
        head = layout.checkpoint_head_sk(ns)
        assert all(k < head for k, _, _ in keys) and all(
            k.startswith(layout.checkpoint_ns_prefix(ns)) for k, _, _ in keys
        )
        order = [cid for _, cid, _ in keys]
        assert order == sorted(order, reverse=True)  # grouped by id, ids newest first
        for n, (_, cid, kind) in enumerate(keys):  # each id: its writes, then itself
            if kind == "c":
                assert n + 1 == len(keys) or keys[n + 1][1] != cid
        for cid in ("abc", "ab"):
            low, high = layout.checkpoint_sk(ns, cid), layout.checkpoint_last_sk(ns, cid)
            assert {c for k, c, _ in keys if low <= k <= high} == {cid}


def test_namespaces_never_share_a_prefix_range() -> None:
    spaces = ["", "a", "ab", "abc", "abcd", "#", "~", "%", "a#b", "🦊", "x" * 1024]
    prefixes = [layout.checkpoint_ns_prefix(ns) for ns in spaces]
    assert len(set(prefixes)) == len(spaces)
    for p in prefixes:
        assert not [q for q in prefixes if q != p and q.startswith(p)]
    assert layout.checkpoint_ns_part("x" * 1024).startswith(layout.DIGEST_MARK)


def state(**kw: object) -> CheckpointThreadState:
    return CheckpointThreadState("t", 0.0, **kw)  # type: ignore[arg-type]


def item(cid: str, ns: str = "") -> StoredCheckpoint:
    return StoredCheckpoint(ns, cid, None, "{}", TypedBlob("t", 1, data=b"x"))


def test_floors_hide_and_holds_keep() -> None:
    pruned = state(floors={"": ("b", True)}, holds={"copy": {"": "a"}})
    assert rules.hidden(pruned, "", "a") and not rules.hidden(pruned, "", "b") and not rules.hidden(pruned, "x", "a")
    deleted = state(floors={"": ("b", False)})
    assert rules.hidden(deleted, "", "b") and not rules.hidden(deleted, "", "c")
    assert rules.held(pruned, "", "a") and not rules.held(pruned, "", "b") and not rules.held(pruned, "x", "a")
    assert not rules.unread(pruned, item("a")) and rules.unread(state(floors={"": ("b", True)}), item("a"))
    assert rules.held_through(state(holds={"c1": {"": "a"}, "c2": {"": "c"}}), "") == "c"


def test_blobs_decode_both_base64_alphabets_and_refuse_the_rest() -> None:
    data = bytes(range(256)) * 3
    for encoded in (base64.b64encode(data).decode(), base64.urlsafe_b64encode(data).decode().rstrip("=")):
        assert blobs.decode(Blob(type="t", data=encoded), "checkpoint") == data
    for bad in ("a b", "**", "a===", "é"):
        with pytest.raises(InvalidInput):
            blobs.decode(Blob(type="t", data=bad), "checkpoint")
    with pytest.raises(PayloadTooLarge):
        blobs.decode(Blob(type="t", data=base64.b64encode(b"x" * (blobs.MAX_BLOB_BYTES + 1)).decode()), "checkpoint")


def test_inline_budget_and_no_bucket() -> None:
    ck = Checkpoints(None, None, big_blobs=False)  # type: ignore[arg-type]
    assert blobs.inline(ck, 300_000, 1_000)
    with pytest.raises(PayloadTooLarge):
        blobs.inline(ck, 346_000, 1_000)


@pytest.mark.parametrize("bad", ["", "a" * 65, "a b", "a#b", "a/b", "é"])
def test_checkpoint_ids(bad: str) -> None:
    with pytest.raises(InvalidInput):
        blobs.check_checkpoint_id(bad)
    assert blobs.check_checkpoint_id("1ef4f797-8335-6428-8001-8a1503f9b875") == "1ef4f797-8335-6428-8001-8a1503f9b875"
