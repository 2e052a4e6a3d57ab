"""Identifiers and shown names refuse bidi and other format controls (issue 30 item 7), in one place
(`offprompt.identifiers`, ADR 0014): a U+202E in a thread id, memory name, namespace, record label or key, checkpoint
thread id, namespace or task id, or an API key's name made the console show a spoofed label."""

from __future__ import annotations

import pytest

from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.memory.records import check_key, check_label
from offprompt.services.account.api_keys import create_key
from offprompt.services.checkpoints.blobs import check_names, check_thread

#: The bidi controls (Unicode's Bidi_Control) and other invisible format characters.
REFUSED = [
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",  # embeddings, overrides, pop
    "\u2066", "\u2067", "\u2068", "\u2069",  # isolates
    "\u200e", "\u200f", "\u061c",  # marks
    "\u200b", "\u2060", "\ufeff", "\u00ad", "\U000e0041",  # zero-width, word joiner, BOM, soft hyphen, a tag
]  # fmt: skip
CHECKS = [
    lambda v: check_identifier("thread_id", v),
    lambda v: check_identifier("memory_name", v),
    check_label,
    check_key,
    check_thread,
    check_names,
    lambda v: check_names("", v),
]


@pytest.mark.parametrize("ch", REFUSED)
@pytest.mark.parametrize("check", CHECKS)
def test_every_identifier_refuses_bidi_and_format_controls(check: object, ch: str) -> None:
    with pytest.raises(InvalidInput, match=f"U\\+{ord(ch):04X}") as refused:
        check(f"invoice{ch}fdp.exe")  # type: ignore[operator]
    assert refused.value.code == "invalid_input"


def test_the_joiners_that_scripts_and_emoji_need_stay_allowed() -> None:
    for text in ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"):
        assert check_identifier("thread_id", text) == text
        assert check_label(text) == text
    assert check_names("", "task") is None and check_names("parent:1|child:2") is None  # LangGraph's own forms


def test_an_api_key_name_refuses_them_before_anything_is_stored() -> None:
    class NoStore:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"nothing is read or stored before the name is checked ({name})")

    with pytest.raises(InvalidInput, match="U\\+202E"):
        create_key(NoStore(), "tenant", "ci\u202eyek", "2026-12-04T00:00:00Z")  # type: ignore[arg-type]
