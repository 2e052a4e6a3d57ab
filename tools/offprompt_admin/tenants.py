"""`tenant create <tenant> [--plan NAME] [limit overrides]`: a new tenant and its first API key (printed once).

An existing tenant is refused, nothing changed: the message says what creating it again would have changed and
names the commands that do it on purpose (`plan set`, `key create`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from .context import Context, emit
from .plans import add_plan_options, plan_from


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("tenant", help="create a tenant with its first API key; show a tenant")
    actions = parser.add_subparsers(dest="action", required=True)
    create = actions.add_parser(
        "create", help="create a new tenant and issue its first key (an existing one is refused)"
    )
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
    from offprompt.errors import Conflict

    try:
        record = tenancy.create_tenant(args.tenant, plan)
    except Conflict as exists:
        print(f"offprompt_admin: conflict: {refusal(args, exists.details)}", file=sys.stderr)
        return 1
    key = tenancy.create_key(args.tenant, args.key_name, plan=plan)
    emit({"tenant": record.tenant, "plan": record.plan, **key, "note": "the key is shown only now; store it"})
    return 0


def _connection(args: argparse.Namespace) -> list[str]:
    """The connection options of this invocation, to repeat in the commands the refusal names."""
    options = ["--local"] if args.local else []
    for flag, value in (("--data-dir", args.data_dir), ("--stack", args.stack), ("--table", args.table)):
        if value:
            options += [flag, value]
    if args.endpoint_url:
        options += ["--endpoint-url", args.endpoint_url]
    return options


def refusal(args: argparse.Namespace, details: dict[str, Any]) -> str:
    """What `tenant create` of an existing tenant would have changed, and the explicit commands for it."""
    stored, asked = details.get("plan") or {}, details.get("requested_plan") or {}
    changes = [f"{k} {stored.get(k)!r} -> {v!r}" for k, v in asked.items() if stored.get(k) != v]
    would = f"set its plan ({', '.join(changes)})" if changes else "keep its plan"
    prefix = ["offprompt-admin", *_connection(args)]
    numbers = [f"--{k.replace('_', '-')}={v}" for k, v in asked.items() if k != "plan" and getattr(args, k, None)]
    plan_set = shlex.join([*prefix, "plan", "set", args.tenant, str(asked.get("plan", args.plan)), *numbers])
    key_create = shlex.join([*prefix, "key", "create", args.tenant, "--name", args.key_name])
    return (
        f"tenant {args.tenant!r} already exists (plan {stored.get('plan')!r}); nothing was changed. Creating it again "
        f"would {would} and issue another key. To change its plan: {plan_set}; to issue another key: {key_create}"
    )
