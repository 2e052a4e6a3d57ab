"""The bare-boto3 reference of bench_cold_start.py: `python3.12 -S -I _cold_start_reference.py LAYER CALLS`.

Imports boto3 from the layer as built and makes the recorded calls (one client per service, as the functions
do), then prints one line and waits for stdin to close, like a function process after its first response.
Errors the calls answer (a condition that no longer holds) are ignored: they cost the same round trip.
"""

import base64
import contextlib
import json
import sys


def _decode(value):
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return base64.b64decode(value["__b64__"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def main() -> None:
    sys.path[:0] = [sys.argv[1]]
    calls = json.loads(sys.argv[2])
    import boto3
    import botocore.exceptions
    from botocore import xform_name

    clients = {}
    for service, operation, params in calls:
        if service not in clients:
            clients[service] = boto3.session.Session().client(service)
        with contextlib.suppress(botocore.exceptions.ClientError):
            getattr(clients[service], xform_name(operation))(**_decode(params))
    print(json.dumps({"calls": len(calls)}), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
