"""The smoke tool's own rules (tools/offprompt_smoke), without an API: its route table is the API's, its docstring
lists its checks, it does nothing at import time, it never prints a key's secret, its arguments are checked."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import offprompt_smoke
from offprompt_smoke.__main__ import main
from offprompt_smoke.catalog import CHECKS
from offprompt_smoke.runner import (
    NEEDS,
    NEEDS_KEY,
    NOT_SELECTED,
    QUICK,
    SKIP_REASONS,
    Options,
    Result,
    key_id,
    row,
    selected,
    skip_reason,
)
from offprompt_smoke.smoke_client import ROUTES, route_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_route_table_is_the_apis() -> None:
    document = json.loads((ROOT / "docs" / "openapi.json").read_text())
    declared = {f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item}
    assert set(ROUTES) == declared and len(ROUTES) == len(declared)


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("POST", "/threads/a%20b/runs", "POST /threads/{thread_id}/runs"),
        ("GET", "/threads/t/runs?limit=2", "GET /threads/{thread_id}/runs"),
        ("GET", "/memories/m/namespaces/n/artifacts", "GET /memories/{memory_name}/namespaces/{namespace}/artifacts"),
        ("GET", "/memories/m/namespaces/n", "GET /memories/{memory_name}/namespaces/{namespace}"),
        ("GET", "/api/threads/x/messages", "GET /api/threads/{thread_id}/messages"),
        ("PATCH", "/threads/t", None),
        ("GET", "/threads", "GET /threads"),
        ("GET", "/console/app.js", "GET /console/{asset}"),
        ("POST", "/threads", None),
        ("GET", "/threads//runs", None),
    ],
)
def test_route_of(method: str, path: str, route: str | None) -> None:
    assert route_of(method, path) == route


def test_the_docstring_lists_every_check_in_order() -> None:
    doc = offprompt_smoke.__doc__ or ""
    listed = re.findall(r"^    ([a-z0-9.-]+[a-z0-9])  +\S", doc, flags=re.MULTILINE)
    assert listed == [check.name for check in CHECKS]
    assert len({check.name for check in CHECKS}) == len(CHECKS)


def test_every_need_has_a_documented_reason() -> None:
    assert {need for check in CHECKS for need in check.needs} <= set(NEEDS)
    assert {reason for _, reason in NEEDS.values()} <= set(SKIP_REASONS)
    doc = offprompt_smoke.__doc__ or ""
    for flag in ("--quick", "--with-export", "--erase-tenant", "--search-wait", "--only", "KEY"):
        assert flag in doc, flag
    for guide in ("docs/smoke.md", "docs/deploy.md"):
        text = (ROOT / guide).read_text()
        assert "make smoke API=" in text and "--erase-tenant" in text, guide


def test_skips_follow_the_options() -> None:
    usage = next(check for check in CHECKS if check.name == "hosted.usage")
    big = next(check for check in CHECKS if check.name == "task-memory.big-blob")
    cleanup = next(check for check in CHECKS if check.name == "cleanup")
    header = Options("http://x")
    keyed = Options("http://x", key="op_0123456789abcdef_secret", quick=True, only=("errors",))
    assert skip_reason(usage, header, reached=True) == NEEDS_KEY
    assert skip_reason(big, header, reached=True) is None
    assert skip_reason(big, Options("http://x", quick=True), reached=True) == QUICK
    assert skip_reason(usage, keyed, reached=True) == NOT_SELECTED
    assert skip_reason(cleanup, keyed, reached=True) is None  # always runs
    assert selected("errors.404", ["errors"]) and not selected("errorsx.1", ["errors"])


def test_a_keys_secret_is_never_shown() -> None:
    key = "op_0123456789abcdef_Ab_cd-EF" + "x" * 36
    assert key_id(key) == "op_0123456789abcdef"
    assert "Ab_cd" not in row(Result("reach", "held", 1, "ok")) + key_id(key)


def test_importing_the_tool_does_no_work() -> None:
    code = (
        "import sys, offprompt_smoke, offprompt_smoke.__main__, offprompt_smoke.catalog; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('griptape', 'offprompt', 'boto3', 'requests')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["not-a-url"], ["http://127.0.0.1:1", "--only", "no-such-check"]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
    assert "--only names no check: no-such-check" in capsys.readouterr().err


def test_list_names_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [c.name for c in CHECKS]
