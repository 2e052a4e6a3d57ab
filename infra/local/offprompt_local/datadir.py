"""The local stack's data directory: `.offprompt/` in the repository root, or `OFFPROMPT_DATA_DIR`.

<data>/moto/        DynamoDB tables and S3 objects (snapshot + journal, see substrate/store.py)
<data>/opensearch/  the OpenSearch node's home (its `data/` is the node's path.data)
<data>/.lock        held by the running stack, so two stacks never share one directory

Under test (`OFFPROMPT_UNDER_TEST`, set by the pytest plugin) `acquire()` refuses the checkout's `.offprompt/`
and the developer's configured directory outright (`guard.py`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path
from typing import IO

from . import guard

DATA_DIR_ENV = "OFFPROMPT_DATA_DIR"
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_DATA_DIR = REPO_ROOT / ".offprompt"
#: The file in the data directory that tells local tools how to reach the running stack (stack.py writes it).
CONNECTION_FILE = "stack.json"
#: What `wipe` empties: the tables and objects, the index, and the memory events' sink (memory_events.py).
PARTS = ("moto", "opensearch", "events")


class DataDirBusy(RuntimeError):
    """Another process holds the data directory."""


def data_dir_from_env() -> Path:
    configured = os.environ.get(DATA_DIR_ENV)
    return Path(configured).expanduser().resolve() if configured else DEFAULT_DATA_DIR


class DataDir:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock: IO[str] | None = None

    @property
    def moto(self) -> Path:
        return self.root / "moto"

    @property
    def opensearch(self) -> Path:
        return self.root / "opensearch"

    def acquire(self) -> None:
        """Lock the directory for this process (released at exit, also on kill -9)."""
        guard.check_data_dir(self.root, DEFAULT_DATA_DIR)
        self.root.mkdir(parents=True, exist_ok=True)
        handle = (self.root / ".lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise DataDirBusy(
                f"{self.root} is in use by another local stack; stop it, or use another directory: "
                f"{DATA_DIR_ENV}=/tmp/offprompt-2 make dev"
            ) from None
        self._lock = handle

    def wipe(self) -> None:
        """Start empty (`make dev FRESH=1`): delete the stored tables, objects and index data."""
        for part in PARTS:
            shutil.rmtree(self.root / part, ignore_errors=True)

    def release(self) -> None:
        if self._lock is not None:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None
