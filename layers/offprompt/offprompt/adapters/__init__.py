"""Adapters: the only modules that talk to boto3, opensearch-py and tiktoken."""
