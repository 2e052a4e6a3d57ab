"""The conversation index's writer (docs/adr/0048-conversation-index.md): the table's run changes → search documents.

- `index_changes`: the use case of the stream indexer (functions/conversation_index) and of `offprompt-admin
  reindex`: index what was written, delete what was removed, in the order of the changes.
"""
