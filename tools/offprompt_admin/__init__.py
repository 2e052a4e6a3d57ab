"""offprompt's operator CLI: `python -m offprompt_admin <command> ...`
(tenants, keys, plans, usage, export, import, erase).

It runs the library's own use cases (`offprompt.services`) against the same table, bucket and index the functions
use, configured the way they are: the OFFPROMPT_* settings (`offprompt.config.Settings`) and boto3's normal
credential chain (AWS_PROFILE, AWS_REGION, ...). `--local` reads the running local stack's connection
(`.offprompt/stack.json`, or the one in OFFPROMPT_DATA_DIR) instead. One subcommand per module; `__main__.COMMANDS`
is the table of them. Importing this package does nothing.
"""
