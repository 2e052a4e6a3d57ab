"""The operator's CLI: `python -m offprompt_admin <command> ...`.

It reads the same settings the functions read (`offprompt.config`: OFFPROMPT_TABLE, OFFPROMPT_BUCKET,
OFFPROMPT_OPENSEARCH_URL, OFFPROMPT_OPENSEARCH_INDEX, OFFPROMPT_OPENSEARCH_AUTH) and normal AWS credentials,
so it runs against a deployed stack (the stack's outputs give the names) and against the local stack (the
`make dev` banner gives moto's endpoint as AWS_ENDPOINT_URL). Each command is one module; `__main__` lists them.
"""
