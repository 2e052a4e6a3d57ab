"""`parse_json` + `check_finite` (docs/adr/0044-front-door.md): every JSON text whose numbers parse to NaN or
±Infinity is refused with `finite_number`, whatever its spelling; the parser's hooks (which spare a body without
one the walk) never let one through, and never flag a body without one."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from offprompt.errors import SchemaInvalid
from offprompt.validation import check_finite, non_finite_at, parse_json

NOT_FINITE = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1E+400",
    "1e0309",
    "1" + "0" * 299 + "e10",  # 300 digits of mantissa, a two-digit exponent: 1e309
    "1" + "0" * 300 + ".5e9",
    "1" + "0" * 320 + ".0",
    "0." + "0" * 10 + "1e320",
]
FINITE = ["1e308", "1.7976931348623157e308", "1e-400", "-0", "1" + "0" * 320, '"NaN"', '"1e400"', "12345.678e-2"]


@pytest.mark.parametrize("number", NOT_FINITE)
def test_every_spelling_of_a_number_json_cannot_hold_is_refused(number: str) -> None:
    raw = '{"a": [1, {"b": %s}]}' % number  # noqa: UP031
    value, non_finite = parse_json(raw)
    assert non_finite
    assert value == json.loads(raw) or number == "NaN"  # (NaN != NaN) the same value as json.loads
    with pytest.raises(SchemaInvalid) as refused:
        check_finite(value)
    assert refused.value.to_dict()["details"][0]["loc"] == ["a", 1, "b"]
    assert refused.value.to_dict()["details"][0]["type"] == "finite_number"


@pytest.mark.parametrize("number", FINITE)
def test_finite_numbers_and_strings_go_on(number: str) -> None:
    raw = '{"a": [1, {"b": %s}]}' % number  # noqa: UP031
    value, non_finite = parse_json(raw)
    assert not non_finite
    assert value == json.loads(raw)
    assert type(value["a"][1]["b"]) is type(json.loads(raw)["a"][1]["b"])
    check_finite(value)


def test_an_answer_holding_a_value_stored_before_the_rule_is_json_with_null_in_its_place() -> None:
    """A record or item stored before NaN was refused still answers: valid JSON (`null` where the NaN was, as
    `JSON.stringify` writes it), never a 500 from the encoder nor a bare `NaN` (it raised ValueError before)."""
    from api_common.entry import _POWERTOOLS_DUMPS, json_response

    stored = {"value": {"score": float("nan"), "bounds": [float("-inf"), 1.5, float("inf")]}, "n": 2}
    for text in (json_response(stored).body, _POWERTOOLS_DUMPS(stored)):

        def bare(word: str, text: str = text) -> None:
            pytest.fail(f"bare {word} in {text}")

        assert json.loads(text, parse_constant=bare) == {
            "value": {"score": None, "bounds": [None, 1.5, None]},
            "n": 2,
        }


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(_JSON_VALUES)
def test_the_parser_flags_a_body_exactly_when_the_walk_finds_a_non_finite_number(value: object) -> None:
    raw = json.dumps(value)  # writes NaN, Infinity, -Infinity bare, as a client's encoder may
    parsed, non_finite = parse_json(raw)
    assert non_finite == (non_finite_at(parsed) is not None) == (non_finite_at(json.loads(raw)) is not None)
