"""The Lambda-runtime tier's harness: the layer's runtime dependencies alone, template.yaml's functions and
environment resolved as CloudFormation would, and a clean interpreter per function (lambda_driver.py).

- `runtime_deps()` builds the layers' third-party trees for this machine exactly as `make layer` builds them for
  arm64 (offprompt_build.layer: requirements/runtime.lock hash-checked and split into the core layer and the text
  add-on, unused AWS models removed, bytecode compiled by a python3.12 with unchecked-hash) into
  `build/runtime-deps/<hash>/<part>` (cached by the hash of the lock and of the build code), so the functions run
  with what their layers ship and nothing the dev environment adds.
- `template_functions()` reads every `AWS::Serverless::Function` (Globals merged) from template.yaml.
- `lambda_environment()` is what Lambda gives the function: the runtime's own variables (name, task root,
  region, memory, execution env, a sampled X-Ray trace header as `Tracing: Active` does) plus the template's
  Globals and per-function variables with Ref / GetAtt / Sub / If / Join resolved for the local resources.
- `LambdaProcess` runs one function in `python3.12 -S -I` (Lambda's runtime version; the same interpreter the
  layer's bytecode is compiled with) with `sys.path` = stdlib + the trees of the layers the template gives that
  function (Globals' Layers, then its own) + the offprompt package + the function code. A function that imports a
  package only a layer it does not have ships fails here, as it would deployed. On close it asks the
  driver which top-level modules the function imported (`IMPORTED`), for the layer-contents test.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sam_support import condition_values, load_template

from offprompt_build import layer as layer_build

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("lambda_driver.py")
DEPS_ROOT = ROOT / "build" / "runtime-deps"
#: The memory events' bus as the runtime tier names it (template.yaml: MemoryEventBus). Here, not in the conftest:
#: `from conftest import` finds whichever conftest pytest imported first when several directories run together.
EVENT_BUS = "offprompt-runtime-memory-events"
FUNCTIONS_DIR = ROOT / "functions"
LAYER_PACKAGE_DIR = ROOT / "layers" / "offprompt"
REGION = "us-east-1"
ACCOUNT = "123456789012"
STACK = "offprompt-runtime"
TABLE = "offprompt-runtime-table"
BUCKET = "offprompt-runtime-bucket"


# ------------------------------------------------------------------------------------------ dependencies


def runtime_dependencies() -> list[str]:
    """The pins of requirements/runtime.lock (`name==version`, sorted): what the layer ships, nothing else."""
    return lock_pins(ROOT / layer_build.RUNTIME_LOCK)


def lock_pins(lock: Path) -> list[str]:
    """`name==version` of every requirement of a lock file that applies to Lambda (never-true markers left out)."""
    pins = []
    for line in lock.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(;[^\\]*)?", line)
        if match and "'never'" not in (match.group(3) or "") and '"never"' not in (match.group(3) or ""):
            pins.append(f"{match.group(1).lower()}=={match.group(2)}")
    return sorted(pins)


def lambda_python() -> str:
    """The python3.12 functions run under here (the one `make layer` compiles the layer's bytecode with)."""
    return layer_build.python312()


def deps_key() -> str:
    build_code = Path(layer_build.__file__).read_bytes()
    lock = (ROOT / layer_build.RUNTIME_LOCK).read_bytes()
    tag = f"{lambda_python()}-{platform.system()}-{platform.machine()}"
    return hashlib.sha256(lock + build_code + tag.encode()).hexdigest()[:16]


def runtime_deps() -> Path:
    """The directory holding exactly the layers' third-party trees for this machine (built once per lock): one
    subdirectory per layer part (`core`, `text`; offprompt_build.layer.LAYERS)."""
    target = DEPS_ROOT / deps_key()
    if (target / ".complete").exists():
        return target
    DEPS_ROOT.mkdir(parents=True, exist_ok=True)
    with (DEPS_ROOT / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time; the others find it done
        if (target / ".complete").exists():
            return target
        staging = DEPS_ROOT / f".{target.name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            for spec in layer_build.LAYERS.values():
                layer_build.install_runtime_tree(staging / spec.part, ROOT, platform=None, part=spec.part)
                if spec is layer_build.TEXT:
                    layer_build.bundle_task_memory_files(staging / spec.part, DEPS_ROOT / ".downloads", platform=None)
                layer_build.compile_bytecode(staging / spec.part, lambda_python())
        except subprocess.CalledProcessError as exc:
            raise RuntimeError(f"building the runtime dependencies failed: {exc}") from exc
        (staging / ".complete").write_text(json.dumps(runtime_dependencies()) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
        for stale in DEPS_ROOT.iterdir():  # earlier locks: ~40 MB each
            if stale.is_dir() and stale != target:
                shutil.rmtree(stale, ignore_errors=True)
    return target


def layer_trees(deps: Path, layers: tuple[str, ...]) -> list[Path]:
    """The third-party trees of these template layers (logical ids), in the function's order."""
    return [deps / layer_build.LAYERS[logical_id].part for logical_id in layers]


def shipped_top_level(deps: Path) -> set[str]:
    """The importable top-level names of a layer tree: packages, modules and extension modules."""
    names = set()
    for entry in deps.iterdir():
        if (
            entry.name.startswith(".")
            or entry.name.endswith((".dist-info", ".data"))
            or entry.name in {"bin", "__pycache__"}
        ):
            continue
        if entry.is_dir():
            names.add(entry.name)
        elif entry.suffix in {".py", ".so", ".pyc"}:
            names.add(entry.name.split(".")[0])
    return names


#: logical id -> the top-level modules that function imported (from anywhere), filled as processes close.
IMPORTED: dict[str, set[str]] = {}


# ------------------------------------------------------------------------------------------ the template


@dataclass(frozen=True)
class LambdaFunction:
    logical_id: str
    handler: str
    code_uri: str
    timeout_s: int
    memory_size: int
    tracing: str | None
    variables: dict[str, Any]  # Globals merged with the function's own, unresolved
    #: Logical ids of its layers: Globals' Layers, then its own (SAM appends a function's list to the global one).
    layers: tuple[str, ...] = ("OffpromptLayer",)


def template_functions(template: dict[str, Any] | None = None) -> dict[str, LambdaFunction]:
    template = template or load_template()
    glob = template.get("Globals", {}).get("Function", {})
    functions = {}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        props = {**glob, **resource.get("Properties", {})}
        variables = {
            **glob.get("Environment", {}).get("Variables", {}),
            **resource.get("Properties", {}).get("Environment", {}).get("Variables", {}),
        }
        functions[logical_id] = LambdaFunction(
            logical_id=logical_id,
            handler=props["Handler"],
            code_uri=props["CodeUri"],
            timeout_s=int(props.get("Timeout", 3)),
            memory_size=int(props.get("MemorySize", 128)),
            tracing=props.get("Tracing"),
            variables=variables,
            layers=tuple(
                _layer_id(ref) for ref in [*glob.get("Layers", []), *resource.get("Properties", {}).get("Layers", [])]
            ),
        )
    return functions


def _layer_id(reference: Any) -> str:
    if not (isinstance(reference, dict) and set(reference) == {"Ref"}):
        raise ValueError(f"a function layer must be a !Ref to a layer of the template, not {reference!r}")
    return str(reference["Ref"])


class Resolver:
    """CloudFormation's intrinsic functions, for the values a template's environment variables can take."""

    def __init__(self, parameters: Mapping[str, str], physical: Mapping[str, str], attributes: Mapping[str, str]):
        template = load_template()
        defaults = {k: str(v.get("Default", "")) for k, v in template.get("Parameters", {}).items()}
        self.refs: dict[str, str] = {
            **defaults,
            **parameters,
            **physical,
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT,
            "AWS::StackName": STACK,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
        }
        self.attributes = dict(attributes)
        self.conditions = condition_values(template, {**defaults, **parameters})

    def __call__(self, node: Any) -> Any:
        if isinstance(node, dict) and len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Ref":
                return self.refs[arg]
            if key == "Fn::GetAtt":
                name = arg if isinstance(arg, str) else ".".join(arg)
                return self.attributes[name]
            if key == "Fn::If":
                condition, when_true, when_false = arg
                return self(when_true if self.conditions[condition] else when_false)
            if key == "Fn::Join":
                separator, items = arg
                return separator.join(str(self(i)) for i in items)
            if key == "Fn::Sub":
                text, variables = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])
                values = {k: str(self(v)) for k, v in variables.items()}

                def substitute(match: re.Match[str]) -> str:
                    name = match.group(1)
                    if name in values:
                        return values[name]
                    if "." in name:
                        return str(self.attributes[name])
                    return str(self.refs[name])

                return re.sub(r"\$\{([^}!]+)\}", substitute, text)
            if key.startswith("Fn::"):
                raise NotImplementedError(f"{key} is not resolved by the runtime tier")
        if isinstance(node, (dict, list)):
            raise TypeError(f"an environment variable cannot be {node!r}")
        return str(node)


def lambda_environment(
    function: LambdaFunction, resolve: Resolver, *, endpoint_url: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment Lambda gives `function`, plus only what points it at the local endpoints."""
    name = f"{STACK}-{function.logical_id}"
    env = {
        # What the python3.12 runtime sets (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html).
        "AWS_LAMBDA_FUNCTION_NAME": name,
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(function.memory_size),
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}",
        "AWS_LAMBDA_LOG_STREAM_NAME": "2026/11/30/[$LATEST]0123456789abcdef",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "LAMBDA_TASK_ROOT": str(ROOT / function.code_uri.strip("/")),
        "LAMBDA_RUNTIME_DIR": "/var/runtime",
        "_HANDLER": function.handler,
        "TZ": ":UTC",
        "LANG": "en_US.UTF-8",
        "PATH": "/usr/local/bin:/usr/bin/:/bin",
        # The role's temporary credentials (fake: the endpoints are local).
        "AWS_ACCESS_KEY_ID": "ASIARUNTIMETIER",
        "AWS_SECRET_ACCESS_KEY": "runtime-tier-secret",
        "AWS_SESSION_TOKEN": "runtime-tier-token",
        # Lambda has no ~/.aws; this machine might: keep its profiles, regions and endpoints out.
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        # The one deviation: AWS calls go to the moto server.
        "AWS_ENDPOINT_URL": endpoint_url,
    }
    if function.tracing == "Active":
        # Lambda runs the X-Ray daemon and hands every invocation a sampled trace header.
        env["AWS_XRAY_DAEMON_ADDRESS"] = "169.254.79.129:2000"
        env["AWS_XRAY_CONTEXT_MISSING"] = "LOG_ERROR"
        env["_AWS_XRAY_DAEMON_ADDRESS"] = "169.254.79.129"
        env["_AWS_XRAY_DAEMON_PORT"] = "2000"
        env["_X_AMZN_TRACE_ID"] = "Root=1-674b9e00-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1"
    env.update({k: resolve(v) for k, v in function.variables.items()})
    env.update(extra or {})
    return env


# ------------------------------------------------------------------------------------------ the process


class LambdaError(AssertionError):
    pass


class LambdaProcess:
    """One execution environment: a fresh interpreter that imports the handler once and serves invocations."""

    def __init__(
        self, function: LambdaFunction, env: Mapping[str, str], deps: Path, extra_sys_path: Sequence[str] = ()
    ) -> None:
        self.function = function
        config = {
            "handler": function.handler,
            "function_name": env["AWS_LAMBDA_FUNCTION_NAME"],
            "memory_size": function.memory_size,
            "timeout_s": function.timeout_s,
            "sys_path": [
                *map(str, layer_trees(deps, function.layers)),
                str(LAYER_PACKAGE_DIR),
                env["LAMBDA_TASK_ROOT"],
                *extra_sys_path,
            ],
        }
        # What the function writes (its logs, EMF metrics): CloudWatch's share, kept for failure messages.
        self._stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by close()
        started = time.monotonic()
        self.process = subprocess.Popen(
            [lambda_python(), "-S", "-I", str(DRIVER), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=dict(env),
            cwd=env["LAMBDA_TASK_ROOT"],
            text=True,
        )
        self.init = self._read()
        self.init_s = time.monotonic() - started  # interpreter start + handler import (Lambda's init phase)
        if "init_error" in self.init:
            raise LambdaError(f"{function.logical_id} failed to import: {self.init['init_error']['traceback']}")
        self.sys_path: list[str] = self.init["sys_path"]

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise LambdaError(f"{self.function.logical_id} exited ({self.process.wait()}): {self.logs()}")
        result: dict[str, Any] = json.loads(line)
        return result

    def logs(self) -> str:
        """The tail of what the function wrote to stdout/stderr."""
        self._stderr.flush()
        self._stderr.seek(0)
        text = self._stderr.read()
        self._stderr.seek(0, os.SEEK_END)
        return text[-4000:]

    def invoke_raw(self, event: Any, remaining_ms: int | None = None) -> dict[str, Any]:
        """{"result"} or {"error"}, and `elapsed_ms`."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"event": event, "remaining_ms": remaining_ms}) + "\n")
        self.process.stdin.flush()
        return self._read()

    def invoke(self, event: Any, remaining_ms: int | None = None) -> Any:
        """The handler's return value; an exception it raised fails the test with its traceback."""
        outcome = self.invoke_raw(event, remaining_ms)
        if "error" in outcome:
            raise LambdaError(f"{self.function.logical_id} raised: {outcome['error']['traceback']}\n{self.logs()}")
        return outcome["result"]

    def http(self, event: Any, remaining_ms: int | None = None) -> tuple[int, Any, dict[str, str]]:
        """(status, parsed JSON body or None, headers) of an API Gateway v2 invocation."""
        response = self.invoke(event, remaining_ms)
        body = response.get("body")
        return response["statusCode"], (json.loads(body) if body else None), response.get("headers") or {}

    def imported_modules(self) -> set[str]:
        """The top-level names in the function's `sys.modules` (everything it imported so far)."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"report": "modules"}) + "\n")
        self.process.stdin.flush()
        return set(self._read()["modules"])

    def snapstart(self, phase: str) -> int:
        """Run the SnapStart hooks of `phase` ("before_snapshot", "after_restore") the function registered; how many."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"snapstart": phase}) + "\n")
        self.process.stdin.flush()
        outcome = self._read()
        if "error" in outcome:
            raise LambdaError(f"{self.function.logical_id} {phase}: {outcome['error']['traceback']}\n{self.logs()}")
        return int(outcome["hooks"])

    def close(self) -> None:
        if self.process.poll() is None and self.process.stdin is not None:
            # A process that died has already failed its test.
            with contextlib.suppress(OSError, LambdaError, ValueError, KeyError):
                IMPORTED.setdefault(self.function.logical_id, set()).update(self.imported_modules())
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._stderr.close()


#: The fixtures' `start(logical_id, extra_env=None, handler=None)`: a function in a fresh interpreter.
Start = Callable[..., LambdaProcess]
