"""`key create <tenant> [--name N]`, `key list <tenant>`, `key revoke <tenant> <key_id>`."""

from __future__ import annotations

import argparse

from .context import Context, emit


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("key", help="create, list and revoke a tenant's API keys")
    actions = parser.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="issue a key (printed once)")
    create.add_argument("tenant")
    create.add_argument("--name", default=None)
    listing = actions.add_parser("list", help="the tenant's keys (no secrets)")
    listing.add_argument("tenant")
    revoke = actions.add_parser("revoke", help="revoke a key (refused at once, whatever the authorizer's cache holds)")
    revoke.add_argument("tenant")
    revoke.add_argument("key_id")


def run(args: argparse.Namespace, context: Context) -> int:
    tenancy = context.tenancy()
    if args.action == "create":
        emit(tenancy.create_key(args.tenant, args.name))
    elif args.action == "list":
        emit(tenancy.list_keys(args.tenant))
    else:
        revoked = tenancy.revoke_key(args.tenant, args.key_id)
        emit({"tenant": args.tenant, "key_id": args.key_id, "revoked": revoked})
    return 0
