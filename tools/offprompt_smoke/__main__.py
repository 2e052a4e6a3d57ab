"""`offprompt-smoke API_URL [--key KEY] [options]` (or `python -m offprompt_smoke ...`; `make smoke API=… KEY=…`)."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import time
import urllib.parse
from collections.abc import Sequence

from .catalog import CHECKS
from .runner import FAILED, Options, Result, Smoke, header, make_client, row, run_checks, summary, table_head

KEY_ENV = "OFFPROMPT_API_KEY"


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="offprompt-smoke",
        description="Check a running offprompt API (local or deployed): every route, errors, Griptape drivers, keys "
        "and usage. Each check creates its own data under a unique prefix and the run deletes it at the end.",
    )
    parse.add_argument("api", nargs="?", help="the API's base URL (the stack's ApiUrl output, or make dev's URL)")
    parse.add_argument(
        "--key",
        default=None,
        help=f"an API key op_… (or a JWT: the account checks are then skipped), sent as Authorization: Bearer; "
        f"default ${KEY_ENV} (empty: none)",
    )
    parse.add_argument(
        "--tenant", default="local", help="without a key: the X-Offprompt-Tenant header (make dev only; default local)"
    )
    parse.add_argument("--quick", action="store_true", help="skip the > 5 MB transfers (big-blob, big-text)")
    parse.add_argument(
        "--with-export", action="store_true", help="also POST /export (counts against the plan's scans_per_day)"
    )
    parse.add_argument(
        "--erase-tenant",
        action="store_true",
        help="DANGEROUS: last, DELETE /tenant: erases ALL of the tenant's data (not only the smoke's) and, with a "
        "key, every key of the tenant (KEY included)",
    )
    parse.add_argument(
        "--search-wait",
        type=float,
        default=90.0,
        help="seconds a stored text may take to become searchable (OpenSearch Serverless: 10-60 s; default 90)",
    )
    parse.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP request (default 120)")
    parse.add_argument("--only", default="", help="comma-separated checks or groups (e.g. errors,task-memory.search)")
    parse.add_argument("--list", action="store_true", help="list the checks and exit")
    return parse


def options_from(args: argparse.Namespace, environ: dict[str, str]) -> Options:
    key = args.key if args.key is not None else environ.get(KEY_ENV, "")
    return Options(
        base_url=args.api.rstrip("/"),
        key=key or None,
        tenant=args.tenant,
        quick=args.quick,
        with_export=args.with_export,
        erase_tenant=args.erase_tenant,
        search_wait=args.search_wait,
        timeout=args.timeout,
        only=tuple(item.strip() for item in args.only.split(",") if item.strip()),
    )


def griptape_version() -> str:
    try:
        return importlib.metadata.version("griptape")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def main(argv: Sequence[str] | None = None) -> int:
    parse = parser()
    args = parse.parse_args(argv)
    if args.list:
        for check in CHECKS:
            needs = f"  [{', '.join(check.needs)}]" if check.needs else ""
            print(f"{check.name:<34} {check.summary}{needs}")
        return 0
    if not args.api or urllib.parse.urlsplit(args.api).scheme not in ("http", "https"):
        parse.error("give the API's base URL, e.g. offprompt-smoke http://127.0.0.1:3000 (make smoke API=…)")
    options = options_from(args, dict(os.environ))
    known = {check.name for check in CHECKS}
    unknown = [item for item in options.only if item not in known and not any(n.startswith(item + ".") for n in known)]
    if unknown:
        parse.error(f"--only names no check: {', '.join(unknown)} (see --list)")
    smoke = Smoke(options, make_client(options))
    print(header(smoke, griptape_version()))
    print(table_head(), flush=True)
    started = time.monotonic()

    def show(result: Result) -> None:
        print(row(result), flush=True)

    try:
        results = run_checks(CHECKS, smoke, show)
    except KeyboardInterrupt:
        print("interrupted: cleaning up what the checks made", file=sys.stderr, flush=True)
        cleanup = [check for check in CHECKS if check.name == "cleanup"]
        run_checks(cleanup, smoke, show)
        return 130
    print(summary(results, smoke, time.monotonic() - started), flush=True)
    return 1 if any(result.status == FAILED for result in results) else 0


def entry() -> None:
    """The `offprompt-smoke` console script."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
