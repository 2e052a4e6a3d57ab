"""Importing a handler does no work: no AWS client, no settings read, no BPE load, no OpenSearch client.

Each handler is imported in a fresh interpreter (as Lambda's init phase does) and the process state inspected.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/handler.py"))

PROBE = """
import json, sys
import {module}
from offprompt.adapters import clients
from offprompt.config import get_settings
from api_common.entry import observability
print(json.dumps({{
    "aws_clients": clients.aws_client.cache_info().currsize,
    "settings_read": get_settings.cache_info().currsize,
    "observability_built": observability.cache_info().currsize,
    "tiktoken_imported": "tiktoken" in sys.modules,
    "opensearchpy_imported": "opensearchpy" in sys.modules,
}}))
"""


@pytest.mark.parametrize("handler", HANDLERS)
def test_importing_a_handler_builds_nothing(handler: str) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT / 'layers' / 'offprompt'}",
        # Anything that would be read at import time would find a broken configuration here.
        "OFFPROMPT_OPENSEARCH_AUTH": "not-a-mode",
    }
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=f"{handler}.handler")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    state = json.loads(proc.stdout.strip().splitlines()[-1])
    assert state == {
        "aws_clients": 0,
        "settings_read": 0,
        "observability_built": 0,
        "tiktoken_imported": False,
        "opensearchpy_imported": False,
    }
