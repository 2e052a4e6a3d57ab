"""LOCAL STAND-IN for the example extractor's Bedrock model (docs/adr/0036-memory-events.md): rules, not a model.

`RuleBasedFactExtractor` finds a few fixed sentence shapes in the user's input — "my name is X", "I like / love /
prefer Y", "I live in Z", "I work on / at W" — and makes one fact of each, every value labelled
`extractor: "local rule-based stand-in (not a model)"`, so nobody mistakes it for what Bedrock would extract. The
local stack installs it through `offprompt.composition.events.set_fact_extractor_override`, and runs the example
extractor on the sink's `run.added` events as the template's EventBridge rule does (`memory_events.LocalRules`).
"""

from __future__ import annotations

import re

from offprompt.ports import ExtractedFact

LABEL = "local rule-based stand-in (not a model)"
_END = r"(?P<what>[^.!?\n,;]{1,80})"
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("name", re.compile(r"\bmy name is " + _END, re.IGNORECASE)),
    ("likes", re.compile(r"\bi (?:really )?(?:like|love|prefer|enjoy) " + _END, re.IGNORECASE)),
    ("lives-in", re.compile(r"\bi live in " + _END, re.IGNORECASE)),
    ("works-on", re.compile(r"\bi work (?:on|at|for) " + _END, re.IGNORECASE)),
)
_SLUG = re.compile(r"[^a-z0-9]+")


class RuleBasedFactExtractor:
    """The `FactExtractor` port without a model: LOCAL ONLY."""

    label = LABEL

    def extract(self, text: str) -> list[ExtractedFact]:
        facts: dict[str, ExtractedFact] = {}
        for kind, pattern in RULES:
            for match in pattern.finditer(text):
                what = match.group("what").strip()
                if not what:
                    continue
                # one record per name / place; one per liked thing (keyed by it)
                key = kind if kind != "likes" else f"likes-{_SLUG.sub('-', what.lower()).strip('-')[:48]}"
                facts[key] = ExtractedFact(key, {"fact": kind, "text": what, "extractor": LABEL})
        return list(facts.values())
