"""The docs tier (issue 33, docs/adr/0060-docs-that-run.md): every shell and Python block of README.md and docs/*.md
runs here against one local stack, or carries a marker saying why it cannot run here.

The blocks and their markers are read by pytest-codeblocks (`pytest_codeblocks.extract_from_file`); a marker is an
HTML comment on the line before the block, invisible on GitHub:

    <!--pytest.mark.skip(reason="needs AWS credentials: sam deploy")-->

The only marker a block may carry is a skip with a reason. Everything else runs, in the order of its file:

- a shell block under `bash -e` in the repository root, with `curl` failing on an HTTP error status (so a curl that
  answers 4xx/5xx fails the block) and `OFFPROMPT_DATA_DIR` naming the stack's data directory (`--local`);
- a Python block in a fresh interpreter, with `OFFPROMPT_API_URL` naming the stack.

In both, `http://127.0.0.1:3000` (the README's `make dev`) becomes the stack's URL: under test port 3000 is refused.
Where the text states the output it is checked: in a shell block a comment line `# → ...` (continued by the indented
comment lines below it) states fragments of the block's output; in a Python block `print(...)  # → ...` states
the line that print writes. `...` stands for anything; whitespace is not compared.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e.stack_process import StackProcess  # tests/ is on sys.path (the root conftest's directory)
from pytest_codeblocks import extract_from_file
from pytest_codeblocks.main import CodeBlock

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

SHELL = {"bash", "sh", "shell"}
PYTHON = {"python", "py"}
LOCAL_URL = "http://127.0.0.1:3000"
#: The one marker a block may carry: a skip that says why.
SKIP = re.compile(r"""^pytest\.mark\.skip\(reason=(["'])(?P<reason>.{12,}?)\1\)$""")
BLOCK_TIMEOUT_S = 180


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks() -> list[tuple[str, CodeBlock]]:
    found = []
    for path in documents():
        for block in extract_from_file(path):
            if (block.syntax or "").strip() in SHELL | PYTHON:
                found.append((f"{path.relative_to(ROOT)}:{block.lineno}", block))
    return found


BLOCKS = blocks()


def test_every_marker_is_a_skip_that_says_why() -> None:
    assert len(BLOCKS) > 20
    wrong = [(where, mark) for where, block in BLOCKS for mark in block.marks if not SKIP.match(mark)]
    assert not wrong, f'a block may only carry <!--pytest.mark.skip(reason="why it cannot run here")-->: {wrong}'
    assert not [where for where, block in BLOCKS if block.expected_output is not None or block.importorskip]


# ---- stated output ----------------------------------------------------------------------------------------------
def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def stated_pattern(statement: str) -> re.Pattern[str]:
    """A statement's regex: its text without whitespace, `...` matching anything."""
    parts = [re.escape(squeeze(part)) for part in statement.split("...")]
    return re.compile(".*?".join(parts), re.S)


def shell_statements(code: str) -> list[str]:
    """The `# → ...` comment lines of a shell block, each joined with the comment lines that continue it."""
    statements: list[str] = []
    current: list[str] | None = None
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("# ").startswith("→"):
            current = [stripped.lstrip("# ")[1:]]
            statements.append("")
        elif current is not None and re.match(r"#\s{2,}", stripped):  # an indented comment line continues it
            current.append(stripped.lstrip("#"))
        else:
            current = None
            continue
        statements[-1] = " ".join(current)
    return statements


def python_statements(code: str) -> list[str]:
    """What each `print(...)  # → ...` line states it writes, in order."""
    return [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s*#\s*→\s*(.*)$", code, re.M)]


def check_shell_output(code: str, output: str) -> None:
    rest = squeeze(output)
    for statement in shell_statements(code):
        found = stated_pattern(statement).search(rest)
        assert found, f"the text states {statement!r}; the block wrote (in order, after what matched before):\n{output}"
        rest = rest[found.end() :]


def check_python_output(code: str, output: str) -> None:
    lines = [squeeze(line) for line in output.splitlines()]
    for statement in python_statements(code):
        pattern = stated_pattern(statement)
        while lines and not pattern.fullmatch(lines[0]):
            lines.pop(0)
        assert lines, f"the text states print writes {statement!r}; the block wrote:\n{output}"
        lines.pop(0)


# ---- the stack --------------------------------------------------------------------------------------------------
@dataclass
class Stack:
    url: str
    data_dir: Path
    process: StackProcess


@pytest.fixture(scope="module")
def stack(opensearch_url: str) -> Iterator[Stack]:
    """One local stack for every block (`make dev --fresh` on a free port, its own data directory and index)."""
    data_dir = Path(tempfile.mkdtemp(prefix="offprompt-docs-"))
    index = f"offprompt-docs-{uuid.uuid4().hex[:12]}"
    process = StackProcess(data_dir, "--fresh", opensearch_url=opensearch_url, index=index)
    try:
        yield Stack(process.wait_ready(240), data_dir, process)
    finally:
        process.stop(timeout=60)
        shutil.rmtree(data_dir, ignore_errors=True)
        request = urllib.request.Request(f"{opensearch_url}/{index}", method="DELETE")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(request, timeout=30).close()


def environment(stack: Stack) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OFFPROMPT_", "AWS_ENDPOINT"))}
    env.update(OFFPROMPT_API_URL=stack.url, OFFPROMPT_DATA_DIR=str(stack.data_dir), PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)  # a reader's shell has none: the client and the CLI come from .venv
    return env


#: Prepended to every shell block: a curl that gets an HTTP error fails the block (set -e), with the answer shown.
CURL_FAILS_ON_ERROR = 'curl() { command curl --fail-with-body "$@"; }\n'


def run(argv: list[str], cwd: Path, stack: Stack) -> str:
    """Run a block's interpreter; its stdout, or a failure showing both streams."""
    before = len(stack.process.tracebacks())
    done = subprocess.run(
        argv, cwd=cwd, env=environment(stack), capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S, check=False
    )
    raised = "\n---\n".join(stack.process.tracebacks()[before:])  # a 500 is a function that raised: show where
    shown = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}\n{raised}"
    assert done.returncode == 0, f"exit status {done.returncode}:\n{shown}"
    assert not raised, f"the stack printed tracebacks:\n{raised}"
    return done.stdout


def run_shell(code: str, stack: Stack) -> str:
    return run(["bash", "-e", "-c", CURL_FAILS_ON_ERROR + code.replace(LOCAL_URL, stack.url)], ROOT, stack)


def run_python(code: str, stack: Stack, workdir: Path) -> str:
    script = workdir / "block.py"
    script.write_text(code.replace(LOCAL_URL, stack.url), encoding="utf-8")
    return run([sys.executable, str(script)], workdir, stack)


@pytest.mark.opensearch
@pytest.mark.parametrize("block", [block for _, block in BLOCKS], ids=[where for where, _ in BLOCKS])
def test_the_block_runs_as_written(block: CodeBlock, stack: Stack, tmp_path: Path) -> None:
    for mark in block.marks:
        if found := SKIP.match(mark):
            pytest.skip(found.group("reason"))
    if (block.syntax or "").strip() in SHELL:
        check_shell_output(block.code, run_shell(block.code, stack))
    else:
        check_python_output(block.code, run_python(block.code, stack, tmp_path))
