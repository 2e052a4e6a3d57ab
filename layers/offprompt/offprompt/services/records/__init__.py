"""Long-term records as a service (docs/adr/0034-records.md): namespaced JSON values with indexed text, filters,
TTL and history, over ports (`context.Records`: the RecordStore in DynamoDB, big values in S3, the RecordIndex).

- one module per use case: `put`, `get` (get, history), `delete`, `search`, `namespaces` (list, configure);
- `requests`: the API's request bodies; `errors`: records' own errors; `views`: a record as the API returns it.

The context built from settings (`default_records`) lives in the composition root, `offprompt.composition.records`.
"""
