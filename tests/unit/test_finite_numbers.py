"""`check_finite` (docs/adr/0044-front-door.md): every JSON text whose numbers parse to NaN or ±Infinity is refused
with `finite_number`, whatever its spelling; its fast path (a regex over the text) never lets one through."""

from __future__ import annotations

import json

import pytest

from offprompt.errors import SchemaInvalid
from offprompt.validation import check_finite

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
    with pytest.raises(SchemaInvalid) as refused:
        check_finite(json.loads(raw), raw)
    assert refused.value.to_dict()["details"][0]["loc"] == ["a", 1, "b"]
    assert refused.value.to_dict()["details"][0]["type"] == "finite_number"


@pytest.mark.parametrize("number", FINITE)
def test_finite_numbers_and_strings_go_on(number: str) -> None:
    raw = '{"a": [1, {"b": %s}]}' % number  # noqa: UP031
    check_finite(json.loads(raw), raw)


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
