"""Runs one Lambda function the way the python3.12 runtime does, in a clean interpreter.

Started by `lambda_runtime.py` as `python -S -I lambda_driver.py '<config JSON>'`: no site-packages, no
PYTHON* variables, no script directory on `sys.path`. The config names the handler and the only directories
that may be on `sys.path` (the layer's dependencies, the layer's package dir, the function code); this script
uses nothing but the standard library.

Protocol: the driver imports the handler (Lambda's init phase), then reads one JSON object per line from stdin
(`{"event": ..., "remaining_ms": int}`) and writes one JSON line per invocation to its *original* stdout:
`{"result": ...}` or `{"error": {"type", "message", "traceback"}}`, with `elapsed_ms`. A line
`{"report": "modules"}` is answered with `{"modules": [...]}`, the top-level names in `sys.modules`;
`{"snapstart": "before_snapshot" | "after_restore"}` runs the hooks the function registered with
`snapshot_restore_py` (the runtime tier's stand-in, tests/runtime/snapstart_stand_in), where SnapStart would, and is
answered with `{"hooks": n}` (0 when the function never imported the module). The handler's own
output (Powertools logs, EMF metrics), which Lambda sends to CloudWatch, goes to stderr instead.
An import failure is reported as `{"init_error": ...}` and ends the process, as Lambda's Runtime.ImportModuleError.
"""

import importlib
import json
import os
import sys
import time
import traceback
import uuid


class LambdaContext:
    """The attributes and method of the runtime's context object."""

    def __init__(self, config: dict, remaining_ms: int) -> None:
        self.function_name = config["function_name"]
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{self.function_name}"
        self.memory_limit_in_mb = str(config["memory_size"])
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = "2026/11/30/[$LATEST]0123456789abcdef"
        self.identity = None
        self.client_context = None
        self._deadline = time.monotonic() + remaining_ms / 1000.0

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def _error(exc: BaseException) -> dict:
    return {
        "type": type(exc).__name__,
        "message": str(exc),
        "traceback": "".join(traceback.format_exception(exc)),
    }


def main() -> int:
    config = json.loads(sys.argv[1])
    results = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the handler's stdout (logs, EMF) goes where the parent collects diagnostics
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.path[:] = [p for p in sys.path if "site-packages" not in p and "dist-packages" not in p]
    sys.path.extend(config["sys_path"])
    module_name, _, attribute = config["handler"].rpartition(".")
    try:
        handler = getattr(importlib.import_module(module_name), attribute)
    except BaseException as exc:
        results.write(json.dumps({"init_error": _error(exc), "sys_path": sys.path}) + "\n")
        return 1
    results.write(json.dumps({"ready": True, "sys_path": sys.path}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("report") == "modules":  # the harness asks what the function imported
            top_level = sorted({name.partition(".")[0] for name in sys.modules})
            results.write(json.dumps({"modules": top_level}) + "\n")
            continue
        if "snapstart" in request:  # SnapStart's phases: the hooks the function registered, if any
            hooks = sys.modules.get("snapshot_restore_py")
            try:
                ran = hooks._run(request["snapstart"]) if hooks is not None else 0
                results.write(json.dumps({"hooks": ran}) + "\n")
            except Exception as exc:
                results.write(json.dumps({"error": _error(exc)}) + "\n")
            continue
        # Lambda sets a new trace header for every invocation (sampled: Tracing: Active).
        now = int(time.time())
        os.environ["_X_AMZN_TRACE_ID"] = (
            f"Root=1-{now:08x}-{uuid.uuid4().hex[:24]};Parent={uuid.uuid4().hex[:16]};Sampled=1"
        )
        context = LambdaContext(config, int(request.get("remaining_ms") or config["timeout_s"] * 1000))
        started = time.monotonic()
        try:
            outcome = {"result": handler(request["event"], context)}
        except Exception as exc:
            outcome = {"error": _error(exc)}
        outcome["elapsed_ms"] = round((time.monotonic() - started) * 1000, 1)
        results.write(json.dumps(outcome, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
