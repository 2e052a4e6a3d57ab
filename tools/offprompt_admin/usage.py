"""`usage show <tenant> [--days N | --from YYYY-MM-DD] [--to YYYY-MM-DD]`: what `GET /usage` answers the tenant
itself (`--days N`: the N UTC days ending with `--to`, today by default; a dated example in the docs never ages out).
`usage reconcile <tenant> [--dry-run]`: recount the tenant's gauges from its items (stored bytes: Σ `metered_bytes`;
key count: its key listings), set them where they drifted and print before/after (docs/adr/0042)."""

from __future__ import annotations

import argparse
from datetime import UTC, date, datetime, timedelta
from typing import Any

from .context import AdminError, Context, emit

#: Tries of a reconcile whose gauges moved between their read and the write (live traffic): each re-reads, recounts.
RECONCILE_ATTEMPTS = 5


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("usage", help="a tenant's usage per UTC day; reconcile its gauges")
    actions = parser.add_subparsers(dest="action", required=True)
    show = actions.add_parser("show", help="usage per day and in total, and the current stored bytes")
    show.add_argument("tenant")
    first = show.add_mutually_exclusive_group()
    first.add_argument("--from", dest="first", default=None, help="the first UTC day, YYYY-MM-DD")
    first.add_argument("--days", type=int, default=None, help="the N UTC days ending with --to (today by default)")
    show.add_argument("--to", dest="last", default=None, help="the last UTC day, YYYY-MM-DD (default: today)")
    reconcile = actions.add_parser(
        "reconcile",
        help="recount a tenant's stored bytes and key count from its items, repair drift, print before/after",
    )
    reconcile.add_argument("tenant")
    reconcile.add_argument("--dry-run", action="store_true", help="print what would change; change nothing")


def run(args: argparse.Namespace, context: Context) -> int:
    if args.action == "reconcile":
        emit(reconcile(args.tenant, context, dry_run=args.dry_run))
        return 0
    first = args.first
    if args.days is not None:
        first = _days_back(args.last, args.days)
    emit(context.tenancy().usage(args.tenant, first, args.last))
    return 0


def _days_back(last: str | None, days: int) -> str:
    """The first day of the `days` UTC days ending with `last` (today when None)."""
    if days < 1:
        raise AdminError("--days must be at least 1")
    try:
        end = date.fromisoformat(last) if last else datetime.now(UTC).date()
    except ValueError:
        raise AdminError(f"--to must be a date YYYY-MM-DD, not {last!r}") from None
    return (end - timedelta(days=days - 1)).isoformat()


def reconcile(tenant: str, context: Context, *, dry_run: bool) -> dict[str, Any]:
    """Read the gauges, recount, and set the gauges to the recount conditioned on them not having moved meanwhile
    (a write that committed during the recount moves them: read and recount again)."""
    from offprompt.adapters import gauge
    from offprompt.adapters.clients import aws_client
    from offprompt.identifiers import check_identifier

    check_identifier("tenant", tenant)
    table = context.settings().table_name
    client = aws_client("dynamodb")
    for _attempt in range(RECONCILE_ATTEMPTS):
        before = gauge.gauges(table, tenant, client)
        counted = gauge.recount_stored_bytes(table, tenant, client=client)
        after = {"stored_bytes": counted.stored_bytes, "key_count": counted.key_count}
        changed = {k: {"before": before[k], "after": after[k]} for k in after if before[k] != after[k]}
        report = {
            "tenant": tenant,
            "dry_run": dry_run,
            "before": before,
            "after": before if dry_run else after,
            "recount": {**after, "stored_bytes_by_kind": counted.by_kind},
            "changed": changed,
        }
        if dry_run or not changed:
            return report
        if gauge.set_gauges(table, tenant, client, before, after):
            return report
    raise AdminError(f"the gauges of tenant {tenant!r} kept moving during {RECONCILE_ATTEMPTS} recounts; try again")
