"""The import contracts `make lint` runs (import-linter, `[tool.importlinter]` in pyproject.toml) hold for the
tree, and each one fails when a deliberately wrong import is added to a copy of the tree.

The copy holds the source roots (functions/, the layer's offprompt/, infra/local/, tools/) and pyproject.toml; it is
put first on PYTHONPATH, so lint-imports reads the copy, never the working tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
SOURCES = (
    "functions",
    "layers/offprompt/offprompt",
    "infra/local/offprompt_local",
    "tools/offprompt_admin",
    "tools/offprompt_build",
    "tools/offprompt_smoke",
)


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(str(tree / p) for p in ("functions", "layers/offprompt", "infra/local", "tools")),
    }
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for source in SOURCES:
        shutil.copytree(ROOT / source, tmp_path / source, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 9 kept, 0 broken." in result.stdout


def test_the_copy_keeps_every_contract(tree: Path) -> None:
    """The copy alone passes, so a failure below is the added import's, not the copy's."""
    result = lint_imports(tree)
    assert result.returncode == 0, result.stdout + result.stderr


# (file to append to, the wrong import, the contract that must break)
WRONG_IMPORTS = {
    "sdk outside adapters": (
        "layers/offprompt/offprompt/memory/run.py",
        "import boto3",
        "Only offprompt.adapters imports boto3, botocore, opensearchpy and tiktoken",
    ),
    "tiktoken in a service": (
        "layers/offprompt/offprompt/services/conversation/cursor.py",
        "import tiktoken",
        "Only offprompt.adapters imports boto3, botocore, opensearchpy and tiktoken",
    ),
    "service imports an adapter": (
        "layers/offprompt/offprompt/services/task_memory/service.py",
        "import offprompt.adapters.s3",
        "Services take ports: no service imports an adapter or the composition root",
    ),
    "memory imports a service": (
        "layers/offprompt/offprompt/memory/meta.py",
        "import offprompt.services.conversation.cursor",
        "Layers: functions -> composition -> services -> memory -> prompt -> artifacts",
    ),
    "operator CLI imports the local stack": (
        "tools/offprompt_admin/files.py",
        "import offprompt_local.datadir",
        "The operator CLI and the layer builder (tools/) never import the local stack (infra/local)",
    ),
    "smoke check imports the server library": (
        "tools/offprompt_smoke/conversation.py",
        "import offprompt.errors",
        "The smoke check (tools/offprompt_smoke) runs on the client and Griptape",
    ),
    "smoke check imports an SDK": (
        "tools/offprompt_smoke/task_memory.py",
        "import boto3",
        "The smoke check (tools/offprompt_smoke) runs on the client and Griptape",
    ),
    "artifacts import the prompt": (
        "layers/offprompt/offprompt/artifacts/url.py",
        "import offprompt.prompt.render",
        "Layers: functions -> composition -> services -> memory -> prompt -> artifacts",
    ),
    "library imports api_common": (
        "layers/offprompt/offprompt/limits.py",
        "import api_common.schemas",
        "The library (layers/offprompt) imports nothing from functions/ or infra/",
    ),
    "library imports the local stack": (
        "layers/offprompt/offprompt/identifiers.py",
        "import offprompt_local.routes",
        "The library (layers/offprompt) imports nothing from functions/ or infra/",
    ),
    "a port imports an adapter": (
        "layers/offprompt/offprompt/ports/threads.py",
        "import offprompt.adapters.layout",
        "Ports (offprompt.ports, a module per domain) name what services need",
    ),
    "a port imports an SDK": (
        "layers/offprompt/offprompt/ports/blobs.py",
        "import botocore.exceptions",
        "Ports (offprompt.ports, a module per domain) name what services need",
    ),
    "the checkpoint view reads DynamoDB": (
        "layers/offprompt/offprompt/adapters/checkpoint_view.py",
        "import offprompt.adapters.clients",
        "The checkpoint view's merge rules (adapters/checkpoint_view.py) are pure",
    ),
    "function imports another function": (
        "functions/add_run/handler.py",
        "import threads.handler",
        "No function package imports another (api_common is the shared glue)",
    ),
}


@pytest.mark.parametrize("case", sorted(WRONG_IMPORTS))
def test_a_wrong_import_breaks_its_contract(tree: Path, case: str) -> None:
    path, statement, contract = WRONG_IMPORTS[case]
    with (tree / path).open("a", encoding="utf-8") as module:
        module.write(f"\n{statement}  # deliberately wrong\n")
    result = lint_imports(tree)
    assert result.returncode != 0, result.stdout
    broken = [line for line in result.stdout.splitlines() if line.endswith("BROKEN")]
    assert broken, result.stdout
    # The contract's name may wrap onto a second line in lint-imports' summary: compare its first words.
    assert contract[:40] in result.stdout.split("Broken contracts")[-1], result.stdout


def test_every_function_package_is_under_the_contracts() -> None:
    """A function package the contracts do not name is checked by none of them (the records function was missing
    from all five lists when it landed)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    packages = {p.name for p in (ROOT / "functions").iterdir() if (p / "__init__.py").exists()} - {"api_common"}
    contracts = {c["id"]: c for c in config["contracts"]}
    assert packages <= set(config["root_packages"]), packages - set(config["root_packages"])
    assert packages <= set(contracts["functions-independent"]["modules"])
    assert packages <= set(contracts["layers"]["layers"][0].replace(" ", "").split("|"))
    assert packages <= set(contracts["library-stands-alone"]["forbidden_modules"])
    assert packages <= set(contracts["smoke-uses-only-the-client"]["forbidden_modules"])
