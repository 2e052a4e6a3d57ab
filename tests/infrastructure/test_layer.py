"""`python -m offprompt_local.layer` builds a complete python3.12/arm64 layer within Lambda's size limits.

The built tree holds aarch64 binaries, so it cannot be imported on this machine; instead the checks prove
that every wheel was chosen for cp312 + manylinux aarch64, and that offprompt's own sources compile.
"""

from __future__ import annotations

import hashlib
import os
import py_compile
import re
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from offprompt.adapters.tokenizer import CL100K_BASE, O200K_BASE
from offprompt_local.layer import (
    BPE_OPENAI,
    MAX_GLIBC_MINOR,
    MAX_UNZIPPED,
    MAX_ZIPPED,
    ZIP_NAME,
    copy_library,
    verify_o200k_file,
    write_zip,
)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "layers" / "offprompt" / "offprompt"


@dataclass(frozen=True)
class Built:
    out: Path
    stdout: str

    @property
    def python(self) -> Path:
        return self.out / "layer" / "python"

    @property
    def zip_path(self) -> Path:
        return self.out / ZIP_NAME


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("layer-build")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "offprompt")}
    result = subprocess.run(
        [sys.executable, "-m", "offprompt_local.layer", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return Built(out, result.stdout)


def _dist_infos(python: Path) -> dict[str, Path]:
    """Canonical project name -> its .dist-info directory."""
    found: dict[str, Path] = {}
    for dist_info in python.glob("*.dist-info"):
        metadata = (dist_info / "METADATA").read_text(encoding="utf-8")
        name = re.search(r"^Name: (.+)$", metadata, re.MULTILINE)
        assert name, dist_info
        found[canonicalize_name(name.group(1).strip())] = dist_info
    return found


def _tag_runs_on_lambda_py312_arm64(tag: str) -> bool:
    interpreter, abi, platform = tag.split("-")
    stable_abi = re.fullmatch(r"cp3(\d+)", interpreter)
    python_ok = interpreter in {"py3", "py312", "cp312"} or (
        abi == "abi3" and stable_abi is not None and int(stable_abi.group(1)) <= 12
    )
    manylinux = re.fullmatch(r"manylinux(?:2014|_2_(\d+))_aarch64", platform)
    platform_ok = platform == "any" or (manylinux is not None and int(manylinux.group(1) or 17) <= MAX_GLIBC_MINOR)
    return python_ok and abi in {"none", "abi3", "cp312"} and platform_ok


def _library_files() -> dict[str, Path]:
    return {
        path.relative_to(LIBRARY).as_posix(): path
        for path in LIBRARY.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_cli_reports_both_sizes_and_the_margin(built: Built) -> None:
    assert re.search(r"zipped +[\d.]+ MiB +limit 50 MiB", built.stdout)
    assert re.search(r"unzipped +[\d.]+ MiB +limit 200 MiB \(ours: Lambda allows 250 MiB", built.stdout)
    assert "layer ready" in built.stdout


def test_every_file_of_the_offprompt_package_is_copied_as_a_regular_file(built: Built) -> None:
    source = _library_files()
    assert "adapters/tokenizer.py" in source
    copied = {
        path.relative_to(built.python / "offprompt").as_posix(): path
        for path in (built.python / "offprompt").rglob("*")
        if path.is_file()
    }
    assert copied.keys() == source.keys()
    for relative, path in copied.items():
        assert not path.is_symlink(), relative
        assert path.read_bytes() == source[relative].read_bytes(), relative  # read_bytes follows links


def test_copy_resolves_symlinks_and_skips_bytecode(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "adapters" / "__pycache__").mkdir(parents=True)
    (source / "adapters" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"stale")
    (tmp_path / "shared.json").write_text('{"k": 1}')
    (source / "adapters" / "schema.json").symlink_to(tmp_path / "shared.json")
    copy_library(source, tmp_path / "dst")
    copied = tmp_path / "dst" / "adapters" / "schema.json"
    assert not copied.is_symlink()
    assert copied.read_text() == '{"k": 1}'
    assert not (tmp_path / "dst" / "adapters" / "__pycache__").exists()


def test_each_runtime_dependency_is_installed_at_an_allowed_version(built: Built) -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        requirements = [Requirement(line) for line in tomllib.load(f)["project"]["dependencies"]]
    installed = _dist_infos(built.python)
    for requirement in requirements:
        dist_info = installed.get(canonicalize_name(requirement.name))
        assert dist_info is not None, f"{requirement.name} missing from the layer"
        version = re.search(r"^Version: (.+)$", (dist_info / "METADATA").read_text(), re.MULTILINE)
        assert version and requirement.specifier.contains(version.group(1).strip(), prereleases=True)


def test_every_wheel_targets_cp312_on_manylinux_aarch64(built: Built) -> None:
    dist_infos = _dist_infos(built.python)
    assert len(dist_infos) >= 6
    for name, dist_info in dist_infos.items():
        tags = re.findall(r"^Tag: (\S+)$", (dist_info / "WHEEL").read_text(), re.MULTILINE)
        assert any(_tag_runs_on_lambda_py312_arm64(tag) for tag in tags), (name, tags)
        assert not [tag for tag in tags if re.search(r"x86_64|amd64|win|macosx", tag)], (name, tags)
    assert any(
        "aarch64" in tag
        for dist_info in dist_infos.values()
        for tag in re.findall(r"^Tag: (\S+)$", (dist_info / "WHEEL").read_text(), re.MULTILINE)
    )  # the binary wheels (pydantic-core, tiktoken, ...) really were picked for arm64
    assert not list(built.python.rglob("*x86_64*.so"))


def test_tag_check_rejects_wrong_targets() -> None:
    assert _tag_runs_on_lambda_py312_arm64("cp312-cp312-manylinux_2_28_aarch64")
    assert _tag_runs_on_lambda_py312_arm64("cp310-abi3-manylinux2014_aarch64")
    assert _tag_runs_on_lambda_py312_arm64("py3-none-any")
    for wrong in [
        "cp312-cp312-manylinux_2_17_x86_64",
        "cp311-cp311-manylinux_2_17_aarch64",
        "cp313-abi3-manylinux_2_17_aarch64",
        "cp312-cp312-manylinux_2_39_aarch64",  # newer glibc than Amazon Linux 2023's 2.34
        "cp312-cp312-musllinux_1_2_aarch64",
    ]:
        assert not _tag_runs_on_lambda_py312_arm64(wrong), wrong


def test_bpe_file_is_present_and_official(built: Built) -> None:
    bpe = built.python / CL100K_BASE.bpe_package / CL100K_BASE.bpe_resource
    assert hashlib.sha256(bpe.read_bytes()).hexdigest() == CL100K_BASE.bpe_sha256


def test_o200k_file_is_present_and_official(built: Built) -> None:
    import gzip

    bpe = built.python / O200K_BASE.bpe_package / O200K_BASE.bpe_resource
    assert hashlib.sha256(gzip.decompress(bpe.read_bytes())).hexdigest() == O200K_BASE.bpe_sha256
    assert not list(built.python.glob("bpe_openai/*.so")), "only the BPE file, not bpe-openai's extension"


def test_o200k_pin_matches_the_dev_dependency() -> None:
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    assert BPE_OPENAI in dev


def test_a_wrong_o200k_file_fails_the_build(tmp_path: Path) -> None:
    import gzip

    target = tmp_path / O200K_BASE.bpe_package / O200K_BASE.bpe_resource
    with pytest.raises(SystemExit, match="missing"):
        verify_o200k_file(tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(gzip.compress(b"AQ== 0\n"))
    with pytest.raises(SystemExit, match="not tiktoken's"):
        verify_o200k_file(tmp_path)


def test_sizes_are_within_limits(built: Built) -> None:
    with zipfile.ZipFile(built.zip_path) as archive:
        unzipped = sum(info.file_size for info in archive.infolist())
    assert built.zip_path.stat().st_size <= MAX_ZIPPED == 50 * 1024 * 1024
    assert unzipped <= MAX_UNZIPPED == 200 * 1024 * 1024


def test_zip_is_the_tree_under_python_in_deterministic_order(built: Built, tmp_path: Path) -> None:
    with zipfile.ZipFile(built.zip_path) as archive:
        names = archive.namelist()
        assert archive.testzip() is None
        # Fixed metadata, not the build machine's mtimes and umask: rebuilds give byte-identical zips.
        assert {(info.date_time, info.external_attr) for info in archive.infolist()} == {
            ((1980, 1, 1, 0, 0, 0), 0o100644 << 16)
        }
    layer_dir = built.python.parent
    tree = sorted(p.relative_to(layer_dir).as_posix() for p in layer_dir.rglob("*") if p.is_file())
    assert names == tree  # sorted, files only, nothing added or lost
    assert all(name.startswith("python/") for name in names)
    assert not [name for name in names if "__pycache__" in name or name.startswith("python/bin/")]
    again = write_zip(layer_dir, tmp_path / "again.zip")
    assert again == built.zip_path.stat().st_size
    assert (tmp_path / "again.zip").read_bytes() == built.zip_path.read_bytes()


def test_offprompt_sources_compile_from_the_built_tree(built: Built, tmp_path: Path) -> None:
    sources = sorted((built.python / "offprompt").rglob("*.py"))
    assert sources
    for index, source in enumerate(sources):
        py_compile.compile(str(source), cfile=str(tmp_path / f"{index}.pyc"), doraise=True)
