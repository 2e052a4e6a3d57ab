"""`offprompt-smoke --quick` against the local stack in OpenSearch Serverless mode (as `make dev
OPENSEARCH_MODE=serverless`: the handlers reach the node through the Serverless-faithful layer, which holds new
documents out of search for the collection's refresh interval, here 2 s). Every check holds; the search row polls
until the text is searchable and says how long it took; the layer refused nothing the handlers sent. A module of its
own: one stack per data directory, and test_smoke.py's stays up for its module."""

from __future__ import annotations

import re
import uuid

import pytest
from test_local_stack import running_stack
from test_smoke import assert_held_but, smoke, table

from offprompt_smoke.runner import NEEDS_ERASE, NEEDS_EXPORT, NEEDS_KEY, QUICK

pytestmark = pytest.mark.slow
INTERVAL = "2s"


def test_smoke_in_opensearch_serverless_mode(opensearch_url: str) -> None:
    environment = {"OFFPROMPT_OPENSEARCH_MODE": "serverless", "OFFPROMPT_AOSS_REFRESH_INTERVAL": INTERVAL}
    with running_stack(opensearch_url, **environment) as serverless:
        done = smoke(serverless.url, "--quick", "--tenant", f"smoke-aoss-{uuid.uuid4().hex[:8]}")
        assert done.returncode == 0, done.stdout + done.stderr
        refused = [line for line in serverless.lines if "OpenSearch Serverless refuses" in line]
        assert not refused, refused  # the faithful layer refused nothing the handlers sent
    rows = table(done.stdout)
    skipped = {"hosted.usage": NEEDS_KEY, "hosted.keys": NEEDS_KEY, "tenant.export": NEEDS_EXPORT}
    skipped |= {"task-memory.big-blob": QUICK, "task-memory.big-text": QUICK, "tenant.erase": NEEDS_ERASE}
    assert_held_but(rows, skipped, done.stdout)
    assert re.fullmatch(
        r"BM25: the marked note found after \d+\.\d s \(bounded wait 90 s\), position \d+",
        rows["task-memory.search"][1],
    ), rows["task-memory.search"]
