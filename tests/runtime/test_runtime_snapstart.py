"""SnapStart's runtime hooks in the Lambda-runtime tier (docs/adr/0040), as far as they can run without AWS.

Lambda's `snapshot_restore_py` exists only in a SnapStart-enabled runtime; these tests put a stand-in with the same
two registration functions on the function's path (tests/runtime/snapstart_stand_in) and have lambda_driver.py run
the registered hooks where Lambda would: after init (before the snapshot), then after a restore, before the first
request. The snapshot itself (memory and process state copied to another machine) is not emulated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lambda_runtime import Start

ROOT = Path(__file__).resolve().parents[2]
STAND_IN = (str(Path(__file__).with_name("snapstart_stand_in")),)
SNAPSTART_INIT = {"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"}


def event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "events" / name).read_text())
    return data


def run_items(local_aws: dict[str, Any]) -> list[dict[str, Any]]:
    items = local_aws["dynamodb"].scan(TableName=local_aws["table"])["Items"]
    return [i for i in items if i["sk"]["S"].startswith("RUN#")]


def test_add_run_restored_from_a_primed_snapshot_counts_its_first_run(
    start_function: Start, local_aws: dict[str, Any]
) -> None:
    add_run = start_function("AddRunFunction", extra_env=SNAPSTART_INIT, extra_sys_path=STAND_IN)
    imported = add_run.imported_modules()
    assert "snapshot_restore_py" in imported  # the hooks are registered at init...
    assert "tiktoken" not in imported  # ...and nothing is primed before the snapshot phase
    assert add_run.snapstart("before_snapshot") == 1
    assert "tiktoken" in add_run.imported_modules()  # the tokenizer is in the snapshot
    assert add_run.snapstart("after_restore") == 1
    status, body, _ = add_run.http(event("add_run_http.json"))
    assert status == 201, body
    (item,) = run_items(local_aws)
    assert int(item["input_tokens"]["N"]) > 0 and int(item["output_tokens"]["N"]) > 0  # counted: the tokenizer was warm


def test_without_snapstart_the_hooks_module_is_never_imported_and_the_first_run_is_stored_uncounted(
    start_function: Start, local_aws: dict[str, Any]
) -> None:
    add_run = start_function("AddRunFunction", extra_sys_path=STAND_IN)  # on-demand init: no SnapStart
    status, body, _ = add_run.http(event("add_run_http.json"))
    assert status == 201, body
    imported = add_run.imported_modules()
    assert "snapshot_restore_py" not in imported
    assert "tiktoken" not in imported  # the first request did not build the tokenizer (docs/adr/0040)
    assert add_run.snapstart("before_snapshot") == 0
    (item,) = run_items(local_aws)
    assert "input_tokens" not in item

    prompt = start_function("PromptStackFunction")  # a reader counts the run itself
    status, stack, _ = prompt.http(event("prompt_stack_http.json"))
    assert status == 200, stack
    assert any(m["role"] == "assistant" for m in stack["messages"])


def test_every_primed_family_survives_its_snapshot_and_restore(start_function: Start) -> None:
    """The hooks of the conversation functions and the summarizer run in their own runtime (their layers only)."""
    # Priming builds the tokenizer: bpe-openai's where the function's layers ship it (the text layer), else
    # tiktoken's (docs/adr/0069).
    counters = {
        "PromptStackFunction": "bpe_openai",
        "ThreadsFunction": "bpe_openai",
        "SummarizerFunction": "tiktoken",
        "CloudThreadsFunction": "tiktoken",
    }
    for logical_id, counter in counters.items():
        process = start_function(logical_id, extra_env=SNAPSTART_INIT, extra_sys_path=STAND_IN)
        assert process.snapstart("before_snapshot") == 1, logical_id
        assert process.snapstart("after_restore") == 1, logical_id
        assert counter in process.imported_modules(), logical_id
        assert "Traceback" not in process.logs(), process.logs()
