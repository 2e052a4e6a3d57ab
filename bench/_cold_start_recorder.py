"""Handler wrapper for bench_cold_start.py: records every AWS call the wrapped handler makes.

`BENCH_TARGET_HANDLER` names the real handler (`module.attribute`); the calls (service, operation, params) go to
`BENCH_CALLS_FILE` as JSON after each invocation. Used once per function, outside the timed runs, so the bare-boto3
reference can make exactly the same calls.
"""

import base64
import importlib
import json
import os

import botocore.client

CALLS: list = []
_original = botocore.client.BaseClient._make_api_call


def _encode(value):
    if isinstance(value, bytes):
        return {"__b64__": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if hasattr(value, "read"):
        return _encode(value.read())
    return str(value)


def _recording(self, operation_name, api_params):
    CALLS.append([self.meta.service_model.service_name, operation_name, _encode(api_params)])
    return _original(self, operation_name, api_params)


botocore.client.BaseClient._make_api_call = _recording
_module, _, _attribute = os.environ["BENCH_TARGET_HANDLER"].rpartition(".")
_target = getattr(importlib.import_module(_module), _attribute)


def lambda_handler(event, context):
    try:
        return _target(event, context)
    finally:
        with open(os.environ["BENCH_CALLS_FILE"], "w") as f:
            json.dump(CALLS, f)
