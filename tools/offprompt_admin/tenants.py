"""`tenant create <tenant> [--plan NAME] [limit overrides]`: the tenant and its first API key (printed once)."""

from __future__ import annotations

import argparse

from .context import Context, emit
from .plans import add_plan_options, plan_from


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("tenant", help="create a tenant with its first API key; show a tenant")
    actions = parser.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="create (or re-plan) a tenant and issue its first key")
    create.add_argument("tenant")
    create.add_argument("--plan", default="free")
    create.add_argument("--key-name", default="first key")
    add_plan_options(create)
    show = actions.add_parser("show", help="a tenant's plan, key count and stored bytes")
    show.add_argument("tenant")


def run(args: argparse.Namespace, context: Context) -> int:
    tenancy = context.tenancy()
    if args.action == "show":
        record = tenancy.records.get_tenant(args.tenant)
        if record is None:
            emit({"tenant": args.tenant, "exists": False})
            return 1
        emit(
            {
                "tenant": record.tenant,
                "plan": record.plan,
                "keys": record.key_count,
                "stored_bytes": record.stored_bytes,
            }
        )
        return 0
    plan = plan_from(args)
    record = tenancy.create_tenant(args.tenant, plan)
    key = tenancy.create_key(args.tenant, args.key_name, plan=plan)
    emit({"tenant": record.tenant, "plan": record.plan, **key, "note": "the key is shown only now; store it"})
    return 0
