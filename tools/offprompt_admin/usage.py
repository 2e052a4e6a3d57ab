"""`usage show <tenant> [--from YYYY-MM-DD] [--to YYYY-MM-DD]`: what `GET /usage` answers the tenant itself."""

from __future__ import annotations

import argparse

from .context import Context, emit


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("usage", help="a tenant's usage per UTC day")
    actions = parser.add_subparsers(dest="action", required=True)
    show = actions.add_parser("show", help="usage per day and in total, and the current stored bytes")
    show.add_argument("tenant")
    show.add_argument("--from", dest="first", default=None)
    show.add_argument("--to", dest="last", default=None)


def run(args: argparse.Namespace, context: Context) -> int:
    emit(context.tenancy().usage(args.tenant, args.first, args.last))
    return 0
