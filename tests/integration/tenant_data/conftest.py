"""Tenant-data tests erase tenants with API keys: the erase's fence window passes at once for them (the erase's
clock moves on when the operator CLI would wait; an HTTP erase is repeated by the test as its 202 says)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hosted_support import no_fence_wait


@pytest.fixture(autouse=True)
def fence_clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    return no_fence_wait(monkeypatch)
