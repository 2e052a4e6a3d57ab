"""The extraction function's routes through its Lambda handler (API Gateway v2 events and direct invocations) on
moto: strategies put, read, listed and deleted per tenant; the same refusals with the same codes on both doors; a
thread's `actor_id` setting (docs/adr/0051)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from offprompt.errors import OffpromptError
from offprompt.services.extraction.context import Extractions

EVENTS = Path(__file__).resolve().parents[3] / "events"


class Api:
    def __init__(self) -> None:
        from extraction import handler

        self.handler = handler

    def http(self, method: str, route: str, path: str, params: dict[str, str] | None = None, *, body: Any = None,
             tenant: str = "tenant-a") -> tuple[int, Any]:  # fmt: skip
        sample = next(
            json.loads(p.read_text())
            for p in sorted(EVENTS.glob("extraction_*_http.json"))
            if json.loads(p.read_text())["routeKey"] == f"{method} {route}"
        )
        event = copy.deepcopy(sample)
        event["rawPath"] = event["requestContext"]["http"]["path"] = path
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
        event["pathParameters"] = params or {}
        event.pop("body", None)
        if body is not None:
            event["body"] = body if isinstance(body, str) else json.dumps(body)
        out = self.handler.lambda_handler(event, None)
        text = out.get("body") or ""
        return out["statusCode"], (json.loads(text) if text else None)

    def put(self, name: str, body: Any, tenant: str = "tenant-a") -> tuple[int, Any]:
        path = f"/extraction/strategies/{name}"
        return self.http("PUT", "/extraction/strategies/{name}", path, {"name": name}, body=body, tenant=tenant)

    def direct(self, **event: Any) -> Any:
        return self.handler.lambda_handler({"tenant": "tenant-a", **event}, None)

    def refused(self, **event: Any) -> str:
        """The code of the error a direct invocation raises (a direct caller gets the library's error)."""
        with pytest.raises(OffpromptError) as caught:
            self.direct(**event)
        return caught.value.code


@pytest.fixture
def api(ext: Extractions, monkeypatch: pytest.MonkeyPatch) -> Api:
    from extraction import handler

    monkeypatch.setattr(handler, "extractions", lambda: ext)
    return Api()


FACTS = {"type": "facts", "namespace": "users/{actor_id}/facts", "trigger": {"after_runs": 2, "idle_seconds": 30}}


def test_put_get_list_delete(api: Api) -> None:
    status, stored = api.put("facts", FACTS)
    assert status == 200
    assert stored["name"] == "facts" and stored["namespace"] == "users/{actor_id}/facts"
    assert stored["trigger"] == {"after_runs": 2, "idle_seconds": 30} and stored["enabled"] is True
    assert stored["instructions"] is None and stored["created_at"] == stored["updated_at"]
    status, again = api.put("facts", {**FACTS, "enabled": False, "instructions": "only food"})
    assert status == 200 and again["created_at"] == stored["created_at"] and again["enabled"] is False
    api.put("prefs", {"type": "preferences", "namespace": "users/{actor_id}/prefs"})
    status, listed = api.http("GET", "/extraction/strategies", "/extraction/strategies")
    assert status == 200 and [s["name"] for s in listed["strategies"]] == ["facts", "prefs"]
    assert listed["strategies"][1]["trigger"] == {"after_runs": 1, "idle_seconds": 0}  # the defaults
    status, got = api.http("GET", "/extraction/strategies/{name}", "/extraction/strategies/facts", {"name": "facts"})
    assert status == 200 and got == again
    status, _ = api.http("DELETE", "/extraction/strategies/{name}", "/extraction/strategies/facts", {"name": "facts"})
    assert status == 204
    status, gone = api.http("GET", "/extraction/strategies/{name}", "/extraction/strategies/facts", {"name": "facts"})
    assert status == 404 and gone["code"] == "strategy_not_found"
    status, _ = api.http("DELETE", "/extraction/strategies/{name}", "/extraction/strategies/facts", {"name": "facts"})
    assert status == 204  # idempotent
    # another tenant sees none of them
    status, other = api.http("GET", "/extraction/strategies", "/extraction/strategies", tenant="tenant-b")
    assert status == 200 and other == {"strategies": []}


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({**FACTS, "type": "opinions"}, 422, "schema_invalid"),
        ({**FACTS, "trigger": {"after_runs": 0}}, 422, "schema_invalid"),
        ({**FACTS, "trigger": {"after_runs": 1, "idle_seconds": -1}}, 422, "schema_invalid"),
        ({**FACTS, "surprise": 1}, 422, "schema_invalid"),
        ({"namespace": "a/b"}, 422, "schema_invalid"),
        ({**FACTS, "namespace": "users/{user}/facts"}, 400, "invalid_input"),
        ({**FACTS, "namespace": "users/{actor_id/facts"}, 400, "invalid_input"),
        ({**FACTS, "namespace": "users.x/{actor_id}"}, 400, "invalid_input"),
        ({**FACTS, "namespace": "a//b"}, 400, "invalid_input"),
        ({**FACTS, "namespace": "/".join(["a"] * 9)}, 400, "invalid_input"),
        ({"type": "custom", "namespace": "notes"}, 400, "invalid_input"),
        ({"type": "custom", "namespace": "notes", "instructions": "  "}, 400, "invalid_input"),
    ],
)
def test_bad_strategies_are_refused_alike_on_both_doors(api: Api, body: Any, status: int, code: str) -> None:
    got, answer = api.put("s1", body)
    assert (got, answer["code"]) == (status, code)
    assert api.refused(action="put_strategy", name="s1", **body) == code
    assert api.direct(action="list_strategies") == {"strategies": []}  # nothing stored


def test_a_strategy_name_is_a_label(api: Api) -> None:
    status, answer = api.put("a.b", FACTS)
    assert (status, answer["code"]) == (400, "invalid_input")
    assert api.refused(action="put_strategy", name="a.b", **FACTS) == "invalid_input"
    assert api.refused(action="get_strategy", name="nope") == "strategy_not_found"
    assert api.direct(action="delete_strategy", name="nope") == {"deleted": False}


def test_a_custom_strategy_with_instructions_and_every_variable(api: Api) -> None:
    body = {"type": "custom", "namespace": "t/{thread_id}/{strategy}/{actor_id}", "instructions": "Keep dates."}
    status, stored = api.put("dates", body)
    assert status == 200 and stored["instructions"] == "Keep dates."
    assert api.direct(action="get_strategy", name="dates") == stored


def test_thread_actor_id_is_a_thread_setting(aws: dict[str, Any], chat: Any) -> None:
    from threads import handler as threads

    def configure(thread: str, body: dict[str, Any]) -> Any:
        return threads.lambda_handler({"tenant": "tenant-a", "action": "configure", "thread_id": thread, **body}, None)

    chat.say("tenant-a", "t1", "hello")
    assert configure("t1", {"actor_id": "user-7"})["actor_id"] == "user-7"
    assert configure("t1", {"max_runs": 5})["actor_id"] == "user-7"  # kept
    with pytest.raises(OffpromptError) as caught:  # it becomes a namespace label
        configure("t1", {"actor_id": "a.b"})
    assert caught.value.code == "invalid_input"
    assert configure("t1", {"actor_id": None})["actor_id"] is None
    items = threads.lambda_handler(
        {"tenant": "tenant-a", "action": "add_items", "thread_id": "s1", "items": [{"role": "user", "content": "hi"}]},
        None,
    )
    assert items["seqs"] == [1]
    assert configure("s1", {"actor_id": "user-7"})["actor_id"] == "user-7"  # items threads too
