"""Tenant export and erase against the whole local stack (`python -m offprompt_local.stack`), over HTTP as a tenant
does it (`POST /export`, `DELETE /tenant`), then the operator's `python -m offprompt_admin import` loading the
export back (issue 14, item 5). The import into a *fresh* deployment is tests/integration/tenancy."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from test_local_stack import ROOT, RunningStack, stack  # noqa: F401  (the same stack subprocess, one per module)

pytestmark = pytest.mark.slow
ALICE, BOB = "e2e-alice", "e2e-bob"


def call(stack: RunningStack, method: str, path: str, tenant: str, body: Any = None) -> tuple[int, bytes]:  # noqa: F811
    data = json.dumps(body).encode() if body is not None else None
    headers = {"X-Offprompt-Tenant": tenant, "Content-Type": "application/json"}
    request = urllib.request.Request(stack.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def workload(stack: RunningStack, tenant: str) -> None:  # noqa: F811
    for i in range(3):
        run = {
            "input": {"type": "TextArtifact", "value": f"Q{i} {tenant}"},
            "output": {"type": "TextArtifact", "value": f"A{i} {tenant} 🦊"},
            "id": f"run-{i}",
        }
        assert call(stack, "POST", "/threads/t1/runs", tenant, run)[0] == 201
    for name, artifact in (
        ("text-ns", {"type": "TextArtifact", "value": f"a long page of {tenant} " * 200}),
        ("blob-ns", {"type": "BlobArtifact", "value": "AAECAwQ="}),
    ):
        body = {"tool": "WebTool", "activity": "fetch", "artifact": {**artifact, "name": name, "id": name * 2}}
        status, out = call(stack, "POST", "/memories/TaskMemory/outputs", tenant, body)
        assert status == 200, out


def reads(stack: RunningStack, tenant: str) -> dict[str, Any]:  # noqa: F811
    out: dict[str, Any] = {}
    for path in ("/threads/t1", "/threads/t1/runs?limit=100", "/memories/TaskMemory/meta"):
        out[path] = call(stack, "GET", path, tenant)
    for ns in ("text-ns", "blob-ns"):
        status, body = call(stack, "GET", f"/memories/TaskMemory/namespaces/{ns}/artifacts", tenant)
        loaded = json.loads(body)
        # The ListArtifact around the artifacts is minted per load (a fresh id and name); what it holds is compared.
        out[ns] = (status, {k: v for k, v in loaded.items() if k not in ("id", "name")})
    return out


def test_a_tenant_exports_erases_and_the_operator_imports_it_back(
    stack: RunningStack,  # noqa: F811
    opensearch_url: str,
    tmp_path: Path,
) -> None:
    workload(stack, ALICE)
    workload(stack, BOB)
    alice, bob = reads(stack, ALICE), reads(stack, BOB)
    assert alice["/threads/t1"][0] == 200 and alice["text-ns"][1]["value"]

    status, body = call(stack, "POST", "/export", ALICE)
    assert status == 200, body
    exported = json.loads(body)
    with urllib.request.urlopen(exported["manifest_url"], timeout=60) as response:  # the presigned GET
        manifest = json.loads(response.read())
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    for entry in manifest["files"]:
        with urllib.request.urlopen(entry["url"], timeout=60) as response:
            target = tmp_path / entry["name"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(response.read())
    assert manifest["counts"]["dynamodb.run"] == 3 and manifest["counts"]["opensearch"] >= 1

    assert call(stack, "DELETE", "/tenant", ALICE, {})[0] == 400
    assert call(stack, "DELETE", "/tenant", ALICE, {"confirm": BOB})[0] == 400
    status, body = call(stack, "DELETE", "/tenant", ALICE, {"confirm": ALICE})
    assert status == 200, body
    erased = json.loads(body)
    assert erased["verified"] and erased["deleted"]["dynamodb"] > 0 and erased["deleted"]["s3"] > 0
    assert call(stack, "GET", "/threads/t1", ALICE)[0] == 404
    assert json.loads(call(stack, "GET", "/threads/t1/runs", ALICE)[1])["runs"] == []
    assert reads(stack, BOB) == bob  # the other tenant is untouched

    moto = next(m.group(1) for line in stack.lines if (m := re.search(r"moto is up at (http://\S+)", line)))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "functions"), str(ROOT / "layers" / "offprompt")]),
        "AWS_ENDPOINT_URL": moto,
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "OFFPROMPT_TABLE": "offprompt-local",
        "OFFPROMPT_BUCKET": "offprompt-local",
        "OFFPROMPT_OPENSEARCH_URL": opensearch_url,  # the session's node, which the stack uses too
        "OFFPROMPT_OPENSEARCH_INDEX": stack.index,
    }
    done = subprocess.run(
        [sys.executable, "-m", "offprompt_admin", "import", ALICE, str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert reads(stack, ALICE) == alice  # byte for byte: runs, thread, meta, the loaded artifacts
