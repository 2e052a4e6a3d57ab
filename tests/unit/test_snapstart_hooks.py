"""SnapStart's hook adapter (docs/adr/0040): registered only on a SnapStart init, hooks that never fail a snapshot,
and what a restore refreshes. The hooks running inside a function: tests/runtime/test_runtime_snapstart.py."""

from __future__ import annotations

import random
import sys
import types
from typing import Any

import pytest

from offprompt.adapters import snapstart


def stand_in() -> tuple[types.ModuleType, dict[str, list[Any]]]:
    hooks: dict[str, list[Any]] = {"before": [], "after": []}
    module = types.ModuleType("snapshot_restore_py")
    module.register_before_snapshot = hooks["before"].append  # type: ignore[attr-defined]
    module.register_after_restore = hooks["after"].append  # type: ignore[attr-defined]
    return module, hooks


def test_outside_a_snapstart_init_nothing_is_registered_or_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_LAMBDA_INITIALIZATION_TYPE", raising=False)
    monkeypatch.delitem(sys.modules, "snapshot_restore_py", raising=False)
    assert snapstart.register(lambda: None, lambda: None) is False
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
    assert snapstart.register(lambda: None, lambda: None) is False
    assert "snapshot_restore_py" not in sys.modules


def test_on_a_snapstart_init_the_hooks_run_and_a_failing_one_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    module, hooks = stand_in()
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", module)
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    ran: list[str] = []

    def prime() -> None:
        ran.append("prime")
        raise RuntimeError("no table")

    assert snapstart.register(prime, lambda: ran.append("restored")) is True
    (before,), (after,) = hooks["before"], hooks["after"]
    before()  # does not raise: the snapshot is taken without what failed
    assert ran == ["prime"] and "before-snapshot hook failed" in caplog.text
    after()
    assert ran == ["prime", "restored"]


def test_a_restore_reseeds_random() -> None:
    random.seed(7)
    first = random.random()
    random.seed(7)
    snapstart.refresh_after_restore()
    assert random.random() != first  # every restored environment draws its own sequence


def test_priming_a_function_builds_its_routes_validation_and_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the before-snapshot hook of a FunctionRoutes handler builds (without its family's primer, which needs
    AWS): every route's request-validation models, and no deferred library model is left unbuilt."""
    from add_run.handler import routes

    from offprompt.composition.warm import prime_models

    monkeypatch.setattr(routes, "primer", None)
    routes.prime()
    app = routes.app()
    built = [*app._static_routes, *app._dynamic_routes]
    assert built and all(r._dependant is not None and r._body_field is not None for r in built)
    assert prime_models() == 0  # all built by prime(): no deferred model is left to build
