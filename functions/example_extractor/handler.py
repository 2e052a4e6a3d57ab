"""example_extractor: bring-your-own extraction, the example (docs/adr/0036-memory-events.md).

Trigger: an EventBridge rule on the memory-event bus for `run.added` (template.yaml). The event's `detail` is the
memory event `{id, type, time, tenant, detail: {thread_id, run_id, seq, ...}}`: it names the run, never holds it.
The function reads the run, asks its model for the facts the user's input states, and writes each fact as a
record under `("extracted", "facts")`, key the fact's key, value `{fact, text, extractor, source: {thread_id,
run_id, seq}}` (its `text` indexed), through the records' own put use case: the record's history keeps what the
fact said before. A record put is a `record.put` event, never `run.added`: no loop.

The model: Bedrock Converse deployed (`OFFPROMPT_EXTRACTION_MODEL_ID`); on the local stack a rule-based stand-in,
labelled as such in every value it writes (`extractor`), installed by the stack (offprompt_local/extractor.py).
Returns `{"run_id", "records": [keys], "extractor"}`; a run that is gone has no facts.

Use cases: `offprompt.services.events.extract_facts`, `offprompt.services.records.put`.
"""

from __future__ import annotations

from typing import Any

from api_common.entry import invocation_deadline
from offprompt.composition.events import default_extraction
from offprompt.composition.records import default_records
from offprompt.errors import InvalidInput
from offprompt.events import RUN_ADDED
from offprompt.services.events.extract_facts import facts_of_run
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import RecordPut

#: Where the facts go: one namespace per tenant (a thread id may hold "." and cannot be a label).
NAMESPACE = ("extracted", "facts")


def extract(event: dict[str, Any]) -> dict[str, Any]:
    memory_event = event.get("detail")
    if event.get("detail-type") != RUN_ADDED or not isinstance(memory_event, dict):
        raise InvalidInput("the example extractor takes run.added memory events (an EventBridge rule's target)")
    tenant, detail = memory_event.get("tenant"), memory_event.get("detail")
    if not isinstance(tenant, str) or not isinstance(detail, dict):
        raise InvalidInput("a memory event names its tenant and its detail")
    thread_id, seq = detail.get("thread_id"), detail.get("seq")
    if not isinstance(thread_id, str) or not isinstance(seq, int):
        raise InvalidInput("a run.added event names the run's thread_id and seq")
    extraction = default_extraction()
    found = facts_of_run(extraction, tenant, thread_id, seq)
    source = {"thread_id": thread_id, "run_id": found.run_id, "seq": seq}
    written = []
    for fact in found.facts:
        request = RecordPut(value={**fact.value, "source": source}, index=["text"])
        put_record(default_records(), tenant, NAMESPACE, fact.key, request)
        written.append(fact.key)
    return {"run_id": found.run_id, "records": written, "extractor": extraction.extractor.label}


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    with invocation_deadline(context, http=False):
        return extract(event)
