"""Fixtures for hosted-mode tests: a deployment of its own on the local substrate's moto server and the real
OpenSearch node (tests/hosted_support.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hosted_support import Deployment


@pytest.fixture
def stack(
    moto_server: str, opensearch_url: str, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Deployment]:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "hosted")
    yield d
    d.close()


@pytest.fixture(autouse=True, scope="session")
def _one_environment_per_thread() -> None:
    """These tests run handlers on several threads at once, as Lambda runs them in several environments."""
    from offprompt_local.lambda_isolation import isolate_lambda_environments

    isolate_lambda_environments()
