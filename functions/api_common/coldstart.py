"""The cyclic garbage collector over a cold start (docs/adr/0065-cold-start-gc-and-tokenizer.md).

CPython's collector runs when the count of new container objects passes a threshold (700): it traverses the young
ones, every tenth time the middle generation too, and a full collection when survivors have piled up. A function's
init and first request create ~80k objects that live as long as the process (modules, classes, functions,
pydantic's schemas, botocore's models, the tokenizer's ranks): a cold start ran ~115 young and ~11 middle
collections over them (prompt-stack also a full one), 35-120 ms of its CPU in bench/bench_cold_start.py, for
~900 unreachable objects left at its end.

`hold()` (api_common's import, in a Lambda runtime's process only: `AWS_EXECUTION_ENV` names the runtime; the local
stack's in-process runner does not set it) raises the young threshold above what an init and a first request
allocate. `release()` (the exit of `entry.invocation_deadline`, which every invocation enters, and the console's
handler; only the first call does anything) moves everything alive into the permanent generation (`gc.freeze`:
never traversed again, the few hundred garbage objects of the init with it) and puts the thresholds back, so later
collections traverse only what later requests create. A function that never calls `release` keeps the raised
threshold: collections then run over at most that many new objects.
"""

from __future__ import annotations

import gc
import os

#: The young generation's threshold while held: above the ~80k new objects of an init and first request.
HOLD_THRESHOLD = 200_000

#: How Lambda's managed runtimes name themselves in `AWS_EXECUTION_ENV` (`AWS_Lambda_python3.12`).
LAMBDA_RUNTIME = "AWS_Lambda_"

#: The thresholds `hold` replaced, while held.
_held: list[tuple[int, int, int]] = []


def hold() -> None:
    """Raise the young generation's threshold for the init and the first request (once, in Lambda only)."""
    if _held or not os.environ.get("AWS_EXECUTION_ENV", "").startswith(LAMBDA_RUNTIME):
        return
    _held.append(gc.get_threshold())
    gc.set_threshold(HOLD_THRESHOLD, *_held[0][1:])


def release() -> None:
    """End the hold: freeze what is alive (it lives as long as the process) and restore the thresholds."""
    if not _held:
        return
    gc.freeze()
    gc.set_threshold(*_held.pop())
