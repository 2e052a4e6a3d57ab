"""api_common.coldstart: in a Lambda environment the cyclic collector does not traverse a function's init (its
objects live as long as the process), and the first invocation freezes what is alive then and puts the thresholds
back (docs/adr/0065-cold-start-gc-and-tokenizer.md). Each case runs in a fresh interpreter."""

from __future__ import annotations

import pytest
from probe_support import probe

#: The functions bench/bench_cold_start.py measures.
HANDLERS = ["threads", "prompt_stack", "add_run", "summarizer", "mcp_server"]

# Collections once api_common imports Powertools (its first import; the handler's stdlib imports run before it).
COUNT_COLLECTIONS = (
    "import gc, json, os, sys\n"
    "collections = {0: 0, 1: 0, 2: 0}\n"
    "gc.callbacks.append(lambda phase, info: phase == 'stop' and 'api_common.powertools' in sys.modules and"
    " collections.__setitem__(info['generation'], collections[info['generation']] + 1))\n"
)


@pytest.mark.parametrize("handler", HANDLERS)
def test_a_lambda_init_runs_no_collection_over_its_imports(handler: str) -> None:
    counts = probe(
        f"{COUNT_COLLECTIONS}os.environ['AWS_EXECUTION_ENV'] = 'AWS_Lambda_python3.12'\n"
        f"import {handler}.handler\n"
        "print(json.dumps(collections))"
    )
    # Without the hold: ~100 young, ~10 middle collections over the import.
    assert counts == {"0": 0, "1": 0, "2": 0}


# Through make_handler_for (threads), a stream handler's own lambda_handler (memory_events) and the console's.
@pytest.mark.parametrize(
    ("handler", "event"), [("threads", "{}"), ("memory_events", "{'Records': []}"), ("console", "{}")]
)
def test_the_first_invocation_freezes_what_is_alive_and_restores_the_thresholds(handler: str, event: str) -> None:
    state = probe(
        "import gc, json, os\n"
        "default = gc.get_threshold()\n"
        "os.environ['AWS_EXECUTION_ENV'] = 'AWS_Lambda_python3.12'\n"
        f"import {handler}.handler as h\n"
        "held = gc.get_threshold()\n"
        "try:\n"
        f"    h.lambda_handler({event}, None)\n"  # answered or refused: either way the hold ends with it
        "except Exception:\n"
        "    pass\n"
        "print(json.dumps({'held': held[0] > default[0], 'restored': gc.get_threshold() == default,\n"
        "  'frozen': gc.get_freeze_count() > 10000, 'enabled': gc.isenabled()}))"
    )
    assert state == {"held": True, "restored": True, "frozen": True, "enabled": True}


def test_outside_a_lambda_runtime_the_collector_is_left_alone() -> None:
    # The local stack's in-process runner names the function but is no Lambda runtime's process.
    state = probe(
        "import gc, json, os\n"
        "default = gc.get_threshold()\n"
        "os.environ['AWS_LAMBDA_FUNCTION_NAME'] = 'f'\n"
        "import threads.handler as h\n"
        "print(json.dumps({'same': gc.get_threshold() == default, 'frozen': gc.get_freeze_count()}))"
    )
    assert state == {"same": True, "frozen": 0}
