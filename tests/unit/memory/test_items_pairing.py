"""A token-budgeted items read never starts with a tool result whose call was cut off (offprompt.memory.items)."""

from __future__ import annotations

from offprompt.memory.items import call_ids, result_ids, without_orphan_results

CALL = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "42"}
USER = {"role": "user", "content": "hi"}
USE = {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "lookup", "input": {}}}]}
RESULT = {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "42"}]}}]}


def test_calls_and_results_of_both_formats() -> None:
    assert call_ids(CALL) == {"c1"} and result_ids(OUTPUT) == {"c1"}
    assert call_ids(USE) == {"t1"} and result_ids(RESULT) == {"t1"}
    assert call_ids(USER) == result_ids(USER) == set() == call_ids("text")


def test_an_orphan_result_and_what_precedes_it_are_dropped() -> None:
    assert without_orphan_results([OUTPUT, USER]) == 1
    assert without_orphan_results([USER, RESULT, USER]) == 2
    assert without_orphan_results([CALL, OUTPUT, USER]) == 0
    assert without_orphan_results([USE, RESULT]) == 0
    assert without_orphan_results([]) == 0
    other = {"type": "function_call_output", "call_id": "c2", "output": "x"}
    # c2 has no call: the suffix starts after it, which cuts c1's call off too, so c1's output goes as well
    assert without_orphan_results([CALL, other, OUTPUT]) == 3
