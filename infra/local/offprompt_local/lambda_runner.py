"""Run the real Lambda code inside moto, in-process, without Docker.

moto's Docker-free Lambda backend (`mock_aws(config={"lambda": {"use_docker": False}})`) only echoes the
payload. `installed()` replaces its `invoke` with a runner that does what the Lambda runtime does:

- unzips the function's code and its layers' zips (cached by sha256), puts the code directory and each
  layer's `python/` directory first on `sys.path`;
- sets the function's environment variables (plus the `AWS_LAMBDA_*` ones) for the duration of the call;
- imports `<module>` of `Handler: <module>.<attribute>` and calls it with the JSON event and a context;
- returns the JSON result, or, when the handler raises, `x-amz-function-error: Unhandled` with Lambda's
  `{"errorMessage", "errorType", "stackTrace"}` body (so a Step Functions Catch sees the exception's class).

Everything the handler does with boto3 hits the same moto backends, including Lambda-to-Lambda invokes
(the runner is re-entrant) and Step Functions' interpreter calling Lambda tasks.

Modules already imported by the test process (e.g. the `offprompt` package from the source tree) are reused,
which is the same code the zips contain; `before_invoke` hooks let a test reset per-process caches such as
settings, because a warm Lambda container serves one function only while this process serves all of them.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib
import io
import json
import os
import sys
import tempfile
import threading
import traceback
import uuid
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_LOCK = threading.RLock()
_UNZIPPED: dict[str, Path] = {}
_CACHE_DIR: Path | None = None


@dataclass
class LambdaContext:
    """The attributes of the runtime's context object that handlers and Powertools read."""

    function_name: str
    invoked_function_arn: str
    memory_limit_in_mb: int
    timeout_seconds: int
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = ""
    log_stream_name: str = "local"

    def __post_init__(self) -> None:
        self.log_group_name = self.log_group_name or f"/aws/lambda/{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return self.timeout_seconds * 1000


@dataclass(frozen=True)
class Invocation:
    """What one call ran: for tests that assert on the calls the runner served."""

    function_name: str
    event: Any
    result: Any
    error: str | None


Hook = Callable[[Any], None]


@dataclass
class Runner:
    before_invoke: list[Hook] = field(default_factory=list)
    invocations: list[Invocation] = field(default_factory=list)

    def invoke(self, backend: Any, function_name: str, qualifier: str | None, body: Any, headers: Any,
               response_headers: dict[str, str]) -> bytes:  # fmt: skip
        fn = backend.get_function(function_name, qualifier)
        directories = [_unzip(_zip_bytes(fn.code_bytes))]
        for layer in fn.layers or []:
            version = backend.layers_versions_by_arn(layer["Arn"])
            if version is None:
                raise RuntimeError(f"layer {layer['Arn']} of {fn.function_name} does not exist in moto")
            directories.append(_unzip(_zip_bytes(version.code_bytes)) / "python")
        raw = body.decode() if isinstance(body, bytes) else (body or "")
        event = json.loads(raw) if raw.strip() else {}
        module_name, _, attribute = str(fn.handler).rpartition(".")
        context = LambdaContext(
            function_name=fn.function_name,
            invoked_function_arn=fn.function_arn,
            memory_limit_in_mb=int(fn.memory_size),
            timeout_seconds=int(fn.timeout),
        )
        environment = {
            **{str(k): str(v) for k, v in (fn.environment_vars or {}).items()},
            "AWS_LAMBDA_FUNCTION_NAME": fn.function_name,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(fn.memory_size),
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        }
        with _LOCK, _sys_path(directories), _environment(environment):
            for hook in self.before_invoke:
                hook(fn)
            try:
                handler = getattr(importlib.import_module(module_name), attribute)
                result = handler(event, context)
            except Exception as exc:  # the runtime reports every exception as an Unhandled function error
                response_headers["x-amz-function-error"] = "Unhandled"
                error = {
                    "errorMessage": str(exc),
                    "errorType": type(exc).__name__,
                    "stackTrace": traceback.format_exception(exc)[-10:],
                }
                self.invocations.append(Invocation(fn.function_name, event, error, type(exc).__name__))
                return json.dumps(error).encode()
        self.invocations.append(Invocation(fn.function_name, event, result, None))
        return json.dumps(result).encode()


@contextlib.contextmanager
def installed(runner: Runner | None = None) -> Iterator[Runner]:
    """Patch moto's Docker-free Lambda backend to run the real code while the context is open.

    Use inside (or around) `mock_aws(config={"lambda": {"use_docker": False}})`.
    """
    from moto.awslambda_simple.models import LambdaSimpleBackend

    active = runner or Runner()
    original = LambdaSimpleBackend.invoke

    def invoke(self: Any, function_name: str, qualifier: str | None, body: Any, headers: Any,
               response_headers: Any) -> bytes:  # fmt: skip
        return active.invoke(self, function_name, qualifier, body, headers, response_headers)

    LambdaSimpleBackend.invoke = invoke  # type: ignore[method-assign]
    try:
        yield active
    finally:
        LambdaSimpleBackend.invoke = original  # type: ignore[method-assign]


def zip_directory(directory: Path, prefix: str = "") -> bytes:
    """Zip a source tree the way `sam build` packages it (symlinks followed, bytecode left out)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                archive.write(path, prefix + path.relative_to(directory).as_posix())
    return buffer.getvalue()


def _zip_bytes(code: bytes | str) -> bytes:
    data = code.encode() if isinstance(code, str) else code
    if data[:2] == b"PK":
        return data
    return base64.b64decode(data)


def _unzip(data: bytes) -> Path:
    global _CACHE_DIR
    digest = hashlib.sha256(data).hexdigest()
    with _LOCK:
        if digest in _UNZIPPED:
            return _UNZIPPED[digest]
        if _CACHE_DIR is None:
            _CACHE_DIR = Path(tempfile.mkdtemp(prefix="offprompt-lambda-"))
        target = _CACHE_DIR / digest
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            archive.extractall(target)
        _UNZIPPED[digest] = target
        return target


@contextlib.contextmanager
def _sys_path(directories: list[Path]) -> Iterator[None]:
    saved = list(sys.path)
    sys.path[:0] = [str(d) for d in directories]
    try:
        yield
    finally:
        sys.path[:] = saved


@contextlib.contextmanager
def _environment(variables: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
