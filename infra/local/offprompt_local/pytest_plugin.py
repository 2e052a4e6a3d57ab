"""pytest fixtures for offprompt: the real local OpenSearch node, fake AWS credentials and moto.

Enabled by `pytest_plugins = ["offprompt_local.pytest_plugin"]` in the root `tests/conftest.py`.

- `opensearch_url` (session): one local node per test run, started only if a test asks for it
  (or `OPENSEARCH_URL` when set). Tests using it are auto-marked `opensearch`.
- `opensearch_client` (session): an `opensearchpy.OpenSearch` client for that node.
- `opensearch_index` (function): a fresh index from `infra/opensearch/index.json`, deleted afterwards.
- `aoss_proxy` (session): the Serverless-faithful layer (`offprompt_local.aoss_proxy`) in front of that node, with
  a 1 s search-visibility interval (OFFPROMPT_AOSS_TEST_REFRESH_INTERVAL) to keep the suites fast.
- `aws_credentials` (autouse): fake credentials and Powertools settings; host AWS settings removed.
- `moto_aws`: moto's in-process mock of every AWS service.
- `moto_server`: the local substrate's moto HTTP server on 127.0.0.1 (a free port, in memory); yields its URL.

For the whole session (`pytest_configure`) a developer's `make dev` in the same checkout is out of reach:
`OFFPROMPT_DATA_DIR` points at a session temporary directory (removed at the end), `OFFPROMPT_PORT` is 0 (a free
port), and `OFFPROMPT_UNDER_TEST` makes the stack, `DataDir` and `DevServer` refuse the checkout's `.offprompt/`,
port 3000 and whatever the developer's shell had configured (`offprompt_local.guard`). Every stack a test starts
inherits all three.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from offprompt_local.aoss_proxy import ServerlessProxy
from offprompt_local.datadir import DEFAULT_DATA_DIR
from offprompt_local.devserver import DEFAULT_PORT
from offprompt_local.guard import UNDER_TEST_ENV, protection
from offprompt_local.opensearch import LocalOpenSearch, index_definition

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

#: The search-visibility interval of the test suites' Serverless-faithful proxy (short, so that waits stay short).
AOSS_TEST_REFRESH_INTERVAL_ENV = "OFFPROMPT_AOSS_TEST_REFRESH_INTERVAL"

OPENSEARCH_FIXTURE = "opensearch_url"
#: The settings the session replaces (restored at its end), and its temporary data directory.
_ISOLATED = ("OFFPROMPT_DATA_DIR", "OFFPROMPT_PORT", "OFFPROMPT_MOTO_PORT", UNDER_TEST_ENV)
_session: dict[str, str | None] = {}
_session_dir: list[Path] = []
_session_loader: list[Callable[..., Any]] = []


def pytest_configure(config: pytest.Config) -> None:
    """Point every stack a test may start away from the developer's (data directory, ports), and guard both.

    And share one botocore data loader across sessions: moto's `mock_aws()` starts every test on a new boto3
    session, whose new loader read the services' JSON models again (~1.5 s of a test's setup for DynamoDB and S3).
    The loader only reads botocore's packaged data files and caches what it read, so sharing it changes nothing else.
    """
    import botocore.loaders
    import botocore.session

    _session_loader.append(botocore.session.create_loader)
    botocore.session.create_loader = functools.cache(botocore.loaders.create_loader)
    _session.update({name: os.environ.get(name) for name in _ISOLATED})
    protected = protection(os.environ, DEFAULT_DATA_DIR, DEFAULT_PORT)
    directory = Path(tempfile.mkdtemp(prefix="offprompt-test-data-"))
    _session_dir.append(directory)
    os.environ["OFFPROMPT_DATA_DIR"] = str(directory)
    os.environ["OFFPROMPT_PORT"] = "0"
    os.environ.pop("OFFPROMPT_MOTO_PORT", None)
    os.environ[UNDER_TEST_ENV] = protected


def pytest_unconfigure(config: pytest.Config) -> None:
    import botocore.session

    while _session_loader:
        botocore.session.create_loader = _session_loader.pop()
    for name, value in _session.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _session.clear()
    while _session_dir:
        shutil.rmtree(_session_dir.pop(), ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Every test that (directly or through another fixture) needs the node gets the `opensearch` marker,
    # so `-m "not opensearch"` deselects exactly the tests that would start a JVM.
    for item in items:
        if OPENSEARCH_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.opensearch)


@pytest.fixture(scope="session")
def opensearch_url() -> Iterator[str]:
    with LocalOpenSearch() as url:
        yield url


@pytest.fixture(scope="session")
def opensearch_client(opensearch_url: str) -> Iterator[OpenSearch]:
    from opensearchpy import OpenSearch

    client = OpenSearch(hosts=[opensearch_url], use_ssl=False, verify_certs=False, timeout=60)
    yield client
    client.close()


@pytest.fixture(scope="session")
def aoss_proxy(opensearch_url: str) -> Iterator[ServerlessProxy]:
    proxy = ServerlessProxy(opensearch_url, refresh_interval=os.environ.get(AOSS_TEST_REFRESH_INTERVAL_ENV) or "1s")
    proxy.start()
    yield proxy
    proxy.stop()


def serverless_refresh(node: OpenSearch, index: str) -> Callable[[], None]:
    """A settle for tests behind the `aoss_proxy`: make every write so far searchable by doing now, on the node
    behind the proxy, the refresh the collection's interval would do (code under test never can: the proxy refuses
    `_refresh`). Waiting out the interval (1.5 intervals and a margin) did the same in ~1.8 s per call."""
    return lambda: node.indices.refresh(index=index, ignore_unavailable=True)


@pytest.fixture
def opensearch_index(opensearch_client: OpenSearch) -> Iterator[str]:
    name = f"offprompt-test-{uuid.uuid4().hex}"
    opensearch_client.indices.create(index=name, body=index_definition())
    yield name
    opensearch_client.indices.delete(index=name, ignore_unavailable=True)


@pytest.fixture(autouse=True)
def aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake AWS settings so no test can reach (or bill) a real account from a developer's machine."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SECURITY_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_REGION", "us-east-1")  # what Lambda sets
    # An empty config/credentials file keeps ~/.aws from leaking profiles, regions or endpoints in.
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "offprompt")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "offprompt")


@pytest.fixture
def moto_aws(aws_credentials: None) -> Iterator[None]:
    """moto's in-process mock; request it before creating any boto3 client in the test."""
    import moto

    with moto.mock_aws():
        yield


@pytest.fixture
def moto_server(aws_credentials: None) -> Iterator[str]:
    """A real HTTP endpoint backed by moto, for code that talks to AWS over the network.

    It is the local stack's substrate (`offprompt_local.substrate.AtomicMotoServer`) in memory: DynamoDB
    requests are atomic, transactions cost O(items touched), Query reads only what it returns.
    """
    from moto.moto_api import _internal

    from offprompt_local.substrate import AtomicMotoServer

    # Every server in this process shares moto's one set of backends: start and end each test from a clean
    # state, or a table/bucket (and 50 MB objects) from an earlier test would still be there.
    _internal.moto_api_backend.reset()
    server = AtomicMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()
        _internal.moto_api_backend.reset()
