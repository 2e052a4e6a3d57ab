"""A stand-in for Lambda's `snapshot_restore_py` (present only in a SnapStart-enabled python runtime), for the
runtime tier (tests/runtime/test_runtime_snapstart.py): the same two registration functions, and `_run`, which
lambda_driver.py calls where Lambda would, before the snapshot and after a restore. Hooks run in registration
order; an exception fails the phase, as it fails Lambda's snapshot or restore."""

_HOOKS = {"before_snapshot": [], "after_restore": []}


def register_before_snapshot(func, *args, **kwargs):
    _HOOKS["before_snapshot"].append((func, args, kwargs))
    return func


def register_after_restore(func, *args, **kwargs):
    _HOOKS["after_restore"].append((func, args, kwargs))
    return func


def _run(phase):
    for func, args, kwargs in _HOOKS[phase]:
        func(*args, **kwargs)
    return len(_HOOKS[phase])
