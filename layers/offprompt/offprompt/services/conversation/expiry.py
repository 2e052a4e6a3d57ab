"""Use case: a run DynamoDB's TTL deleted leaves its tenant's stored-bytes gauge. Handler: functions/summarizer
(the table's stream: REMOVE records by the DynamoDB service; docs/adr/0021-stored-bytes-and-run-counts.md)."""

from __future__ import annotations

from offprompt.services.conversation.context import Conversation


def release_expired_run(conv: Conversation, tenant: str, thread_id: str, event_id: str, metered_bytes: int) -> bool:
    """Take the bytes the expired run added to its tenant's gauge off it, once per stream record (`event_id`):
    a redelivered record changes nothing. Returns whether the gauge moved."""
    return conv.runs.release_expired(tenant, thread_id, event_id, metered_bytes)
