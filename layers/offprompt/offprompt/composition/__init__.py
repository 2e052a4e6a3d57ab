"""The composition root: the one place that builds adapters from settings and hands them to the services.

Services take ports (`offprompt.ports`) and import no adapter (an import-linter contract, `make lint`); handlers
get their service from here. One module per domain, so a function reaches only the adapters its domain uses:

- `conversation`: `default_service()` (DynamoDB runs, S3 for large runs, tiktoken, Bedrock summaries),
  `default_cloud_threads()`, and `set_summarizer_override` (the local stack's stand-in for Bedrock);
- `task_memory`: `default_service()` (DynamoDB namespaces, S3 blobs, OpenSearch text built on first use),
  `task_memory_service` and `storage_registry` (the ports and the registry by storage kind),
  `text_store_from_settings` (the OpenSearch store, built on first use), `set_embedder_override` (the local
  stack's embedder);
- `account`: `default_account()` (API keys, plans, quotas and usage on the DynamoDB table).

See docs/adr/0018-composition-root.md.
"""
