"""LOCAL STAND-IN for the example extractor's Bedrock model (docs/adr/0036-memory-events.md): rules, not a model.

`RuleBasedFactExtractor` finds a few fixed sentence shapes in the user's input — "my name is X", "I like / love /
prefer Y", "I live in Z", "I work on / at W" — and makes one fact of each, every value labelled
`extractor: "local rule-based stand-in (not a model)"`, so nobody mistakes it for what Bedrock would extract. The
local stack installs it through `offprompt.composition.events.set_fact_extractor_override`, and runs the example
extractor on the sink's `run.added` events as the template's EventBridge rule does (`memory_events.LocalRules`).
"""

from __future__ import annotations

from offprompt.adapters.extraction_models import rule_facts
from offprompt.ports import ExtractedFact

LABEL = "local rule-based stand-in (not a model)"


class RuleBasedFactExtractor:
    """The `FactExtractor` port without a model: LOCAL ONLY."""

    label = LABEL

    def extract(self, text: str) -> list[ExtractedFact]:
        return [
            ExtractedFact(key, {"fact": kind, "text": what, "extractor": LABEL})
            for key, (kind, what) in rule_facts(text).items()
        ]
