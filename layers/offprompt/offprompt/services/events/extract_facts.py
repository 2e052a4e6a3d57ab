"""Use case: the facts of a run that was added — the example extractor's read and extraction (docs/adr/0036).
Handler: functions/example_extractor (an EventBridge rule on `run.added`); the handler writes each fact as a record
with the records' own use case (`services/records/put.py`), so each path stays handler → use case → adapter.

The run is read by its seq (one GetItem; a big run's body from S3), its user input's text (a Griptape artifact's
`value`, a list's texts) goes to the `FactExtractor`. A run that is gone (deleted, expired) has no facts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from offprompt.memory.extraction import artifact_text
from offprompt.ports import ExtractedFact
from offprompt.services.events.context import Extraction

#: The most text of one run the extractor is given (characters).
MAX_EXTRACTED_CHARS = 8_000


@dataclass
class RunFacts:
    run_id: str | None
    facts: list[ExtractedFact] = field(default_factory=list)


def facts_of_run(ctx: Extraction, tenant: str, thread_id: str, seq: int) -> RunFacts:
    stored = ctx.runs.get_run(tenant, thread_id, seq)
    if stored is None:
        return RunFacts(None)
    run = json.loads(ctx.bodies.run_json(stored))
    text = artifact_text(run.get("input") if isinstance(run, dict) else None)[:MAX_EXTRACTED_CHARS]
    if not text.strip():
        return RunFacts(stored.run_id)
    return RunFacts(stored.run_id, ctx.extractor.extract(text))
