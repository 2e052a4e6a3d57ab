"""Use case: summarize — fold a summary-memory thread's old runs into its summary (Griptape's prompt).
Handler: functions/summarizer (the DynamoDB stream, or a direct invocation); add-run calls it in inline mode."""

from __future__ import annotations

from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.memory.conversation import render_summarize_prompt
from offprompt.services.conversation.context import Conversation, now_iso
from offprompt.services.conversation.results import SummarizeResult
from offprompt.services.conversation.run_bodies import decode_stored_run


def summarize(conv: Conversation, tenant: str, thread_id: str) -> SummarizeResult:
    """Fold all unsummarized runs but the newest `offset` into the summary (Griptape's prompt).

    Committed with a compare-and-swap on `summary_version`; a stale result is dropped, a failing
    summarizer raises and changes nothing (the runs stay in the prompt).
    """
    check_identifier("thread_id", thread_id)
    state = conv.runs.get_thread(tenant, thread_id)
    if state is None or state.memory_type != "summary" or state.kind != "runs":  # items are never summarized
        return SummarizeResult("not_summary_memory")
    # a fork's unsummarized runs include the ones it shares (its summary is its own: docs/adr/0037)
    now = int(conv.clock())
    stored = list(
        conv.runs.iter_full(tenant, thread_id, lo=state.summary_through_seq + 1, now_epoch=now, ancestry=state.ancestry)
    )
    to_sum = stored[: max(0, len(stored) - state.offset)]
    if not to_sum:
        return SummarizeResult("nothing_to_do", state.summary_through_seq)
    if conv.summarizer is None:
        raise InvalidInput("no summarizer is configured")
    runs = [decode_stored_run(conv.bodies.run_json(r)) for r in to_sum]
    prompt = render_summarize_prompt(state.summary, runs)
    summary = conv.summarizer.summarize(prompt)
    through = to_sum[-1].seq
    committed = conv.runs.commit_summary(
        tenant,
        thread_id,
        summary=summary,
        through_seq=through,
        expected_version=state.summary_version,
        now=now_iso(conv.clock()),
    )
    if not committed:
        return SummarizeResult("stale", through, len(to_sum))
    return SummarizeResult("committed", through, len(to_sum))
