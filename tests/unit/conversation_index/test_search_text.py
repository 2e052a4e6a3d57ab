"""The searchable text of a run or a session item (offprompt.memory.search_text): every text-bearing artifact of input
and output, JSON flattened, blobs by name and type, `meta` values, items by role."""

from __future__ import annotations

import json

from offprompt.artifacts import BlobArtifact, ImageArtifact, JsonArtifact, ListArtifact, TextArtifact
from offprompt.memory.run import Run
from offprompt.memory.search_text import MAX_FIELD_CHARS, artifact_text, flatten, item_text, run_text, turn_text


def griptape_run(user: object, assistant: object, meta: object = None) -> dict[str, object]:
    return json.loads(Run(input=user, output=assistant, meta=meta).to_json())  # type: ignore[arg-type]


def test_a_text_run_is_its_input_and_output_and_its_meta_values() -> None:
    run = griptape_run(TextArtifact("I moved to Tokyo"), TextArtifact("Nice!"), {"channel": "web", "n": 3})
    text = run_text(run)
    assert (text.input_text, text.output_text) == ("I moved to Tokyo", "Nice!")
    assert text.meta_text == "channel: web\nn: 3"
    assert text.joined == "I moved to Tokyo\nNice!"


def test_json_is_flattened_with_its_keys_and_a_list_gives_each_members_text() -> None:
    value = {"trip": {"city": "Kyoto", "days": [1, 2]}, "ok": True, "none": None}
    assert artifact_text(JsonArtifact(value).to_dict()) == "trip.city: Kyoto\ntrip.days: 1\ntrip.days: 2\nok: true"
    listed = ListArtifact([TextArtifact("first"), TextArtifact("second")]).to_dict()
    assert artifact_text(listed) == "first\nsecond"


def test_blobs_are_indexed_by_name_and_type_never_their_bytes() -> None:
    blob = BlobArtifact(b"\x00secret bytes", name="report.pdf").to_dict()
    assert artifact_text(blob) == "report.pdf (BlobArtifact)"
    image = ImageArtifact(b"\x89PNG....", format="png", width=1, height=1, name="chart.png").to_dict()
    assert artifact_text(image) == "chart.png (ImageArtifact, png)"
    run = {"id": "r", "meta": None, "input": TextArtifact("see attached").to_dict(), "output": image}
    assert "PNG" not in run_text(run).output_text


def test_items_by_role_without_identifiers_or_bytes() -> None:
    user = {"role": "user", "content": [{"type": "input_text", "text": "my cat is Miso"}], "id": "msg_1"}
    assert item_text(user).input_text == "my cat is Miso" and item_text(user).output_text == ""
    call = {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Oslo"}'}
    assert item_text(call).output_text == 'weather\n{"city": "Oslo"}'
    image = {"image": {"format": "png", "source": {"bytes": "AAAA"}}}
    converse = {"role": "assistant", "content": [{"text": "Done."}, image]}
    assert item_text(converse).output_text == "Done."


def test_fields_are_capped_and_unreadable_bodies_have_no_text() -> None:
    run = griptape_run(TextArtifact("x" * (MAX_FIELD_CHARS + 10)), TextArtifact("y"))
    assert len(run_text(run).input_text) == MAX_FIELD_CHARS
    assert turn_text("{not json", item=False).joined == ""
    assert turn_text(json.dumps(run), item=False).output_text == "y"
    assert flatten("plain") == "plain"
