"""The peers' own test suites against the client's framework doors (issue 30 item 8, docs/adr/0046): pinned copies
of upstream test files, each adapted as its header says, run against one real local stack (real HTTP, moto and the
real OpenSearch node; no fake) shared by the package. Every test gets a tenant of its own (`peer_tenant`): the
stand-in for the fresh SQLite database or temporary directory each upstream test starts from.

The project does not install pytest-asyncio: `@pytest.mark.asyncio` coroutine tests run here each in a fresh event
loop (`asyncio.run`), as pytest-asyncio's default function-scoped loop runs them.

The directories are packages (`__init__.py`): so the package-scoped stack stops when the package's tests are done
(before another module's stack starts on the same data directory), and tests/e2e is on sys.path for its helpers.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Iterator

import pytest
from test_local_stack import RunningStack, running_stack

from offprompt_client import OffpromptClient


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "asyncio: a coroutine test, run in a fresh event loop (tests/e2e/peers)")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    assert pyfuncitem.get_closest_marker("asyncio"), f"{pyfuncitem.nodeid}: a coroutine test without asyncio mark"
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**arguments))
    return True


@pytest.fixture(scope="package")
def peer_stack(opensearch_url: str) -> Iterator[RunningStack]:
    with running_stack(opensearch_url) as running:
        yield running


@pytest.fixture
def peer_tenant(request: pytest.FixtureRequest) -> str:
    return f"peer-{uuid.uuid4().hex[:16]}"


@pytest.fixture
def peer_client(peer_stack: RunningStack, peer_tenant: str) -> OffpromptClient:
    return OffpromptClient(peer_stack.url, tenant=peer_tenant, timeout=120)
