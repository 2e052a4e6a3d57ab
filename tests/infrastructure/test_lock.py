"""requirements/*.lock: one resolution, hash-pinned, that pyproject.toml, `make install`, the runtime tier and
`make layer` all agree on (docs/adr/0016-layer-lock-and-contents.md). Offline: reads files only."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from offprompt_build import layer

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(;[^\\]*)?")


def pins(lock: Path, *, with_never: bool = False) -> dict[str, str]:
    found = {}
    for line in lock.read_text().splitlines():
        match = PIN.match(line)
        if match and (with_never or "never" not in (match.group(3) or "")):
            found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def pyproject() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]


def test_every_pin_carries_hashes() -> None:
    for lock in REQUIREMENTS.glob("*.lock"):
        lines = lock.read_text().splitlines()
        for index, line in enumerate(lines):
            if PIN.match(line):
                assert line.rstrip().endswith("\\") and lines[index + 1].strip().startswith("--hash=sha256:"), (
                    lock.name,
                    line,
                )


def test_the_locks_pin_what_pyproject_asks_for() -> None:
    """After a dependency change in pyproject.toml, `make lock` must run: this fails until it has."""
    runtime, dev = pins(REQUIREMENTS / "runtime.lock"), pins(REQUIREMENTS / "dev.lock")
    for text in pyproject()["dependencies"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in runtime, f"{name} is not in runtime.lock: run `make lock`"
        assert requirement.specifier.contains(runtime[name], prereleases=True), (name, runtime[name])
    for text in [*pyproject()["dependencies"], *pyproject()["optional-dependencies"]["dev"]]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in dev, f"{name} is not in dev.lock: run `make lock`"
        assert requirement.specifier.contains(dev[name], prereleases=True), (name, dev[name])


def test_the_layer_ships_the_versions_the_tests_run() -> None:
    runtime, dev = pins(REQUIREMENTS / "runtime.lock"), pins(REQUIREMENTS / "dev.lock")
    assert {name: dev.get(name) for name in runtime} == runtime
    assert pins(REQUIREMENTS / "bootstrap.lock") == {"uv": dev["uv"]}


def test_grpc_protobuf_and_regex_are_left_out_of_the_layer() -> None:
    runtime = pins(REQUIREMENTS / "runtime.lock")
    assert not {"grpcio", "protobuf", "opensearch-protobufs", "regex"} & set(runtime)
    assert not {"grpcio", "protobuf", "opensearch-protobufs"} & set(pins(REQUIREMENTS / "dev.lock"))


def test_make_install_and_make_layer_install_the_locks_with_hashes() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "pip sync -q --python $(PY) --require-hashes requirements/dev.lock" in makefile
    assert "--require-hashes -r requirements/bootstrap.lock" in makefile
    assert layer.RUNTIME_LOCK == "requirements/runtime.lock"
    assert "--require-hashes" in Path(layer.__file__).read_text()


def test_every_aws_service_the_code_uses_keeps_its_model_in_the_layer() -> None:
    used = set()
    for source in [*(ROOT / "layers" / "offprompt" / "offprompt").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]:
        used |= set(re.findall(r"""aws_client\(\s*["']([a-z0-9-]+)["']""", source.read_text()))
    assert used  # the pattern still finds the calls
    assert used <= layer.BOTOCORE_SERVICES, used - layer.BOTOCORE_SERVICES


def test_the_sam_cli_has_its_own_exact_hash_checked_lock() -> None:
    """aws-sam-cli pins boto3 (and more) exactly, against pyproject's ranges: it gets its own lock and .venv-sam."""
    wanted = [line for line in (REQUIREMENTS / "sam.in").read_text().splitlines() if line and line[0] != "#"]
    assert len(wanted) == 1
    requirement = Requirement(wanted[0])
    assert requirement.name == "aws-sam-cli" and str(requirement.specifier).startswith("==")
    sam = pins(REQUIREMENTS / "sam.lock")
    assert requirement.specifier.contains(sam["aws-sam-cli"]), "run `make lock`"
    makefile = (ROOT / "Makefile").read_text()
    assert "pip sync -q --python $(SAM_VENV)/bin/python --require-hashes requirements/sam.lock" in makefile
    assert "pip compile requirements/sam.in $(LOCK_FLAGS) -o requirements/sam.lock" in makefile


def test_checkov_has_its_own_exact_hash_checked_lock() -> None:
    """checkov pins boto3 exactly, against pyproject's ranges: like the SAM CLI, its own lock and .venv-checkov."""
    wanted = [line for line in (REQUIREMENTS / "checkov.in").read_text().splitlines() if line and line[0] != "#"]
    assert [Requirement(x).name for x in wanted] == ["checkov"] and str(Requirement(wanted[0]).specifier) == "==3.3.30"
    assert pins(REQUIREMENTS / "checkov.lock")["checkov"] == "3.3.30", "run `make lock`"
    makefile = (ROOT / "Makefile").read_text()
    assert "pip sync -q --python $(CHECKOV_VENV)/bin/python --require-hashes requirements/checkov.lock" in makefile
    assert "pip compile requirements/checkov.in $(LOCK_FLAGS) -o requirements/checkov.lock" in makefile
