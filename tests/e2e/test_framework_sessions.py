"""The framework doors as users install them (docs/adr/0033): fresh venvs holding only
`offprompt-client[openai-agents]`, or only `offprompt-client[strands]`, scripts run under `python -I` (no server
library, no repository on sys.path), against the real local stack. The OpenAI Agents SDK's `Runner` with a scripted
model keeps its session in offprompt; a Strands `Agent` with a scripted model keeps its messages, state and
redactions there. In both, the second turn runs in another process and answers from what the first stored.

Venvs and the stack are built once per module (helpers of tests/e2e/test_client_standalone.py); each check of a
script is a fresh interpreter.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_client_standalone import CLIENT, checks_of, fresh_venv, run_script
from test_local_stack import RunningStack, stack  # noqa: F401  (stack: the module's local stack fixture)

pytestmark = pytest.mark.slow

AGENTS_SCRIPT = "with_openai_agents.py"


@pytest.fixture(scope="module")
def agents_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_venv(tmp_path_factory.mktemp("client-openai-agents"), str(CLIENT), f"{CLIENT}[openai-agents]")


def test_an_agents_sdk_session_persists_across_two_processes(
    stack: RunningStack,  # noqa: F811
    agents_venv: Path,
    tmp_path: Path,
) -> None:
    run_script(agents_venv, AGENTS_SCRIPT, "turn_one", stack.url, tmp_path)
    run_script(agents_venv, AGENTS_SCRIPT, "turn_two", stack.url, tmp_path)  # another interpreter


@pytest.mark.parametrize("check", [c for c in checks_of(AGENTS_SCRIPT) if not c.startswith("turn_")])
def test_the_openai_agents_session_in_a_fresh_venv(
    stack: RunningStack,  # noqa: F811
    agents_venv: Path,
    check: str,
    tmp_path: Path,
) -> None:
    run_script(agents_venv, AGENTS_SCRIPT, check, stack.url, tmp_path)


STRANDS_SCRIPT = "with_strands.py"


@pytest.fixture(scope="module")
def strands_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_venv(tmp_path_factory.mktemp("client-strands"), str(CLIENT), f"{CLIENT}[strands]")


def test_a_strands_session_persists_across_two_processes(
    stack: RunningStack,  # noqa: F811
    strands_venv: Path,
    tmp_path: Path,
) -> None:
    run_script(strands_venv, STRANDS_SCRIPT, "turn_one", stack.url, tmp_path)
    run_script(strands_venv, STRANDS_SCRIPT, "turn_two", stack.url, tmp_path)  # another interpreter


@pytest.mark.parametrize("check", [c for c in checks_of(STRANDS_SCRIPT) if not c.startswith("turn_")])
def test_the_strands_session_in_a_fresh_venv(
    stack: RunningStack,  # noqa: F811
    strands_venv: Path,
    check: str,
    tmp_path: Path,
) -> None:
    run_script(strands_venv, STRANDS_SCRIPT, check, stack.url, tmp_path)
