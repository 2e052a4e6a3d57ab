"""`make build` as the README gives it: the pinned SAM CLI (requirements/sam.lock, .venv-sam) validates the template
(`sam validate`: SAM's own checks; `sam validate --lint`: cfn-lint) and builds it (`sam build --config-env dev`,
samconfig.toml's settings), offline and without AWS credentials, into a temporary build directory; then the build is
checked against what the Lambda-runtime tier (tests/runtime/lambda_runtime.py) runs.

What "the same" means here. `sam build` makes the layers for python3.12/arm64 (the layer builder, through
layers/offprompt/Makefile); the runtime tier builds their third-party trees for this machine (`runtime_deps()`, the
same builder functions, the same lock) and runs the offprompt package and the functions from the source tree. So:
- every function's built directory holds exactly the files of the `CodeUri` the template names (functions/),
  byte for byte (`__pycache__` ignored), and has the handler and the layers (Globals' then its own) the runtime tier
  gives that function;
- each built layer's `python/` tree holds the same files as the runtime tier's tree of that layer, byte for byte,
  `.pyc` files included (one python3.12, unchecked-hash, names recorded under /opt/python), except what is
  architecture-specific: native extension modules (ELF; an extension's file name carries its platform tag, which is
  normalized before comparing, and the built one must be AArch64) and, of a distribution whose wheel is
  platform-specific, the `.dist-info` files that name or hash the platform's files (RECORD, WHEEL, sboms/). So the
  same distributions at the same versions from the same lock, split the same way between the two layers;
- beyond that, the core layer holds only the offprompt package, byte-identical to layers/offprompt/offprompt
  (symlinks resolved; the generated BPE ranks included) with 3.12 bytecode for every module, and o200k_base's BPE
  file (the runtime tier has no copy of that file; its hash is checked against tiktoken's pin).
The layer builder reuses its previous output when none of its inputs changed (offprompt_build.layer.inputs_key), as
`make build` does; these checks compare contents, so a stale reuse fails them.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sam_support import load_template

from offprompt.adapters.tokenizer import O200K_BASE
from offprompt_build.layer import LAYERS, PYC_TAG

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SAM_PIN = re.search(r"^aws-sam-cli==(\S+)$", (ROOT / "requirements" / "sam.in").read_text(), re.MULTILINE)
#: The extension-module file name's platform part: `cpython-312-x86_64-linux-gnu.so`, `...-aarch64-linux-gnu.so`.
EXTENSION_PLATFORM = re.compile(r"(\.cpython-312)-[A-Za-z0-9_]+-linux-gnu(\.so)$")
#: The .dist-info files of a platform-specific wheel that differ between platforms (file names, hashes, tags).
PLATFORM_DIST_INFO = re.compile(r"^[^/]+\.dist-info/(RECORD|WHEEL|sboms/.*)$")
ELF_AARCH64 = 0xB7
O200K_FILE = f"{O200K_BASE.bpe_package}/{O200K_BASE.bpe_resource}"


def _runtime_tier() -> ModuleType:
    """tests/runtime/lambda_runtime.py, the module the runtime tier's fixtures use (loaded from its file)."""
    if "lambda_runtime" in sys.modules:
        return sys.modules["lambda_runtime"]
    spec = importlib.util.spec_from_file_location("lambda_runtime", ROOT / "tests" / "runtime" / "lambda_runtime.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["lambda_runtime"] = module  # as the runtime tier's own import would (dataclasses look it up)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class SamBuild:
    build_dir: Path
    output: str
    seconds: float

    @property
    def template(self) -> dict[str, Any]:
        return load_template(self.build_dir / "template.yaml")


def _environment() -> dict[str, str]:
    """This environment without AWS credentials or profiles (the build must need none) and without the make that
    may be running this test (its MAKEFLAGS would hand the inner make a jobserver it cannot reach)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("AWS_") and name not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS", "ENV"}
    }
    env["AWS_CONFIG_FILE"] = env["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    return env


@pytest.fixture(scope="module")
def sam_build(tmp_path_factory: pytest.TempPathFactory) -> SamBuild:
    build_dir = tmp_path_factory.mktemp("sam") / "build"
    started = time.monotonic()
    done = subprocess.run(
        ["make", "build", f"SAM_BUILD_DIR={build_dir}"],
        cwd=ROOT,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    print(f"\nmake build: {seconds:.0f} s")
    assert done.returncode == 0, output[-6000:]
    return SamBuild(build_dir, output, seconds)


@pytest.fixture(scope="module")
def runtime_tier() -> ModuleType:
    return _runtime_tier()


def _files(directory: Path) -> dict[str, Path]:
    return {
        path.relative_to(directory).as_posix(): path
        for path in directory.rglob("*")
        if path.is_file() and "__pycache__" not in path.relative_to(directory).parts
    }


def _all_files(directory: Path) -> dict[str, Path]:
    return {path.relative_to(directory).as_posix(): path for path in directory.rglob("*") if path.is_file()}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _platform_specific_distributions(tree: Path) -> set[str]:
    """The `.dist-info` directory names of the distributions whose wheel is tagged for a platform."""
    found = set()
    for dist_info in tree.glob("*.dist-info"):
        tags = re.findall(r"^Tag: (\S+)$", (dist_info / "WHEEL").read_text(), re.MULTILINE)
        assert tags, dist_info
        if not all(tag.endswith("-any") for tag in tags):
            found.add(dist_info.name)
    return found


def _elf_machine(path: Path) -> int | None:
    head = path.read_bytes()[:20]
    return int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else None


def _normalized(relative: str) -> str:
    return EXTENSION_PLATFORM.sub(r"\1-<platform>-linux-gnu\2", relative)


def compare_layer_trees(built: Path, runtime: Path) -> tuple[set[str], list[str]]:
    """(files only the built tree has, problems): the comparison the module docstring describes."""
    built_files = {_normalized(k): v for k, v in _all_files(built).items()}
    runtime_files = {_normalized(k): v for k, v in _all_files(runtime).items()}
    problems = [f"only in the runtime tier's tree: {name}" for name in sorted(runtime_files.keys() - built_files)]
    platform_specific = _platform_specific_distributions(built)
    if platform_specific != _platform_specific_distributions(runtime):
        problems.append(f"platform-specific wheels differ: {platform_specific} vs {runtime}")
    for name, path in sorted(built_files.items()):
        machine = _elf_machine(path)
        if machine is not None and machine != ELF_AARCH64:
            problems.append(f"{name} is an ELF for machine {machine:#x}, not AArch64")
    for name in sorted(built_files.keys() & runtime_files.keys()):
        ours, theirs = built_files[name], runtime_files[name]
        if ours.read_bytes() == theirs.read_bytes():
            continue
        if _elf_machine(ours) is not None and _elf_machine(theirs) is not None:
            continue  # the same extension module, for each machine
        dist_info = PLATFORM_DIST_INFO.match(name)
        if dist_info and name.split("/", 1)[0] in platform_specific:
            continue
        problems.append(f"differs: {name}")
    return built_files.keys() - runtime_files.keys(), problems


# ------------------------------------------------------------------------------------------------ tests


def test_make_build_validates_with_sam_and_cfn_lint_and_builds_with_the_pinned_sam_cli(sam_build: SamBuild) -> None:
    assert SAM_PIN, "requirements/sam.in pins aws-sam-cli"
    version = subprocess.run([str(ROOT / ".venv-sam" / "bin" / "sam"), "--version"], capture_output=True, text=True)
    assert version.stdout.strip() == f"SAM CLI, version {SAM_PIN.group(1)}", version.stdout + version.stderr
    output = sam_build.output
    # in this order: SAM's validation, cfn-lint through sam, the build; each with samconfig.toml's dev settings
    validate = output.index(".venv-sam/bin/sam validate --config-env dev\n")
    lint = output.index(".venv-sam/bin/sam validate --config-env dev --lint\n")
    build = output.index(f".venv-sam/bin/sam build --config-env dev --build-dir {sam_build.build_dir}")
    assert validate < lint < build
    assert "template.yaml is a valid SAM Template. This is according to basic SAM Validation" in output
    assert re.search(r"template\.yaml is a valid SAM Template\n", output)  # the --lint run's verdict
    assert "Build Succeeded" in output
    for logical_id in LAYERS:
        assert f"{logical_id}: Running CustomMakeBuilder:MakeBuild" in output
    assert "offprompt repository not found" not in output  # samconfig's build_in_source was applied


def test_every_function_is_built_from_exactly_the_files_its_code_uri_names(sam_build: SamBuild) -> None:
    source = load_template()
    code_uri = source["Globals"]["Function"]["CodeUri"]
    functions = {k: r for k, r in source["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert len(functions) >= 12
    built = sam_build.template["Resources"]
    for logical_id, resource in functions.items():
        uri = resource["Properties"].get("CodeUri", code_uri)
        expected = {name: _sha256(path) for name, path in _files(ROOT / uri).items()}
        assert "api_common/entry.py" in expected and "add_run/handler.py" in expected
        assert built[logical_id]["Properties"]["CodeUri"] == logical_id
        got = {name: _sha256(path) for name, path in _files(sam_build.build_dir / logical_id).items()}
        assert got == expected, (logical_id, sorted(got.keys() ^ expected.keys()))


def test_every_function_gets_the_handler_and_layers_the_runtime_tier_runs_it_with(
    sam_build: SamBuild, runtime_tier: ModuleType
) -> None:
    ran = runtime_tier.template_functions()  # what the runtime tier starts: from template.yaml
    built = runtime_tier.template_functions(sam_build.template)  # the same reading of the built template
    assert built.keys() == ran.keys()
    for logical_id, function in built.items():
        assert (function.handler, function.layers) == (ran[logical_id].handler, ran[logical_id].layers), logical_id
        assert set(function.layers) <= set(LAYERS)
    resources = sam_build.template["Resources"]
    for logical_id in LAYERS:
        assert resources[logical_id]["Properties"]["ContentUri"] == logical_id
        assert (sam_build.build_dir / logical_id / "python").is_dir()
        assert [p.name for p in (sam_build.build_dir / logical_id).iterdir()] == ["python"]


@pytest.mark.parametrize("logical_id", sorted(LAYERS))
def test_each_built_layer_is_the_tree_the_runtime_tier_ran(
    sam_build: SamBuild, runtime_tier: ModuleType, logical_id: str
) -> None:
    built = sam_build.build_dir / logical_id / "python"
    runtime = runtime_tier.layer_trees(runtime_tier.runtime_deps(), (logical_id,))[0]
    only_built, problems = compare_layer_trees(built, runtime)
    assert problems == []
    if logical_id == "OffpromptLayer":
        assert {name.split("/", 1)[0] for name in only_built} == {"offprompt", O200K_BASE.bpe_package}
        assert {name for name in only_built if not name.startswith("offprompt/")} == {O200K_FILE}
        decompressed = gzip.decompress((built / O200K_FILE).read_bytes())
        assert hashlib.sha256(decompressed).hexdigest() == O200K_BASE.bpe_sha256
    else:
        assert only_built == set()
    assert list(built.rglob("*.so"))  # the extension modules (all AArch64: compare_layer_trees)


def test_the_core_layer_holds_the_offprompt_package_the_runtime_tier_imports(
    sam_build: SamBuild, runtime_tier: ModuleType
) -> None:
    package = sam_build.build_dir / "OffpromptLayer" / "python" / "offprompt"
    source = runtime_tier.LAYER_PACKAGE_DIR / "offprompt"  # on the runtime tier's sys.path, after the layer trees
    expected = {name: _sha256(path) for name, path in _files(source).items() if not name.endswith(".pyc")}
    assert "adapters/data/cl100k_base.ranks" in expected and "adapters/opensearch_index.json" in expected
    got = {name: _sha256(path) for name, path in _files(package).items()}
    assert got == expected, sorted(got.keys() ^ expected.keys())
    for name in expected:
        if name.endswith(".py"):
            module = package / name
            assert (module.parent / "__pycache__" / f"{module.stem}.{PYC_TAG}.pyc").is_file(), name


def test_the_comparison_catches_a_changed_pure_file_and_a_wrong_architecture(tmp_path: Path) -> None:
    runtime, built = tmp_path / "runtime", tmp_path / "built"
    for tree, machine, tag in ((runtime, 0x3E, "x86_64"), (built, ELF_AARCH64, "aarch64")):
        (tree / "pkg").mkdir(parents=True)
        (tree / "pkg" / "a.py").write_text("x = 1\n")
        (tree / "pkg" / f"_ext.cpython-312-{tag}-linux-gnu.so").write_bytes(
            b"\x7fELF" + bytes(14) + machine.to_bytes(2, "little")
        )
        (tree / "pkg-1.0.dist-info").mkdir()
        (tree / "pkg-1.0.dist-info" / "WHEEL").write_text(f"Tag: cp312-cp312-manylinux_2_17_{tag}\n")
        (tree / "pkg-1.0.dist-info" / "METADATA").write_text("Name: pkg\nVersion: 1.0\n")
    assert compare_layer_trees(built, runtime) == (set(), [])
    (built / "pkg" / "a.py").write_text("x = 2\n")
    (built / "pkg-1.0.dist-info" / "METADATA").write_text("Name: pkg\nVersion: 1.1\n")
    (built / "pkg" / "_ext.cpython-312-aarch64-linux-gnu.so").write_bytes(b"\x7fELF" + bytes(14) + b"\x3e\x00")
    (built / "extra.py").write_text("")
    only_built, problems = compare_layer_trees(built, runtime)
    assert only_built == {"extra.py"}
    assert problems == [
        "pkg/_ext.cpython-312-<platform>-linux-gnu.so is an ELF for machine 0x3e, not AArch64",
        "differs: pkg-1.0.dist-info/METADATA",
        "differs: pkg/a.py",
    ]
