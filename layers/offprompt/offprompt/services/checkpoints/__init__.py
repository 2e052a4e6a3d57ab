"""LangGraph checkpoints (docs/adr/0039): one use case per module — put, writes, get, list, delete, copy, prune —
over the merged view of a thread (`merged`): its own items and, for a copy, each source's at ids up to its cut."""
