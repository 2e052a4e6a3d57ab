"""`plan set <tenant> <plan> [--rate-per-second N] [--runs-per-day N] [--stored-bytes N] [--max-keys N]
[--scans-per-day N] [--extraction-tokens-per-day N]`, `plan list`.

A plan change reaches the tenant's keys at once, also deployed: every request reads its key (and the key's plan)
again, whatever the authorizer's cache holds (docs/adr/0028).
"""

from __future__ import annotations

import argparse

from .context import Context, emit, ensure_library


def overrides() -> tuple[str, ...]:
    """The plan numbers an operator may override: the library's one list (imported when the parser is built, after
    the library is on the path: the CLI runs before it is importable)."""
    ensure_library()
    from offprompt.services.account.plans import PLAN_NUMBERS

    return tuple(PLAN_NUMBERS)


def limit(text: str) -> int:
    """A plan number on the command line: a whole number of 0 (unlimited) or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is below 0 (0 means unlimited; a limit cannot be negative)")
    return value


def add_plan_options(parser: argparse.ArgumentParser) -> None:
    for name in overrides():
        parser.add_argument(f"--{name.replace('_', '-')}", type=limit, default=None, help="0 = unlimited")


def plan_from(args: argparse.Namespace) -> object:
    from offprompt.services.account import plan_named

    return plan_named(args.plan, **{name: getattr(args, name) for name in overrides()})


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("plan", help="set a tenant's plan; list the named plans")
    actions = parser.add_subparsers(dest="action", required=True)
    setter = actions.add_parser("set", help="set a tenant's plan (creates the tenant if needed)")
    setter.add_argument("tenant")
    setter.add_argument("plan", help="free, pro, unlimited, or any name with explicit limits")
    add_plan_options(setter)
    actions.add_parser("list", help="the named plans and their limits")


def run(args: argparse.Namespace, context: Context) -> int:
    if args.action == "list":
        from offprompt.metering import PLANS

        emit({name: plan.to_dict() for name, plan in PLANS.items()})
        return 0
    record = context.tenancy().set_plan(args.tenant, plan_from(args))
    emit({"tenant": record.tenant, **record.plan})
    return 0
