"""The substrate's responses are moto's own: during a substrate request, moto's serializer picks a member of a plain
dict with names computed once per member shape (`moto_patches._pick_values_once_per_shape`), and the body it writes
is byte for byte the body moto writes without the substrate, for generated DynamoDB and Streams results."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offprompt_local.substrate import moto_patches

pytestmark = pytest.mark.usefixtures("aws_credentials")

_text = st.text(max_size=12)
_number = st.integers(-(10**12), 10**12).map(str)
_blob = st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode())
_scalar = st.one_of(
    st.builds(lambda v: {"S": v}, _text),
    st.builds(lambda v: {"N": v}, _number),
    st.builds(lambda v: {"B": v}, _blob),
    st.builds(lambda v: {"BOOL": v}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(lambda v: {"SS": v}, st.lists(_text, min_size=1, max_size=3, unique=True)),
    st.builds(lambda v: {"NS": v}, st.lists(_number, min_size=1, max_size=3, unique=True)),
    st.builds(lambda v: {"BS": v}, st.lists(_blob, min_size=1, max_size=3, unique=True)),
)
attribute_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.builds(lambda v: {"M": v}, st.dictionaries(_text, inner, max_size=3)),
        st.builds(lambda v: {"L": v}, st.lists(inner, max_size=3)),
    ),
    max_leaves=8,
)
item = st.dictionaries(
    st.sampled_from(["pk", "sk", "body", "n", "meta", "Items", "count"]), attribute_value, max_size=5
)
items = st.lists(item, max_size=4)


def _record(new: dict[str, Any], old: dict[str, Any], name: str, n: int) -> dict[str, Any]:
    change: dict[str, Any] = {"Keys": {"pk": {"S": "p"}}, "SequenceNumber": str(n), "SizeBytes": 10 + n}
    change.update({"NewImage": new} if new else {})
    change.update({"OldImage": old} if old else {})
    change["StreamViewType"] = "NEW_AND_OLD_IMAGES"
    return {
        "eventID": f"e{n}",
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "dynamodb": change,
    }


#: Results as moto's DynamoDB and Streams responses hand them to the serializer, some members under moto's other
#: accepted spellings (the snake_case alias), some under both.
results = st.one_of(
    st.tuples(st.just(("dynamodb", "GetItem")), st.builds(lambda i: {"Item": i}, item)),
    st.tuples(
        st.just(("dynamodb", "Query")),
        st.builds(
            lambda i, last, alias: (
                {("items" if alias else "Items"): i, "Count": len(i), "scanned_count": len(i)}
                | ({"LastEvaluatedKey": last} if last else {})
            ),
            items,
            item,
            st.booleans(),
        ),
    ),
    st.tuples(
        st.just(("dynamodb", "BatchGetItem")),
        st.builds(lambda i: {"Responses": {"t": i}, "UnprocessedKeys": {}, "responses": {"x": []}}, items),
    ),
    st.tuples(
        st.just(("dynamodbstreams", "GetRecords")),
        st.builds(
            lambda images, it: {
                "Records": [_record(new, old, name, n) for n, (new, old, name) in enumerate(images)],
                "NextShardIterator": it,
            },
            st.lists(st.tuples(item, item, st.sampled_from(["INSERT", "MODIFY", "REMOVE"])), max_size=3),
            _text,
        ),
    ),
)


class _Response:
    RESPONSE_KEY_PATH_TO_TRANSFORMER = None


def _body(service: str, operation: str, result: dict[str, Any], in_substrate: bool) -> str:
    from moto.core.responses import ActionContext, ActionResult
    from moto.core.serialize import get_serializer_class
    from moto.core.utils import get_service_model

    service_model = get_service_model(service)
    context = ActionContext(
        service_model,
        service_model.operation_model(operation),
        get_serializer_class(service, "json"),
        _Response(),  # type: ignore[arg-type]
    )
    moto_patches.context.state = moto_patches.RequestState() if in_substrate else None
    try:
        _status, _headers, body = ActionResult(result).execute_result(context)
    finally:
        moto_patches.context.state = None
    return str(body)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results)
def test_a_substrate_response_is_the_body_moto_writes(case: tuple[tuple[str, str], dict[str, Any]]) -> None:
    moto_patches.install()
    (service, operation), result = case
    assert _body(service, operation, result, in_substrate=True) == _body(service, operation, result, False)


def test_the_names_are_computed_once_per_member_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a vacuous comparison: in a substrate request the picker's names are not asked again for shapes seen."""
    from moto.core import serialize

    moto_patches.install()
    result = {"Items": [{"pk": {"S": "a"}, "n": {"N": "1"}, "m": {"M": {"x": {"L": [{"S": "y"}]}}}}], "Count": 1}
    _body("dynamodb", "Query", result, in_substrate=True)
    asked: list[str] = []
    original = serialize.XFormedAttributePicker.get_possible_keys

    def counting(self: Any, context: Any) -> Any:
        asked.append(context.key)
        return original(self, context)

    monkeypatch.setattr(serialize.XFormedAttributePicker, "get_possible_keys", counting)
    _body("dynamodb", "Query", result, in_substrate=True)
    assert asked == []
    _body("dynamodb", "Query", result, in_substrate=False)  # moto's own path asks for every member of every value
    assert len(asked) > 20


def test_moto_modules_are_listed_once_and_as_moto_lists_them() -> None:
    from moto import backends

    moto_patches.install()
    original = backends.list_of_moto_modules.original  # type: ignore[attr-defined]
    assert backends.list_of_moto_modules() == tuple(original())
    assert backends.list_of_moto_modules() is backends.list_of_moto_modules()
