"""MCP endpoint fixtures: a deployment of its own on the local substrate's moto server and the real OpenSearch node
(tests/hosted_support.py), so the handler builds its services from the environment as it does in Lambda."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hosted_support import Deployment


@pytest.fixture
def stack(
    moto_server: str, opensearch_url: str, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Deployment]:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "mcp")
    yield d
    d.close()
