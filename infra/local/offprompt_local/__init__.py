"""Local development tooling for offprompt: the local OpenSearch node, the moto stack and the dev server.

Installed into the project's virtual environment (never into the Lambda layer). The library itself
(`layers/offprompt/offprompt`) is deliberately *not* installed: tests and tools put it on the path the
way Lambda does (`/opt/python`), so an import that works here works in Lambda.
"""
