"""The client distribution as a user installs it: a fresh venv holding only `offprompt-client` (then
`offprompt-client[griptape]`, or `offprompt-client[langgraph]`), scripts run under `python -I` (no cwd, no
PYTHONPATH, no repository on sys.path), against the real local stack (a subprocess on free ports with a throwaway
data directory).

The rest of the suite runs in the dev venv, where the server library is importable, so it cannot see a client
that needs it. Here every client method a user calls runs where `import offprompt` fails: a 6 MB blob loaded
through `BlobDownloads` (raw and decoded), a text namespace past the response limit (303 + presigned GET), the
uploads route, and Griptape Agents on the drivers of `offprompt_client.griptape` with real griptape==1.13.0; a
LangGraph `StateGraph` on `offprompt_client.langgraph.OffpromptStore` writes a memory in one process and answers
from it in another (the other framework doors: tests/e2e/test_framework_sessions.py).

Each venv is built once per module; each check of a script is a test of its own, run in a fresh interpreter
that first checks its own isolation. Installs go through uv (the dev venv's, from requirements/bootstrap.lock)
pinned by requirements/dev.lock and served from uv's cache; a cold cache downloads the griptape extra's packages
from PyPI once.
"""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_local_stack import ROOT, RunningStack, stack  # noqa: F401  (stack: the module's local stack fixture)

pytestmark = pytest.mark.slow

CLIENT = ROOT / "clients" / "python"
SCRIPTS = Path(__file__).with_name("client_venv")
UV = Path(sys.executable).with_name("uv")
TENANT = "standalone-client"
# Nothing from the dev environment may reach the venv's interpreter (python -I ignores PYTHON* anyway), and the
# drivers' defaults must not pick up a developer's API settings: every script passes the stack's URL itself.
DEV_ONLY = (
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "UV_PYTHON", "CONDA_PREFIX",
    "OFFPROMPT_API_URL", "OFFPROMPT_API_KEY", "OFFPROMPT_THREAD_ID",
)  # fmt: skip


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in DEV_ONLY}


def run(label: str, command: list[str | Path], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """The command with the dev environment's variables removed; prints how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout
    )
    print(f"{label}: {time.monotonic() - started:.1f}s")
    return done


def install(python: Path, spec: str, cwd: Path) -> None:
    """`uv pip install spec` into the venv, pinned to the dev lock; the client is always rebuilt from the worktree."""
    done = run(
        f"uv pip install {Path(spec).name}",
        [
            UV, "pip", "install", "--python", python, "-c", ROOT / "requirements" / "dev.lock",
            "--reinstall-package", "offprompt-client", "--refresh-package", "offprompt-client", spec,
        ],
        cwd,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def fresh_venv(tmp_path: Path, *specs: str) -> Path:
    """A new venv (this interpreter's Python) with `specs` installed one after the other; returns its python."""
    home = tmp_path / "venv"
    created = run("uv venv", [UV, "venv", "--quiet", "--python", sys.executable, home], tmp_path, timeout=120)
    assert created.returncode == 0, created.stdout + created.stderr
    python = home / "bin" / "python"
    for spec in specs:
        install(python, spec, tmp_path)
    installed = run(
        "locate the package",
        [python, "-I", "-c", "import offprompt_client; print(offprompt_client.__file__)"],
        tmp_path,
        60,
    )
    package = Path(installed.stdout.strip()).parent
    assert package.is_relative_to(home), installed.stdout + installed.stderr  # not the worktree's source tree
    source = CLIENT / "src" / "offprompt_client"
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in source.glob("*.py")}
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in package.glob("*.py")} == digests
    return python


def checks_of(script: str) -> list[str]:
    """The names of a script's checks (the keys of its CHECKS dict), read without importing it."""
    for node in ast.parse((SCRIPTS / script).read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.AnnAssign)
            and ast.unparse(node.target) == "CHECKS"
            and isinstance(node.value, ast.Dict)
        ):
            return [key.value for key in node.value.keys if isinstance(key, ast.Constant)]
    raise AssertionError(f"{script} defines no CHECKS")


def run_script(python: Path, script: str, check: str, url: str, cwd: Path) -> None:
    done = run(f"python -I {script} {check}", [python, "-I", SCRIPTS / script, check, url, TENANT], cwd, timeout=480)
    print(done.stdout[-2000:])
    assert done.returncode == 0 and done.stdout.rstrip().endswith("ok"), done.stdout[-20000:] + done.stderr[-20000:]


@pytest.fixture(scope="module")
def client_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_venv(tmp_path_factory.mktemp("client-alone"), str(CLIENT))


@pytest.fixture(scope="module")
def griptape_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_venv(tmp_path_factory.mktemp("client-griptape"), str(CLIENT), f"{CLIENT}[griptape]")


@pytest.mark.parametrize("check", checks_of("client_only.py"))
def test_the_client_alone_in_a_fresh_venv(
    stack: RunningStack,  # noqa: F811
    client_venv: Path,
    check: str,
    tmp_path: Path,
) -> None:
    run_script(client_venv, "client_only.py", check, stack.url, tmp_path)


@pytest.mark.parametrize("check", checks_of("with_griptape.py"))
def test_the_client_with_griptape_in_a_fresh_venv(
    stack: RunningStack,  # noqa: F811
    griptape_venv: Path,
    check: str,
    tmp_path: Path,
) -> None:
    run_script(griptape_venv, "with_griptape.py", check, stack.url, tmp_path)


LANGGRAPH_SCRIPT = "with_langgraph.py"


@pytest.fixture(scope="module")
def langgraph_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_venv(tmp_path_factory.mktemp("client-langgraph"), str(CLIENT), f"{CLIENT}[langgraph]")


def test_a_langgraph_graph_keeps_its_memory_across_two_processes(
    stack: RunningStack,  # noqa: F811
    langgraph_venv: Path,
    tmp_path: Path,
) -> None:
    run_script(langgraph_venv, LANGGRAPH_SCRIPT, "turn_one", stack.url, tmp_path)
    run_script(langgraph_venv, LANGGRAPH_SCRIPT, "turn_two", stack.url, tmp_path)  # another interpreter


@pytest.mark.parametrize("check", [c for c in checks_of(LANGGRAPH_SCRIPT) if not c.startswith("turn_")])
def test_the_client_with_langgraph_in_a_fresh_venv(
    stack: RunningStack,  # noqa: F811
    langgraph_venv: Path,
    check: str,
    tmp_path: Path,
) -> None:
    run_script(langgraph_venv, LANGGRAPH_SCRIPT, check, stack.url, tmp_path)


CHECKPOINT_SCRIPT = "with_langgraph_checkpoint.py"


def test_a_langgraph_graph_interrupted_is_resumed_in_another_process_and_replayed(
    stack: RunningStack,  # noqa: F811
    langgraph_venv: Path,
    tmp_path: Path,
) -> None:
    """OffpromptSaver: each step in a fresh interpreter (ADR 0039)."""
    assert checks_of(CHECKPOINT_SCRIPT) == ["interrupted", "resumed", "replayed"]
    for check in checks_of(CHECKPOINT_SCRIPT):
        run_script(langgraph_venv, CHECKPOINT_SCRIPT, check, stack.url, tmp_path)
