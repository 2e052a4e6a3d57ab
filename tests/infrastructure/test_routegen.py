"""`make routes` (offprompt_local.routegen): template.yaml's HttpApi events and security paths, the sample events, the
smoke's ROUTES, docs/openapi.json and docs/mcp.md's tool table are what the route declarations imply, and a route
added the old way (by hand in template.yaml) is taken in or refused with a message that says what to do."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from offprompt_local import routegen

ROOT = routegen.ROOT


@pytest.fixture(scope="module")
def declared() -> routegen.Declared:
    return routegen.declared()


@pytest.fixture(scope="module")
def handlers() -> list[str]:
    return [p.parent.name for p in (ROOT / "functions").glob("*/handler.py")]


def test_every_generated_file_is_current() -> None:
    changes = routegen.plan()
    assert {ROOT / "template.yaml", routegen.SMOKE_TABLE, ROOT / "docs" / "openapi.json", routegen.MCP_DOC} <= set(
        changes
    )
    assert [str(p.relative_to(ROOT)) for p in routegen.stale(changes)] == [], "run make routes"


def test_a_stale_file_is_named(tmp_path: Path) -> None:
    current = tmp_path / "route_table.py"
    current.write_text("ROUTES = ()\n")
    assert routegen.stale({current: "ROUTES = ('GET /x',)\n", tmp_path / "gone.json": None}) == [current]


def _scratch(declared: routegen.Declared) -> routegen.DeclaredRoute:
    usage = next(r for r in declared.routes if r.route_key == "GET /usage")
    return replace(usage, method="POST", path="/keys/{key_id}/scratch", name="post_scratch", body={"n": 1})


def test_a_new_route_gets_its_event_and_its_security_entry(declared: routegen.Declared, handlers: list[str]) -> None:
    text = (ROOT / "template.yaml").read_text()
    scratch = _scratch(declared)
    written = routegen.render_template(text, (*declared.routes, scratch), handlers)
    added = [line for line in written.splitlines() if line not in text.splitlines()]
    assert set(added) == {
        "          /keys/{key_id}/scratch:",
        "            Path: /keys/{key_id}/scratch",
        "        PostKeysKeyIdScratch:",
    }
    assert "            post:\n              security: *auth" in written.split("/keys/{key_id}/scratch:", 1)[1][:60]
    # and the route gone again is the template as it was
    assert routegen.render_template(written, declared.routes, handlers) == text


def test_an_http_api_event_written_by_hand_is_taken_in(declared: routegen.Declared, handlers: list[str]) -> None:
    """Another branch adds a route the old way: its hand-written event (inside or after the generated block) gives
    way to the generated one, and an event of an undeclared route goes."""
    text = (ROOT / "template.yaml").read_text()
    end = "\n        # END make routes\n"  # the first function's (AccountFunction) block
    hand = (
        "        GetUsageByHand: # the old way\n"
        "          Type: HttpApi\n"
        "          Properties:\n"
        "            ApiId: !Ref HttpApi\n"
        "            Method: GET\n"
        "            Path: /usage\n"
    )
    after = text.replace(end, end + hand, 1)
    inside = text.replace(end, "\n" + hand.rstrip("\n") + end, 1)
    assert after != text and inside != text
    assert routegen.render_template(after, declared.routes, handlers) == text
    assert routegen.render_template(inside, declared.routes, handlers) == text
    undeclared = text.replace(end, end + hand.replace("/usage", "/gone"), 1)
    assert routegen.render_template(undeclared, declared.routes, handlers) == text


def test_a_function_without_a_resource_is_refused_with_what_to_add(
    declared: routegen.Declared, handlers: list[str]
) -> None:
    audit = replace(_scratch(declared), function="audit", path="/audit", method="GET")
    with pytest.raises(routegen.RouteGenError, match=r"functions/audit \(Handler: audit.handler.lambda_handler\)"):
        routegen.render_template((ROOT / "template.yaml").read_text(), (*declared.routes, audit), handlers)


def test_a_function_resource_without_events_gets_them(declared: routegen.Declared, handlers: list[str]) -> None:
    text = (ROOT / "template.yaml").read_text()
    start = text.index("  AccountFunction:")
    events = text.index("      Events:", start)
    stop = text.index("        # END make routes\n", events) + len("        # END make routes\n")
    bare = text[:events] + text[stop:]
    assert "Path: /usage" not in bare
    assert routegen.render_template(bare, declared.routes, handlers) == text


def test_sample_events_are_created_for_new_routes_and_deleted_for_gone_ones(
    declared: routegen.Declared, tmp_path: Path
) -> None:
    for path in (ROOT / "events").glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text())
    assert routegen.render_events(tmp_path, declared) == {}
    scratch = _scratch(declared)
    gone = next(r for r in declared.routes if r.route_key == "DELETE /keys/{key_id}")
    changed = routegen.Declared(
        (*tuple(r for r in declared.routes if r != gone), scratch),
        declared.directs
        | {"account": (declared.directs["account"][0], None, (*declared.directs["account"][2], "scratch"))},
    )
    changes = routegen.render_events(tmp_path, changed)
    assert changes.pop(tmp_path / "keys_revoke_http.json") is None
    new = json.loads(changes.pop(tmp_path / "keys_post_scratch_http.json") or "")
    assert new["routeKey"] == new["requestContext"]["routeKey"] == "POST /keys/{key_id}/scratch"
    assert new["rawPath"] == new["requestContext"]["http"]["path"] == "/keys/key-1/scratch"
    assert new["pathParameters"] == {"key_id": "key-1"} and json.loads(new["body"]) == {"n": 1}
    assert json.loads(changes.pop(tmp_path / "keys_scratch_direct.json") or "") == {
        "tenant": "tenant-a",
        "action": "scratch",
    }
    assert changes == {}
    (tmp_path / "keys_scratch_direct.json").write_text('{"tenant": "tenant-a", "action": "scratch"}')
    assert routegen.render_events(tmp_path, declared) == {tmp_path / "keys_scratch_direct.json": None}


def test_the_smoke_table_puts_literal_segments_first(declared: routegen.Declared) -> None:
    from offprompt_smoke.route_table import ROUTES

    assert ROUTES.index("POST /threads/search") < ROUTES.index("GET /threads/{thread_id}")
    assert set(ROUTES) == {r.route_key for r in declared.routes}


def test_a_route_declared_by_two_functions_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import account.handler

    spec = account.handler.routes.specs[0]
    monkeypatch.setattr(account.handler.routes, "specs", [*account.handler.routes.specs, spec])
    with pytest.raises(routegen.RouteGenError, match=r"functions/account/handler.py declares POST /keys twice"):
        routegen.declared()


def test_docs_mcp_md_lists_every_tool_with_its_route() -> None:
    from mcp_server.tools import specs

    table = routegen.mcp_table()
    assert len(table) == 2 + len(specs())
    assert '| `recall` | `namespace_prefix?`, `query?`, `filter?`, `limit=10`, `as_of?`, `mode="bm25"` |' in "\n".join(
        table
    )
    with pytest.raises(routegen.RouteGenError, match=r"docs/mcp\.md has no"):
        routegen.render_mcp_doc("# MCP\n")


def test_an_operation_with_its_own_security_is_kept(declared: routegen.Declared, handlers: list[str]) -> None:
    text = (ROOT / "template.yaml").read_text()
    standard = "          /usage:\n            get:\n              security: *auth\n"
    own = "          /usage:\n            get:\n              security:\n                - apikey: [usage:read]\n"
    assert standard in text
    scoped = text.replace(standard, own)
    assert routegen.render_template(scoped, declared.routes, handlers) == scoped
