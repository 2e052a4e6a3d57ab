"""offprompt: serverless, Griptape-compatible memory for LLM agents (the shared Lambda layer library).

Nothing here does work at import time: no clients, no environment reads, no BPE load.
"""
