"""Lambda SnapStart (Python) runtime hooks: the one module that imports `snapshot_restore_py` (docs/adr/0040).

On a function with SnapStart on, Lambda runs the init phase once per published version, calls the hooks
registered with `register_before_snapshot`, snapshots the environment, and starts later environments from that
snapshot, calling the `register_after_restore` hooks first. `snapshot_restore_py` exists only in that runtime:
`register` imports it only when Lambda says the init is a SnapStart one (`AWS_LAMBDA_INITIALIZATION_TYPE` is
`snap-start`), so anywhere else it does nothing and imports nothing. Registering is the only thing done at import
time; the priming itself runs in the before-snapshot hook.

After a restore, as AWS advises for SnapStart: state that must differ between environments is re-seeded (Python's
`random`; `uuid4` and `secrets` read the OS's entropy each time) and network connections opened before the
snapshot are dropped (each cached boto3 client's connection pool is closed; the client itself, with its loaded
service model, is kept and opens new connections on its next call). Credentials are not cached by us: a SnapStart
environment gives the SDK refreshable ones (a container credentials provider), so a client made before the
snapshot keeps signing with current credentials after a restore.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

logger = logging.getLogger("offprompt.snapstart")

SNAPSTART_INIT = "snap-start"


def register(before_snapshot: Callable[[], None], after_restore: Callable[[], None]) -> bool:
    """Register the two hooks with Lambda's runtime when this init is a SnapStart one; False (nothing done)
    otherwise. `after_restore` runs after `refresh_after_restore`."""
    if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") != SNAPSTART_INIT:
        return False
    from snapshot_restore_py import register_after_restore, register_before_snapshot

    register_before_snapshot(_logged("before-snapshot", before_snapshot))

    def restored() -> None:
        refresh_after_restore()
        after_restore()

    register_after_restore(_logged("after-restore", restored))
    return True


def refresh_after_restore() -> None:
    """What must not be shared by the environments restored from one snapshot: the random seed, open sockets."""
    import random

    from offprompt.adapters.clients import aws_client, built_services  # boto3: imported by the first request anyway

    random.seed()  # from os.urandom: each restored environment its own sequence
    for service in built_services():
        http = getattr(getattr(aws_client(service), "_endpoint", None), "http_session", None)
        close = getattr(http, "close", None)
        if callable(close):
            close()  # botocore's URLLib3Session: the pools are emptied and made again on the next request


def _logged(name: str, hook: Callable[[], object]) -> Callable[[], None]:
    """A hook that never fails the snapshot or the restore: a priming step that fails is done on first use."""

    def run() -> None:
        try:
            hook()
        except Exception:
            logger.exception("SnapStart %s hook failed; the function starts without it", name)

    return run
