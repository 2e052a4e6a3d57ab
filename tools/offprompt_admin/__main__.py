"""`offprompt-admin [--local [--data-dir D] | --table T --endpoint-url U] <command> ...`
(or `python -m offprompt_admin ...` inside the venv).

COMMANDS is the one table of subcommands: each module has `register(subparsers)` (adds its parser) and
`run(args, context) -> exit status`. Add a command by adding its module and one line here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from . import backfill, erase, export, importer, keys, plans, reindex, tenants, usage
from .context import AdminError, add_connection_options, connect

COMMANDS: dict[str, ModuleType] = {
    "tenant": tenants,
    "key": keys,
    "plan": plans,
    "usage": usage,
    "export": export,
    "import": importer,
    "erase": erase,
    "backfill-index": backfill,
    "reindex": reindex,
}


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="offprompt-admin", description="offprompt operator commands")
    add_connection_options(root)
    commands = root.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        module.register(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        context = connect(args)
        status: int = COMMANDS[args.command].run(args, context)
    except AdminError as exc:
        print(f"offprompt_admin: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a library error (offprompt.errors): its code and message, no traceback
        code = getattr(exc, "code", None)
        if code is None:
            raise
        print(f"offprompt_admin: {code}: {exc}", file=sys.stderr)
        return 1
    return status


def entry() -> None:
    """The `offprompt-admin` console script."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
