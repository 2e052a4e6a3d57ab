"""How a command reaches the deployment: settings and AWS endpoint from the environment, or the local stack's."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "layers" / "offprompt"
CONNECTION_FILE = "stack.json"


class AdminError(Exception):
    """A command cannot run (the message says why); exit status 2."""


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--local", action="store_true", help="act on the running local stack (`make dev`)")
    parser.add_argument(
        "--data-dir",
        default="",
        help="with --local: the stack's data directory (default OFFPROMPT_DATA_DIR or .offprompt/)",
    )
    parser.add_argument(
        "--stack",
        help="a deployed stack's name: its outputs (TableName, BucketName, OpenSearch...) give the settings",
    )
    parser.add_argument("--table", help="DynamoDB table (default: OFFPROMPT_TABLE)")
    parser.add_argument("--endpoint-url", help="AWS endpoint for every client (default: boto3's, AWS_ENDPOINT_URL)")


#: Where `make dev` keeps its data (and the connection file it writes while running): the same rule as the
#: local stack's (`OFFPROMPT_DATA_DIR`, default `.offprompt/` in the repository). The operator CLI does not import
#: the local stack: it only reads the file the stack writes.
DATA_DIR_ENV = "OFFPROMPT_DATA_DIR"


def _local_connection(data_dir: str) -> dict[str, Any]:
    configured = data_dir or os.environ.get(DATA_DIR_ENV, "")
    root = Path(configured).expanduser().resolve() if configured else REPO / ".offprompt"
    path = root / CONNECTION_FILE
    try:
        info: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise AdminError(
            f"no running local stack found ({path} is missing): start it with `make dev`, or, if it runs with another "
            f"data directory, name that directory: --data-dir DIR or {DATA_DIR_ENV}=DIR (the one `make dev` was "
            f"started with)"
        ) from None
    return info


#: The deployed stack's outputs (template.yaml) and the settings each gives.
STACK_OUTPUTS = {
    "TableName": "OFFPROMPT_TABLE",
    "BucketName": "OFFPROMPT_BUCKET",
    "OpenSearchEndpoint": "OFFPROMPT_OPENSEARCH_URL",
    "OpenSearchIndex": "OFFPROMPT_OPENSEARCH_INDEX",
    "OpenSearchAuth": "OFFPROMPT_OPENSEARCH_AUTH",
}


def _stack_settings(stack: str) -> dict[str, str]:
    """The settings a deployed stack's outputs give (your AWS credentials and region, as for `sam deploy`)."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        described = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    except (BotoCoreError, ClientError) as exc:
        raise AdminError(f"cannot read stack {stack!r}: {exc}") from None
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described.get("Outputs", [])}
    return {setting: outputs[output] for output, setting in STACK_OUTPUTS.items() if outputs.get(output)}


def ensure_library() -> None:
    """The library is imported from the layer's directory, as the functions import it (`/opt/python`)."""
    try:
        import offprompt  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(LIBRARY))


@dataclass
class Context:
    environ: dict[str, str]

    def settings(self) -> Any:
        from offprompt.config import load_settings

        if not self.environ.get("OFFPROMPT_TABLE"):
            raise AdminError(
                "no table: set OFFPROMPT_TABLE (the stack's TableName output), pass --table or --stack, or --local"
            )
        return load_settings(self.environ)

    def tenancy(self) -> Any:
        from offprompt.composition.account import account_from_settings

        return account_from_settings(self.settings())


def connect(args: argparse.Namespace) -> Context:
    """Apply the connection options to this process's environment (boto3 reads it) and return the context."""
    ensure_library()
    if args.local:
        info = _local_connection(args.data_dir)
        os.environ.update(info.get("environment") or {})
        os.environ["AWS_ENDPOINT_URL"] = str(info["aws_endpoint_url"])
        for name, value in (("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local")):
            os.environ.setdefault(name, value)
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    if args.endpoint_url:
        os.environ["AWS_ENDPOINT_URL"] = args.endpoint_url
    if getattr(args, "stack", None):
        os.environ.update(_stack_settings(args.stack))
    if args.table:
        os.environ["OFFPROMPT_TABLE"] = args.table
    return Context(dict(os.environ))


def emit(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))
