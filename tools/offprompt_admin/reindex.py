"""`reindex <tenant> | --all`: build the conversation index (docs/adr/0048) for runs and session items stored before
it, or repair it (a batch the stream indexer sent to its dead-letter queue). Reads the table's run items page by page
(a filtered whole-table Scan) and indexes each as the stream indexer does: idempotent, safe beside the live stream,
and resumable: `--from POSITION` goes on from the `resume_from` a stopped reindex printed."""

from __future__ import annotations

import argparse
import json
import sys

from .context import Context, emit

COMMAND = "reindex"
HELP = "index a tenant's (or every tenant's) runs for conversation search; idempotent and resumable (--from)"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(COMMAND, help=HELP, description=HELP)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("tenant", nargs="?")
    target.add_argument("--all", action="store_true", help="every tenant's runs")
    parser.add_argument("--from", dest="start", help="the `resume_from` position a stopped reindex printed")
    parser.add_argument("--pages", type=int, help="stop after this many Scan pages (resume with --from)")


def run(args: argparse.Namespace, context: Context) -> int:
    from offprompt.composition.conversation_index import indexing_from_settings, run_scan_from_settings
    from offprompt.errors import OffpromptError
    from offprompt.identifiers import check_identifier
    from offprompt.services.conversation_index.reindex import ReindexReport, reindex

    tenant = None if args.all else check_identifier("tenant", args.tenant)
    settings = context.settings()
    target = {"tenant": tenant} if tenant is not None else {"all": True}

    def progress(report: ReindexReport) -> None:
        line = {**target, "pages": report.pages, "runs": report.runs, "resume_from": report.position}
        print(json.dumps(line), file=sys.stderr)

    try:
        report = reindex(
            indexing_from_settings(settings),
            run_scan_from_settings(settings),
            tenant,
            start=args.start,
            max_pages=args.pages,
            progress=progress,
        )
    except OffpromptError as exc:
        emit({**target, "error": str(exc)})
        return 1
    emit({**target, **report.to_dict()})
    return 0
