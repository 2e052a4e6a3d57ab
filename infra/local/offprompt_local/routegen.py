"""`make routes`: what the route declarations imply, written where deploy and tests read it.

A route is declared once, on its route function (`FunctionRoutes` in `functions/<function>/handler.py`). From those
declarations this module writes:

- template.yaml: each function's HttpApi events (between the `# BEGIN make routes` and `# END make routes` lines of
  its `Events:`) and the HttpApi's DefinitionBody `paths:` (each operation's security requirement: the `&auth`
  alternatives, or `[]` for PUBLIC_FUNCTIONS; an operation that says something else, e.g. its own scopes, is kept as
  written). Everything else in template.yaml stays as written (comments,
  policies, the meaning of `&auth`): the generator edits those two places only, as text;
- events/: one API Gateway v2 sample event per route (a missing one is created, one for a route that is gone is
  deleted; an existing one keeps its hand-written body and values) and one direct event per direct action (one
  naming an action its function no longer has is deleted);
- tools/offprompt_smoke/route_table.py: the smoke's ROUTES (the smoke is stdlib-only: it cannot import handlers);
- docs/mcp.md's tool table, from the MCP tool table (functions/mcp_server/tools.py `specs()`: tool, arguments, the
  route it mirrors, the use case it calls);
- docs/openapi.json (`offprompt_local.docs`).

`python -m offprompt_local.routegen` writes; `--check` lists what is stale and exits 1;
tests/infrastructure/test_routegen.py fails when any of them is stale. Routes added by hand the old way (an
HttpApi event written into template.yaml) are taken in: the generator removes every HttpApi event outside its
block and writes the declared ones; what it cannot do (a function with routes and no resource in template.yaml, a
resource without `Events:` markers and no `Events:` to put them in) it refuses with a message saying what to add.

Nothing happens at import time: `plan()` imports the handlers.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .routes import FUNCTIONS_DIR, PUBLIC_FUNCTIONS

ROOT = FUNCTIONS_DIR.parent
TEMPLATE = ROOT / "template.yaml"
EVENTS = ROOT / "events"
SMOKE_TABLE = ROOT / "tools" / "offprompt_smoke" / "route_table.py"

BEGIN = "# BEGIN make routes"
END = "# END make routes"
#: What `&auth` means when template.yaml does not say it yet (any one of the deployment's AuthMode).
DEFAULT_AUTH = ("- !If [UseIam, {sigv4: []}, !If [UseApiKey, {apikey: []}, {jwt: []}]]",)
_RESOURCE = re.compile(r"^  ([A-Za-z0-9]+):\s*(#.*)?$")
_EVENT = re.compile(r"^        ([A-Za-z0-9]+):\s*(#.*)?$")
_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class RouteGenError(RuntimeError):
    """What `make routes` cannot write, and what to do about it."""


@dataclass(frozen=True)
class DeclaredRoute:
    function: str
    method: str
    path: str
    name: str  # the route function
    body: Any  # the request body's example (None: the route reads no body)

    @property
    def route_key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def event_id(self) -> str:
        """The HttpApi event's logical id: `POST /threads/{thread_id}/runs` is `PostThreadsThreadIdRuns`."""
        words = re.split(r"[^A-Za-z0-9]+", f"{self.method.lower()} {self.path}")
        return "".join(w[:1].upper() + w[1:] for w in words if w)


@dataclass(frozen=True)
class Declared:
    routes: tuple[DeclaredRoute, ...]
    directs: dict[str, tuple[tuple[str, ...], str | None, tuple[str, ...]]]  # function: (prefixes, default, actions)

    def of(self, function: str) -> tuple[DeclaredRoute, ...]:
        return tuple(r for r in self.routes if r.function == function)


# ---- reading the declarations ------------------------------------------------------------------------------
def declared(functions_dir: Path = FUNCTIONS_DIR) -> Declared:
    routes: list[DeclaredRoute] = []
    directs: dict[str, tuple[tuple[str, ...], str | None, tuple[str, ...]]] = {}
    for handler in sorted(functions_dir.glob("*/handler.py")):
        module = importlib.import_module(f"{handler.parent.name}.handler")
        declared_routes = getattr(module, "routes", None)
        specs = getattr(declared_routes, "specs", None)
        if declared_routes is None or specs is None:
            continue
        seen: set[str] = set()
        for spec in specs:
            if spec.function != handler.parent.name:
                raise RouteGenError(
                    f"{handler.relative_to(functions_dir.parent)}: FunctionRoutes({spec.function!r}) must name its "
                    f"own directory ({handler.parent.name!r})"
                )
            if spec.route_key in seen:
                raise RouteGenError(f"{handler.relative_to(functions_dir.parent)} declares {spec.route_key} twice")
            seen.add(spec.route_key)
            fn = getattr(module, spec.name, None)
            routes.append(DeclaredRoute(spec.function, spec.method, spec.path, spec.name, _body_example(fn)))
        if declared_routes.directs:
            directs[handler.parent.name] = (
                tuple(declared_routes.event_prefixes),
                declared_routes.default_action,
                tuple(declared_routes.directs),
            )
    keys = [r.route_key for r in routes]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        owners = {k: [r.function for r in routes if r.route_key == k] for k in twice}
        raise RouteGenError(f"routes declared by two functions: {owners}")
    return Declared(tuple(routes), directs)


def _body_example(fn: Any) -> Any:
    """The first example of the route's request-body model (`model_config["json_schema_extra"]["examples"]`), `{}`
    for a body without one, None when the route reads no body."""
    if fn is None:
        return None
    from aws_lambda_powertools.event_handler.openapi.params import Body

    hints = typing.get_type_hints(fn, include_extras=True)
    for hint in hints.values():
        if typing.get_origin(hint) is not typing.Annotated:
            continue
        base, *extras = typing.get_args(hint)
        if not any(isinstance(extra, Body) for extra in extras):
            continue
        for candidate in (base, *typing.get_args(base)):
            schema_extra = getattr(candidate, "model_config", {}).get("json_schema_extra")
            examples = schema_extra.get("examples") if isinstance(schema_extra, dict) else None
            if examples:
                return examples[0]
        return {}
    return None


# ---- template.yaml ---------------------------------------------------------------------------------------
def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _resources(lines: list[str]) -> list[tuple[str, int, int]]:
    """(logical id, first line, end line) of each resource under `Resources:`."""
    try:
        start = lines.index("Resources:") + 1
    except ValueError as exc:
        raise RouteGenError("template.yaml has no top-level `Resources:` line") from exc
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith((" ", "#"))), len(lines))
    heads = [(i, m.group(1)) for i in range(start, end) if (m := _RESOURCE.match(lines[i]))]
    found = []
    for n, (i, name) in enumerate(heads):
        stop = heads[n + 1][0] if n + 1 < len(heads) else end
        while stop > i + 1 and (not lines[stop - 1].strip() or lines[stop - 1].startswith("  # ")):
            stop -= 1  # trailing blank lines and the next resource's banner comments stay outside
        found.append((name, i, stop))
    return found


def _event_lines(routes: Iterable[DeclaredRoute], function: str) -> list[str]:
    out = [f"        {BEGIN}: {function}'s routes (functions/{function}/handler.py); do not edit"]
    for route in routes:
        out += [
            f"        {route.event_id}:",
            "          Type: HttpApi",
            "          Properties:",
            "            ApiId: !Ref HttpApi",
            f"            Method: {route.method}",
            f"            Path: {route.path}",
        ]
    return [*out, f"        {END}"]


def _rewrite_events(block: list[str], resource: str, function: str, routes: tuple[DeclaredRoute, ...]) -> list[str]:
    """The resource's lines with its HttpApi events replaced by the generated block (others kept)."""
    try:
        events_at = next(i for i, line in enumerate(block) if line.rstrip() == "      Events:")
    except StopIteration:
        if not routes:
            return block
        return [*block, "      Events:", *_event_lines(routes, function)]
    end = next((i for i in range(events_at + 1, len(block)) if block[i].strip() and _indent(block[i]) <= 6), len(block))
    body = block[events_at + 1 : end]
    kept: list[str] = []
    entry: list[str] = []

    def flush() -> None:
        if entry and not any(line.strip() == "Type: HttpApi" for line in entry):
            kept.extend(entry)
        entry.clear()

    inside = False
    for line in body:
        if line.strip().startswith(BEGIN):
            flush()
            inside = True
            continue
        if inside:
            inside = not line.strip().startswith(END)
            continue
        comment = line.startswith("        #")
        if (_EVENT.match(line) and not all(ln.startswith("        #") for ln in entry)) or (
            comment and any(not ln.startswith("        #") for ln in entry)
        ):
            flush()  # a new event starts (with the comments right above it)
        entry.append(line)
    if inside:
        raise RouteGenError(f"template.yaml: {resource}'s Events has `{BEGIN}` without `{END}`")
    flush()
    while kept and not kept[-1].strip():
        kept.pop()
    generated = _event_lines(routes, function) if routes else []
    events = [*generated, *kept]
    head = block[: events_at + 1] if events else block[:events_at]
    return [*head, *events, *block[end:]]


def _auth_lines(paths_block: list[str]) -> list[str]:
    """What `&auth` says in template.yaml today (the generator owns the list of paths, not the requirement)."""
    for i, line in enumerate(paths_block):
        if line.strip().endswith("security: &auth"):
            depth = _indent(line)
            return [
                ln.strip() for ln in paths_block[i + 1 :][: _run(paths_block[i + 1 :], depth)] if ln.strip()
            ] or list(DEFAULT_AUTH)
    return list(DEFAULT_AUTH)


def _run(lines: list[str], depth: int) -> int:
    return next((n for n, ln in enumerate(lines) if ln.strip() and _indent(ln) <= depth), len(lines))


def _operations(paths_block: list[str]) -> dict[tuple[str, str], list[str]]:
    """The operations template.yaml's DefinitionBody `paths:` holds now: (path, method) → the lines under the method."""
    found: dict[tuple[str, str], list[str]] = {}
    path = method = None
    for line in paths_block:
        if not line.strip() or line.strip().startswith("#"):
            continue
        depth, text = _indent(line), line.strip()
        if depth == 10 and text.endswith(":"):
            path, method = text[:-1], None
        elif depth == 12 and text.endswith(":") and path is not None:
            method = text[:-1]
            found[(path, method)] = []
        elif depth > 12 and path is not None and method is not None:
            found[(path, method)].append(line)
    return found


def _is_generated(body: list[str]) -> bool:
    """Whether an operation says only what the generator writes (`*auth`, the `&auth` anchor, or `[]`)."""
    first = body[0].split("#", 1)[0].strip() if body else ""
    return first in ("security: *auth", "security: &auth", "security: []") and all(
        _indent(line) > 14 for line in body[1:]
    )


def _paths_lines(
    routes: tuple[DeclaredRoute, ...], auth: list[str], kept: dict[tuple[str, str], list[str]]
) -> list[str]:
    """The `paths:` block: each route `*auth` (the first one defines `&auth`), the console's `[]`; an operation
    that says something else in template.yaml (e.g. its own scopes) is kept as written."""
    out = [f"          {BEGIN}: every declared route's security requirement (public: {', '.join(PUBLIC_FUNCTIONS)})"]
    by_path: dict[str, list[DeclaredRoute]] = {}
    for route in routes:
        by_path.setdefault(route.path, []).append(route)
    anchored = False
    for path, operations in sorted(by_path.items()):
        out.append(f"          {path}:")
        for route in operations:
            out.append(f"            {route.method.lower()}:")
            written = kept.get((path, route.method.lower()))
            if written and not _is_generated(written):
                out += written
            elif route.function in PUBLIC_FUNCTIONS:
                out.append("              security: [] # no credentials (docs/adr/0038)")
            elif not anchored:
                out.append("              security: &auth")
                out += [f"                {line}" for line in auth]
                anchored = True
            else:
                out.append("              security: *auth")
    return [*out, f"          {END}"]


def render_template(text: str, routes: tuple[DeclaredRoute, ...], handlers: Iterable[str]) -> str:
    """template.yaml with the HttpApi events and the DefinitionBody paths of `routes`.

    `handlers`: every function directory with a handler.py (a resource whose handler declares no routes keeps no
    HttpApi event)."""
    lines = text.split("\n")
    resources = _resources(lines)
    by_handler: dict[str, tuple[str, int, int]] = {}
    for name, start, stop in resources:
        for line in lines[start:stop]:
            m = re.match(r"^      Handler: ([A-Za-z0-9_]+)\.handler\.lambda_handler\s*$", line)
            if m:
                by_handler[m.group(1)] = (name, start, stop)
    functions = list(dict.fromkeys(r.function for r in routes))
    missing = [f for f in functions if f not in by_handler]
    if missing:
        raise RouteGenError(
            "template.yaml has no AWS::Serverless::Function for "
            + ", ".join(f"functions/{f} (Handler: {f}.handler.lambda_handler)" for f in missing)
            + ": add its resource (Description, Handler, Policies); make routes writes its HttpApi events"
        )
    api = next((r for r in resources if r[0] == "HttpApi"), None)
    if api is None:
        raise RouteGenError("template.yaml has no HttpApi resource (AWS::Serverless::HttpApi)")
    # edits from the bottom up, so the line numbers above each edit stay true
    edits: list[tuple[int, int, list[str]]] = []
    for function in set(by_handler) & set(handlers):
        name, start, stop = by_handler[function]
        block = lines[start:stop]
        new = _rewrite_events(block, name, function, tuple(r for r in routes if r.function == function))
        if new != block:
            edits.append((start, stop, new))
    _, start, stop = api
    at = next((i for i in range(start, stop) if lines[i].rstrip() == "        paths:"), None)
    if at is None:
        raise RouteGenError("template.yaml: the HttpApi's DefinitionBody has no `paths:` line (8 spaces indented)")
    end = at + 1 + _run(lines[at + 1 : stop], 8)
    while end > at + 1 and lines[end - 1].strip().startswith("#") and _indent(lines[end - 1]) <= 8:
        end -= 1  # a comment of the next key (components:) stays with it
    current = lines[at + 1 : end]
    edits.append((at + 1, end, _paths_lines(routes, _auth_lines(current), _operations(current))))
    for start, stop, new in sorted(edits, reverse=True):
        lines[start:stop] = new
    result = "\n".join(lines)
    _check_template(result, routes)
    return result


def _check_template(text: str, routes: tuple[DeclaredRoute, ...]) -> None:
    """What was written parses, and its HttpApi events are exactly the declared routes, once each."""
    from cfnlint.decode.cfn_yaml import loads

    try:
        template = loads(text)
    except Exception as exc:
        raise RouteGenError(f"the generated template.yaml does not parse: {exc}") from exc
    found: list[tuple[str, str]] = []
    for resource in template.get("Resources", {}).values():
        for event in (resource.get("Properties", {}) or {}).get("Events", {}).values():
            if event.get("Type") == "HttpApi":
                handler = resource["Properties"]["Handler"].split(".")[0]
                found.append((f"{event['Properties']['Method']} {event['Properties']['Path']}", handler))
    expected = sorted((r.route_key, r.function) for r in routes)
    if sorted(found) != expected:
        raise RouteGenError(
            f"template.yaml's HttpApi events differ from the declarations: {set(found) ^ set(expected)}"
        )


# ---- events/ --------------------------------------------------------------------------------------------------
def _sample_value(param: str) -> str:
    return f"{param.removesuffix('_id').replace('_', '-')}-1"


def http_event(route: DeclaredRoute) -> dict[str, Any]:
    """A new API Gateway v2 (payload 2.0) sample event of `route`, as the ones under events/ are written."""
    params = {p: _sample_value(p) for p in _PARAM.findall(route.path)}
    raw_path = _PARAM.sub(lambda m: params[m.group(1)], route.path)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.route_key,
        "rawPath": raw_path,
        "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "api.example.com"},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api1",
            "authorizer": {"jwt": {"claims": {"sub": "tenant-a"}, "scopes": []}},
            "domainName": "api.example.com",
            "domainPrefix": "api",
            "http": {
                "method": route.method,
                "path": raw_path,
                "protocol": "HTTP/1.1",
                "sourceIp": "192.0.2.1",
                "userAgent": "curl/8",
            },
            "requestId": "req-1",
            "routeKey": route.route_key,
            "stage": "$default",
            "time": "01/Jan/2025:00:00:00 +0000",
            "timeEpoch": 1735689600000,
        },
    }
    if params:
        event["pathParameters"] = params
    if route.body is not None:
        event["body"] = json.dumps(route.body)
    event["isBase64Encoded"] = False
    return event


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_events(events_dir: Path, decl: Declared) -> dict[Path, str | None]:
    """The sample-event files to write (text) or delete (None)."""
    existing: dict[Path, Any] = {}
    for path in sorted(events_dir.glob("*.json")):
        try:
            existing[path] = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise RouteGenError(f"{path.relative_to(ROOT)} is not JSON: {exc}") from exc
    changes: dict[Path, str | None] = {}
    declared_keys = {r.route_key for r in decl.routes}
    by_key: dict[str, list[Path]] = {}
    for path, event in existing.items():
        if isinstance(event, dict) and "routeKey" in event and "version" in event:
            by_key.setdefault(event["routeKey"], []).append(path)
    for key, paths in by_key.items():
        if key not in declared_keys:
            changes.update(dict.fromkeys(paths))  # a sample of a route that is gone
    for route in decl.routes:
        if route.route_key in by_key:
            continue
        prefixes = decl.directs.get(route.function, ((route.function,), None, ()))[0]
        name = f"{prefixes[0]}_{route.name.strip('_') or route.event_id.lower()}_http.json"
        changes[events_dir / name] = _dump(http_event(route))
    for path, event in existing.items():  # a direct event of an action that is gone (its function's, unambiguously)
        action = event.get("action") if isinstance(event, dict) and "routeKey" not in event else None
        owners = [d for d in decl.directs.values() if path.name.startswith(tuple(f"{x}_" for x in d[0]))]
        if isinstance(action, str) and len(owners) == 1 and action not in owners[0][2]:
            changes[path] = None
    for prefixes, default, actions in decl.directs.values():
        named = [
            e
            for p, e in existing.items()
            if p.name.startswith(tuple(f"{x}_" for x in prefixes)) and "routeKey" not in e
        ]
        for action in actions:
            if not any(isinstance(e, dict) and e.get("action", default) == action for e in named):
                changes[events_dir / f"{prefixes[0]}_{action}_direct.json"] = _dump(
                    {"tenant": "tenant-a", "action": action}
                )
    return changes


# ---- the smoke's table -------------------------------------------------------------------------------------
def _specificity(route_key: str) -> tuple[Any, ...]:
    method, path = route_key.split(" ", 1)
    return (tuple((s.startswith("{"), s) for s in path.strip("/").split("/")), method)


def render_smoke_table(routes: tuple[DeclaredRoute, ...]) -> str:
    keys = sorted((r.route_key for r in routes), key=_specificity)
    lines = [
        '"""Every route of the HTTP API, for the smoke (stdlib-only, so it cannot read the handlers\' declarations).',
        "",
        "Written by `make routes` (offprompt_local.routegen) from the functions' route declarations; do not edit.",
        'Literal segments sort before parameters, so the first route a path matches is API Gateway\'s."""',
        "",
        "ROUTES: tuple[str, ...] = (",
        *(f'    "{key}",' for key in keys),
        ")",
        "",
    ]
    return "\n".join(lines)


# ---- docs/mcp.md's tool table ---------------------------------------------------------------------------------
MCP_DOC = ROOT / "docs" / "mcp.md"
MCP_BEGIN = "<!-- BEGIN make routes: the MCP tools"
MCP_END = "<!-- END make routes -->"


def _argument(name: str, schema: dict[str, Any], required: bool) -> str:
    if required:
        return f"`{name}`"
    if schema.get("default") is not None:
        return f"`{name}={json.dumps(schema['default'])}`"
    return f"`{name}?`"


def mcp_table() -> list[str]:
    """The MCP tools (functions/mcp_server/tools.py `specs()`) as a Markdown table."""
    from mcp_server.tools import specs

    rows = ["| tool | arguments | does | route it mirrors | use case |", "| --- | --- | --- | --- | --- |"]
    for name, spec in specs().items():
        schema = spec.arguments.model_json_schema()
        required = set(schema.get("required", []))
        arguments = ", ".join(_argument(n, s, n in required) for n, s in schema["properties"].items())
        kind = " (read-only)" if spec.read_only else ""
        rows.append(f"| `{name}` | {arguments} | {spec.title}{kind} | `{spec.route}` | `{spec.use_case}` |")
    return rows


def render_mcp_doc(text: str) -> str:
    lines = text.split("\n")
    begin = next((i for i, line in enumerate(lines) if line.startswith(MCP_BEGIN)), None)
    end = next((i for i, line in enumerate(lines) if begin is not None and i > begin and line == MCP_END), None)
    if begin is None or end is None:
        raise RouteGenError(f"docs/mcp.md has no `{MCP_BEGIN} ... -->` and `{MCP_END}` lines around its tool table")
    return "\n".join([*lines[: begin + 1], *mcp_table(), *lines[end:]])


# ---- all of it ---------------------------------------------------------------------------------------------
def plan(root: Path = ROOT) -> dict[Path, str | None]:
    """Every file `make routes` writes (text) or deletes (None), whether or not it differs from the disk."""
    decl = declared(root / "functions")
    handlers = [p.parent.name for p in (root / "functions").glob("*/handler.py")]
    template = root / "template.yaml"
    out: dict[Path, str | None] = {
        template: render_template(template.read_text(encoding="utf-8"), decl.routes, handlers),
        root / SMOKE_TABLE.relative_to(ROOT): render_smoke_table(decl.routes),
    }
    out.update(render_events(root / "events", decl))
    mcp_doc = root / MCP_DOC.relative_to(ROOT)
    out[mcp_doc] = render_mcp_doc(mcp_doc.read_text(encoding="utf-8"))
    from . import docs

    out[docs.DOCUMENT] = docs.render(docs.generate())
    return out


def stale(changes: dict[Path, str | None]) -> list[Path]:
    """The files whose content on disk is not what `make routes` writes."""
    found = []
    for path, text in changes.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            found.append(path)
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        changes = plan()
    except RouteGenError as exc:
        print(f"make routes: {exc}", file=sys.stderr)
        return 2
    outdated = stale(changes)
    if args == ["--check"]:
        for path in outdated:
            print(f"{path.relative_to(ROOT)} is out of date: run make routes", file=sys.stderr)
        return 1 if outdated else 0
    for path in outdated:
        text = changes[path]
        if text is None:
            path.unlink()
            print(f"deleted {path.relative_to(ROOT)}")
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    if not outdated:
        print("make routes: everything is current")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
