"""Extraction strategies as a service (docs/adr/0051-extraction-strategies.md): a tenant's strategies, the runner
that turns a settled conversation into records through a model, and where each strategy stands on a thread.

- one module per use case: `strategies` (put, get, list, delete), `status` (a thread's), `run` (the runner);
- `requests`: the API's request bodies; `context`: the ports.

The context built from settings (`default_extractions`) lives in the composition root,
`offprompt.composition.extraction`.
"""
