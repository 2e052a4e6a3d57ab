"""`python -m offprompt_admin <command>`: one module per command, registered in COMMANDS.

Each module defines `HELP`, `add_arguments(parser)` and `run(args) -> int`; it is imported only when its
command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from offprompt.errors import OffpromptError

#: command name -> module (under offprompt_admin) implementing it.
COMMANDS: dict[str, str] = {
    "export": "export",
    "import": "importer",
    "erase": "erase",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m offprompt_admin", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"offprompt_admin.{module_name}")
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except OffpromptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
