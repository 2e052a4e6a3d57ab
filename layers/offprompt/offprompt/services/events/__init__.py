"""Memory events (docs/adr/0036-memory-events.md): the table's changes published for bring-your-own extraction.

- `publish_changes`: a batch of stream records → the memory events they mean → the publisher; which records
  failed (so the stream consumer reports only them);
- `context.Events`: the ports (a `ChangeDecoder`, an `EventPublisher`).
The events built from settings (EventBridge, or the local stack's sink) are in `offprompt.composition.events`.
"""
