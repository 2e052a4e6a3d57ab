"""Least-privilege IAM: each function's policy grants exactly the AWS actions its code paths call.

The expected actions are derived from the code, never copied from the template.

From a function's handler module it follows, by name, every function and method the code can reach in
`functions/` and `layers/offprompt/offprompt/`, and reports what that code touches:

- AWS operations: boto3 client calls (`.put_item(`), operation names passed as strings
  (`self._call("update_item", ...)`, `generate_presigned_url("get_object", ...)`, `get_paginator(...)`) in
  modules that build a client for that service (`aws_client("dynamodb")` / `boto3.client("s3")`), and the item
  kinds (`Put`, `Update`, `ConditionCheck`, ...) of `transact_write_items` — written as item dicts, or through the
  tagged `Transaction` of `adapters/dynamodb_transaction.py` (`tx.put(...)` a Put, ...; the adapter's own
  `client.transact_write_items(TransactItems=tx.request())` the TransactWriteItems) in a module that builds a
  DynamoDB client;
- OpenSearch: any reachable code of a module importing `opensearchpy`;
- settings: `Settings` fields read (`settings.table_name`, `settings.require("bucket_name")`) and any literal
  `os.environ` / `os.getenv` names.

The call graph is resolved by name (a method call `x.m()` may reach every `def m` in scope), which
over-approximates; names of ubiquitous builtin methods (`get`, `items`, ...) are only followed when the receiver
is an attribute or a call (`self.blobs.get(...)`, `service().search(...)`), never a plain local (`event.get`).
A method reached only by its name is followed once reachable code names its class (rapid type analysis: it is
constructed, subclassed or otherwise referenced), so `self.runs.load(...)` in the conversation service does not
reach `OpenSearchTextStore.load`, whose class only task memory builds.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import botocore.session
from botocore import xform_name

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
LIBRARY = ROOT / "layers" / "offprompt"

AWS_SERVICES = (
    "dynamodb",
    "s3",
    "bedrock-runtime",
    "bedrock-agent-runtime",
    "lambda",
    "sqs",
    "sts",
    "events",
    "secretsmanager",
)
GENERIC_NAMES = frozenset(
    [
        "get",
        "put",
        "delete",
        "update",
        "pop",
        "items",
        "keys",
        "values",
        "append",
        "extend",
        "add",
        "remove",
        "copy",
        "format",
        "join",
        "split",
        "strip",
        "read",
        "write",
        "close",
        "encode",
        "decode",
        "index",
        "count",
        "clear",
        "setdefault",
        "sort",
        "replace",
        "lower",
        "upper",
        "startswith",
        "endswith",
        "load",
        "loads",
        "dumps",
        "dump",
        "match",
        "fullmatch",
        "group",
        "info",
        "debug",
        "warning",
        "error",
        "exception",
        "hexdigest",
        "digest",
        "isoformat",
        "search",  # `pattern.search(text)`: a regex, not the text store's search
    ]
)
TRANSACT_KINDS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
}
#: `Transaction` methods (adapters/dynamodb_transaction.py) and the transaction item kind each adds.
TRANSACTION_METHODS = {"put": "Put", "update": "Update", "delete": "Delete", "condition_check": "ConditionCheck"}
# boto3 operations whose IAM action is not `<prefix>:<OperationName>`.
ACTION_OVERRIDES = {
    ("s3", "HeadObject"): "s3:GetObject",
    ("s3", "CopyObject"): "s3:PutObject",  # onto itself (a metadata change); reading its source is s3:GetObject
    ("s3", "DeleteObjects"): "s3:DeleteObject",
    ("s3", "ListObjectsV2"): "s3:ListBucket",
    ("s3", "ListObjects"): "s3:ListBucket",
    ("bedrock-runtime", "Converse"): "bedrock:InvokeModel",
    ("bedrock-runtime", "ConverseStream"): "bedrock:InvokeModelWithResponseStream",
    ("lambda", "Invoke"): "lambda:InvokeFunction",
    ("dynamodb", "TransactGetItems"): "dynamodb:GetItem",
}
IAM_PREFIX = {"bedrock-runtime": "bedrock", "bedrock-agent-runtime": "bedrock"}
#: Actions a boto3 operation needs besides its own: the Rerank API invokes the rerank model with the caller's
#: permissions (AWS, "Permissions for reranking in Amazon Bedrock": bedrock:Rerank and bedrock:InvokeModel).
ALSO_NEEDS = {("bedrock-agent-runtime", "Rerank"): ("bedrock:InvokeModel",)}
#: Actions without a resource type, granted on "*" (each such statement grants only these).
NO_RESOURCE_TYPE = frozenset({"bedrock:Rerank"})
# Client methods that are not operations (they carry the operation as a string argument).
CLIENT_HELPERS = frozenset({"generate_presigned_url", "get_paginator", "get_waiter", "can_paginate"})
ENV_NAME = re.compile(r"OFFPROMPT_[A-Z0-9_]+")
OPENSEARCH = "opensearch:http"  # the data-plane permission (aoss:APIAccessAll / es:ESHttp*)


@cache
def service_operations(service: str) -> dict[str, str]:
    """snake_case method name -> OperationName, from botocore's own service model."""
    model = botocore.session.get_session().get_service_model(service)
    return {xform_name(name): name for name in model.operation_names}


def iam_action(service: str, operation: str) -> str:
    return ACTION_OVERRIDES.get((service, operation), f"{IAM_PREFIX.get(service, service)}:{operation}")


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    services: set[str] = field(default_factory=set)  # AWS clients this module builds
    opensearch: bool = False
    imports: dict[str, str] = field(default_factory=dict)  # local name -> "module" or "module:attr"


@dataclass(frozen=True)
class Def:
    module: str
    qualname: str
    node: ast.AST


@dataclass
class Reach:
    """What a function's code can reach."""

    defs: set[tuple[str, str]] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    actions: set[str] = field(default_factory=set)
    origins: dict[str, set[str]] = field(default_factory=dict)  # action -> modules whose code calls it
    setting_fields: set[str] = field(default_factory=set)
    env_names: set[str] = field(default_factory=set)


def _module_name(path: Path) -> str:
    base = FUNCTIONS if path.is_relative_to(FUNCTIONS) else LIBRARY
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, *([target] if target else [])])


class CodeGraph:
    def __init__(self) -> None:
        self.modules: dict[str, Module] = {}
        self.defs_by_name: dict[str, list[Def]] = {}
        self.top_level: dict[tuple[str, str], Def] = {}
        paths = [*FUNCTIONS.rglob("*.py"), *(LIBRARY / "offprompt").rglob("*.py")]
        for path in sorted(p for p in paths if "__pycache__" not in p.parts):
            self._index(path)
        self._inherit_services()

    # ---- indexing ---------------------------------------------------------------------------------------
    def _index(self, path: Path) -> None:
        name = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        module = Module(name, path, tree)
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module.imports[alias.asname or alias.name.split(".")[0]] = alias.name
                    module.opensearch |= alias.name.split(".")[0] == "opensearchpy"
            elif isinstance(node, ast.ImportFrom):
                source = (
                    _resolve_relative(name, is_package, node.level, node.module) if node.level else node.module or ""
                )
                module.opensearch |= source.split(".")[0] == "opensearchpy"
                for alias in node.names:
                    module.imports[alias.asname or alias.name] = f"{source}:{alias.name}"
            elif (
                isinstance(node, ast.Call)
                and _callee_name(node) in ("aws_client", "client", "resource")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in AWS_SERVICES
            ):
                module.services.add(str(node.args[0].value))
        self.modules[name] = module
        for node in tree.body:
            self._index_def(name, node, prefix="")

    def _inherit_services(self) -> None:
        """A module whose class is built on a class of a module that builds a client (a part of an adapter, e.g.
        `dynamodb_run_deletes.ForksAndDeletes` on `dynamodb_table.DynamoDbTable`, docs/adr/0058) calls that
        service through the inherited client: its operations count as that service's."""
        changed = True
        while changed:
            changed = False
            for module in self.modules.values():
                for node in module.tree.body:
                    bases = node.bases if isinstance(node, ast.ClassDef) else []
                    for base in bases:
                        if not (isinstance(base, ast.Name) and base.id in module.imports):
                            continue
                        source = module.imports[base.id].partition(":")[0]
                        extra = self.modules[source].services - module.services if source in self.modules else set()
                        if extra:
                            module.services |= extra
                            changed = True

    def _index_def(self, module: str, node: ast.AST, prefix: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            definition = Def(module, prefix + node.name, node)
            self.defs_by_name.setdefault(node.name, []).append(definition)
            if not prefix:
                self.top_level[(module, node.name)] = definition
            if isinstance(node, ast.ClassDef):
                for child in node.body:
                    self._index_def(module, child, prefix=f"{prefix}{node.name}.")

    # ---- reachability -----------------------------------------------------------------------------------
    def reach(self, handler_module: str) -> Reach:
        result = Reach()
        pending: list[tuple[str, ast.AST]] = []

        def visit_module(name: str) -> None:
            # Only the handler module's top-level code runs as the function; another module's top-level code
            # (e.g. `lambda_handler = make_handler(...)` of a handler imported for a helper) only binds names.
            if name in self.modules and name not in result.modules:
                result.modules.add(name)
                if name == handler_module:
                    body = [
                        n for n in self.modules[name].tree.body if not isinstance(n, ast.FunctionDef | ast.ClassDef)
                    ]
                    pending.extend((name, n) for n in body)

        # Rapid type analysis: a method reached only by its name (`x.m()`) is followed once its class is
        # referenced by reachable code (constructed, subclassed, imported and named); until then it waits here.
        waiting: dict[tuple[str, str], list[Def]] = {}

        def visit_def(definition: Def, by_name: bool = False) -> None:
            key = (definition.module, definition.qualname)
            if key in result.defs:
                return
            owner = (definition.module, definition.qualname.rpartition(".")[0])
            if by_name and owner not in result.defs:
                waiting.setdefault(owner, []).append(definition)
                return
            result.defs.add(key)
            visit_module(definition.module)
            node = definition.node
            if isinstance(node, ast.ClassDef):  # the class body and its constructor, not every method
                for method in waiting.pop(key, ()):
                    visit_def(method)
                pending.extend((definition.module, n) for n in node.body if not isinstance(n, ast.FunctionDef))
                pending.extend((definition.module, b) for b in node.bases)
                for child in node.body:
                    if isinstance(child, ast.FunctionDef) and child.name in ("__init__", "__post_init__"):
                        visit_def(Def(definition.module, f"{definition.qualname}.{child.name}", child))
            else:
                pending.append((definition.module, node))

        visit_module(handler_module)
        for definition in self.top_level.values():
            if definition.module == handler_module:
                visit_def(definition)
        while pending:
            module_name, node = pending.pop()
            module = self.modules[module_name]
            for child in _walk(node):
                for definition, by_name in self._targets(module, child):
                    visit_def(definition, by_name)
                self._collect(module, child, result)
        self._finish_actions(result)
        return result

    def _targets(self, module: Module, node: ast.AST) -> Iterator[tuple[Def, bool]]:
        """The definitions `node` may refer to; True when only by a method's name (resolved by type analysis)."""
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if (module.name, node.id) in self.top_level:
                yield self.top_level[(module.name, node.id)], False
            elif node.id in module.imports:
                yield from ((d, False) for d in self._imported(module.imports[node.id]))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            receiver = node.value
            if isinstance(receiver, ast.Name) and receiver.id in module.imports:
                target = module.imports[receiver.id]
                source = target.replace(":", ".")
                if (source, node.attr) in self.top_level:
                    yield self.top_level[(source, node.attr)], False
                    return
            if isinstance(receiver, ast.Name):  # `SomeClass.method`: that class's method only
                owners = [self.top_level.get((module.name, receiver.id))]
                if receiver.id in module.imports:
                    owners.extend(self._imported(module.imports[receiver.id]))
                classes = [d for d in owners if d is not None and isinstance(d.node, ast.ClassDef)]
                if classes:
                    for owner in classes:
                        for definition in self.defs_by_name.get(node.attr, ()):
                            if (
                                definition.module == owner.module
                                and definition.qualname == f"{owner.qualname}.{node.attr}"
                            ):
                                yield definition, False
                    return
            if node.attr in GENERIC_NAMES and isinstance(receiver, ast.Name) and receiver.id != "self":
                return
            for definition in self.defs_by_name.get(node.attr, ()):
                if "." in definition.qualname:  # a method (or nested class) reached through an attribute
                    yield definition, True
        elif isinstance(node, ast.ImportFrom | ast.Import):
            return

    def _imported(self, target: str) -> Iterator[Def]:
        source, _, attribute = target.partition(":")
        if not attribute:
            return
        if (source, attribute) in self.top_level:
            yield self.top_level[(source, attribute)]
        elif f"{source}.{attribute}" in self.modules:  # `from package import module`
            yield from (d for d in self.top_level.values() if d.module == f"{source}.{attribute}")
        elif source in self.modules and attribute in self.modules[source].imports:  # re-export
            yield from self._imported(self.modules[source].imports[attribute])

    def _collect(self, module: Module, node: ast.AST, result: Reach) -> None:
        found: set[str] = set()
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and "dynamodb" in module.services
            and "Transaction" in module.imports
            and node.func.attr in TRANSACTION_METHODS
        ):
            found.add(f"transact|{TRANSACTION_METHODS[node.func.attr]}")
        if isinstance(node, ast.Attribute):
            result.setting_fields.add(node.attr)
            for service in module.services:
                operation = service_operations(service).get(node.attr)
                if operation and node.attr not in CLIENT_HELPERS:
                    found.add(f"{service}|{operation}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            result.setting_fields.add(node.value)
            for service in module.services:
                operation = service_operations(service).get(node.value)
                if operation:
                    found.add(f"{service}|{operation}")
            if node.value in TRANSACT_KINDS and "dynamodb" in module.services:
                found.add(f"transact|{node.value}")
            if ENV_NAME.fullmatch(node.value):  # a variable's name, not a message that starts with one
                result.env_names.add(node.value)
        if module.opensearch and not isinstance(node, ast.Import | ast.ImportFrom):
            found.add(OPENSEARCH)
        result.actions |= found
        for item in found:
            result.origins.setdefault(item, set()).add(module.name)

    @staticmethod
    def _finish_actions(result: Reach) -> None:
        raw, result.actions = result.actions, set()
        raw_origins, result.origins = result.origins, {}
        transact = "dynamodb|TransactWriteItems" in raw
        for item in raw:
            if item == OPENSEARCH:
                action = OPENSEARCH
            elif item.startswith("transact|"):
                if not transact:
                    continue
                action = TRANSACT_KINDS[item.split("|")[1]]
            elif item != "dynamodb|TransactWriteItems":
                service, operation = item.split("|")
                action = iam_action(service, operation)
                for also in ALSO_NEEDS.get((service, operation), ()):
                    result.actions.add(also)
                    result.origins.setdefault(also, set()).update(raw_origins[item])
            else:
                continue
            result.actions.add(action)
            result.origins.setdefault(action, set()).update(raw_origins[item])


def _callee_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _walk(node: ast.AST) -> Iterable[ast.AST]:
    """Every node under `node`, without descending into nested function or class definitions' siblings."""
    return ast.walk(node)


@cache
def code_graph() -> CodeGraph:
    return CodeGraph()


# ------------------------------------------------------------------------------------------------ the template side
import pytest  # noqa: E402
from sam_support import condition_values, resolve_conditions, sam_transform  # noqa: E402

# Actions the static analysis reaches that a configuration value keeps off in the deployed stack. Each entry is
# checked: the gating setting really has that value in template.yaml.
CONFIG_GATED = {
    "add_run": ({"bedrock:InvokeModel"}, ("OFFPROMPT_SUMMARIZE_MODE", "async")),  # inline summaries only
    "cloud_threads": ({"bedrock:InvokeModel"}, ("OFFPROMPT_SUMMARIZE_MODE", "async")),  # add-run's inline summaries
}
# Adapters whose calls a function's deployed setting rules out, by the module that makes them: the MCP endpoint's
# append_turn is add-run (its inline summaries: the Bedrock summarizer, never with async summaries), and its
# search_memory may embed queries (adapters/embeddings: BUILT_ONLY_IF_SET below decides those).
CONFIG_GATED_ORIGINS = {
    "mcp_server": ("offprompt.adapters.bedrock", ("OFFPROMPT_SUMMARIZE_MODE", "async")),
}
#: The audit log's store: reached by every function through the handler's wrapper (api_common.audit), called only
#: for a route or direct action declared as audited, or an MCP tool that writes (docs/adr/0056).
AUDIT_STORE = "offprompt.adapters.dynamodb_audit"


def audits(function: str) -> bool:
    import importlib

    routes = getattr(importlib.import_module(f"{function}.handler"), "routes", None)
    if function == "mcp_server":
        return True
    return routes is not None and any(spec.audit for spec in routes.specs)


# Adapters the code builds only when a setting is non-empty (`if settings.embedding_model_id:` in
# composition/task_memory.text_store_from_settings): the calls only they make are expected only when the deployed
# function's environment, resolved for the mode's parameters, sets that variable.
BUILT_ONLY_IF_SET = {
    "offprompt.adapters.embeddings": "OFFPROMPT_EMBEDDING_MODEL_ID",
    "offprompt.adapters.bedrock_rerank": "OFFPROMPT_RERANK_MODEL_ID",  # composition/conversation_index (ADR 0068)
}
# Managed policies SAM attaches: logs for every function, X-Ray (Tracing: Active), stream polling (summarizer).
ALLOWED_MANAGED = {
    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
}
STREAM_POLICY = "arn:aws:iam::aws:policy/service-role/AWSLambdaDynamoDBExecutionRole"
#: SAM's grant for polling an SQS queue (the event source's, not code): the extraction runner's queue (ADR 0051).
QUEUE_POLICY = "arn:aws:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole"
#: The functions the table's stream triggers, and the dead-letter queue of each.
STREAM_CONSUMERS = {
    "summarizer": "SummarizerDeadLetterQueue",
    "memory_events": "EventsDeadLetterQueue",
    "conversation_index": "ConversationIndexDeadLetterQueue",
}
#: The functions invoked asynchronously (EventBridge), and the dead-letter queue SAM lets each send to (issue 36).
ASYNC_DEAD_LETTER_QUEUES = {"example_extractor": "ExampleExtractorDeadLetterQueue"}
MODES = {
    "serverless": {"OpenSearchMode": "serverless"},
    "existing+embeddings": {
        "OpenSearchMode": "existing",
        "OpenSearchEndpoint": "https://search-x.us-east-1.es.amazonaws.com",
        "OpenSearchDomainArn": "arn:aws:es:us-east-1:123456789012:domain/x",
        "EmbeddingModelId": "amazon.titan-embed-text-v2:0",
        "RerankModelId": "amazon.rerank-v1:0",
    },
}
OPENSEARCH_ACTIONS = {
    "serverless": {"aoss:APIAccessAll"},
    "existing+embeddings": {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost", "es:ESHttpPut", "es:ESHttpDelete"},
}


def _missing_modules(graph: CodeGraph, handler: str) -> list[str]:
    """offprompt modules the reachable code imports that do not exist (yet)."""
    missing = set()
    reach = graph.reach(handler)
    nodes = [d.node for ds in graph.defs_by_name.values() for d in ds if (d.module, d.qualname) in reach.defs]
    for top in nodes:
        for node in ast.walk(top):
            if (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("offprompt.")
                and node.level == 0
                and node.module not in graph.modules
            ):
                missing.add(node.module)
    return sorted(missing)


def _functions() -> dict[str, str]:
    cfn = sam_transform()
    return {
        logical_id: r["Properties"]["Handler"].rsplit(".", 1)[0]
        for logical_id, r in cfn["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function"
    }


def _statements(cfn: dict, logical_id: str) -> tuple[list[dict], list]:
    role = cfn["Resources"][f"{logical_id}Role"]["Properties"]
    statements = [s for p in role.get("Policies", []) for s in p["PolicyDocument"]["Statement"]]
    return statements, role.get("ManagedPolicyArns", [])


def _env_value(cfn: dict, logical_id: str, variable: str, parameters: dict[str, str]) -> str:
    """A function's environment variable as deployed with `parameters` (a literal or a parameter's value)."""
    value = cfn["Resources"][logical_id]["Properties"]["Environment"]["Variables"].get(variable, "")
    if isinstance(value, dict) and set(value) == {"Ref"}:
        name = value["Ref"]
        return str(parameters.get(name, cfn["Parameters"][name].get("Default", "")))
    assert isinstance(value, str), (variable, value)  # other intrinsics: extend this resolver
    return value


def _as_list(value: object) -> list:
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("logical_id", sorted(_functions()))
def test_policy_grants_exactly_what_the_code_calls(logical_id: str, mode: str) -> None:
    handler = _functions()[logical_id]
    graph = code_graph()
    missing = _missing_modules(graph, handler)
    assert not missing, f"{handler} imports offprompt modules that do not exist: {', '.join(missing)}"
    reach = graph.reach(handler)
    function = handler.split(".")[0]
    expected = set(reach.actions)
    if function in CONFIG_GATED:
        gated, (variable, value) = CONFIG_GATED[function]
        env = sam_transform()["Resources"][logical_id]["Properties"]["Environment"]["Variables"]
        assert env[variable] == value
        expected -= gated
    origins = dict(reach.origins)
    if function in CONFIG_GATED_ORIGINS:
        module, (variable, value) = CONFIG_GATED_ORIGINS[function]
        env = sam_transform()["Resources"][logical_id]["Properties"]["Environment"]["Variables"]
        assert env[variable] == value
        origins = {action: found - {module} for action, found in origins.items()}
        expected -= {action for action, found in origins.items() if not found}
    if not audits(function):  # the audit wrapper writes only after an audited route or action (docs/adr/0056)
        origins = {action: found - {AUDIT_STORE} for action, found in origins.items()}
        expected -= {action for action, found in origins.items() if not found}
    if OPENSEARCH in expected:
        expected = (expected - {OPENSEARCH}) | OPENSEARCH_ACTIONS[mode]
    if function in STREAM_CONSUMERS or function in ASYNC_DEAD_LETTER_QUEUES:  # SAM's grant for the stream's
        expected.add("sqs:SendMessage")  # on-failure destination or the function's dead-letter queue (not code)

    cfn = sam_transform(MODES[mode])
    for module, variable in BUILT_ONLY_IF_SET.items():
        if not _env_value(cfn, logical_id, variable, MODES[mode]):
            origins = {action: found - {module} for action, found in origins.items()}
            expected -= {a for a in expected if a in origins and not origins[a]}
    resolved = resolve_conditions(cfn, condition_values(cfn, MODES[mode]))
    statements, managed = _statements(resolved, logical_id)
    granted = set()
    for statement in statements:
        assert statement["Effect"] == "Allow"
        actions = _as_list(statement["Action"])
        assert all("*" not in a for a in actions), statement  # no wildcard actions
        for resource in _as_list(statement["Resource"]):
            if resource == "*":
                assert set(actions) <= NO_RESOURCE_TYPE, statement
                continue
            _check_scope(actions, resource)
        granted |= set(actions)
    assert granted == expected, f"granted - code: {granted - expected}; code - granted: {expected - granted}"
    # the stream consumers: the summarizer, the memory events, and records (expired records' bodies and documents)
    allowed = ALLOWED_MANAGED | ({STREAM_POLICY} if function in (*STREAM_CONSUMERS, "records") else set())
    allowed |= {QUEUE_POLICY} if function == "extraction" else set()
    assert set(managed) <= allowed


def _check_scope(actions: list[str], resource: object) -> None:
    text = json.dumps(resource)
    for action in actions:
        prefix = action.split(":")[0]
        if action == "dynamodb:Query" and resource in (
            {"Fn::Sub": "${MemoryTable.Arn}/index/TenantRoots"},  # tenant export/erase, GET /threads (ADR 0024)
            {"Fn::Sub": "${MemoryTable.Arn}/index/TenantActivity"},  # GET /threads newest first (ADR 0054)
        ):
            continue
        if prefix == "dynamodb":
            assert resource == {"Fn::GetAtt": ["MemoryTable", "Arn"]}, (action, resource)
        elif action == "s3:ListBucket":
            assert resource == {"Fn::GetAtt": ["BlobBucket", "Arn"]}, (action, resource)
        elif prefix == "s3":
            # the bucket's objects, or one root of them (the checkpoints function: docs/adr/0039)
            scopes = [{"Fn::Sub": "${BlobBucket.Arn}/*"}, {"Fn::Sub": "${BlobBucket.Arn}/checkpoints/*"}]
            assert resource in scopes, (action, resource)
        elif prefix == "aoss":
            assert resource == {"Fn::GetAtt": ["OpenSearchCollection", "Arn"]}, (action, resource)
        elif prefix == "es":
            assert resource == {"Fn::Sub": "${OpenSearchDomainArn}/*"}, (action, resource)
        elif prefix == "sqs":
            # + the runner's delayed checks (ADR 0051)
            queues = [*STREAM_CONSUMERS.values(), *ASYNC_DEAD_LETTER_QUEUES.values(), "ExtractionQueue"]
            assert resource in [{"Fn::GetAtt": [queue, "Arn"]} for queue in queues], (
                action,
                resource,
            )
        elif prefix == "secretsmanager":  # the token signing secret only (docs/adr/0055)
            assert resource == {"Ref": "TokenSecret"}, (action, resource)
        elif prefix == "events":  # the memory events: the stack's own bus, nothing else
            assert resource == {"Fn::GetAtt": ["MemoryEventBus", "Arn"]}, (action, resource)
        elif prefix == "bedrock":
            assert "foundation-model/${" in text and "*" not in text, (action, resource)
        else:
            raise AssertionError(f"unexpected action {action}")


def test_only_text_users_are_principals_of_the_collection_access_policy() -> None:
    cfn = sam_transform()
    graph = code_graph()
    text_users = set()
    for logical_id, handler in _functions().items():
        missing = _missing_modules(graph, handler)
        assert not missing, f"{handler} imports offprompt modules that do not exist: {', '.join(missing)}"
        if OPENSEARCH in graph.reach(handler).actions:
            text_users.add(logical_id)
    policy = cfn["Resources"]["OpenSearchDataAccessPolicy"]["Properties"]["Policy"]["Fn::Sub"][1]
    assert {v["Fn::GetAtt"][0].removesuffix("Role") for v in policy.values()} == text_users


def test_the_scanner_sees_what_it_must() -> None:
    # Guards the analysis itself: known calls in the adapters are recognised.
    graph = code_graph()
    assert "dynamodb:PutItem" in graph.reach("add_run.handler").actions  # a Transaction's Put items
    assert graph.reach("add_run.handler").origins["dynamodb:PutItem"] == {
        "offprompt.adapters.dynamodb_runs",
        AUDIT_STORE,
    }
    # a part of an adapter (a mixin on the class that builds the client, docs/adr/0058) is seen calling its service
    assert graph.reach("threads.handler").origins["dynamodb:DeleteItem"] == {"offprompt.adapters.dynamodb_run_deletes"}
    # the key check and the token secret (read once per environment), nothing else
    assert graph.reach("authorizer.handler").actions == {"dynamodb:GetItem", "secretsmanager:GetSecretValue"}
    assert "s3:ListBucket" in graph.reach("memories.handler").actions  # get_paginator("list_objects_v2")
    assert "bedrock:InvokeModel" in graph.reach("summarizer.handler").actions  # converse
    assert graph.reach("example_tool.handler").actions == set()
    assert OPENSEARCH in graph.reach("memories.handler").actions  # the text store's client calls
    assert graph.reach("memories.handler").origins["bedrock:InvokeModel"] == {"offprompt.adapters.embeddings"}
    # conversation search's rerank model (docs/adr/0068): the Rerank call, and the model it invokes
    rerank = {"offprompt.adapters.bedrock_rerank"}
    assert graph.reach("threads.handler").origins["bedrock:Rerank"] == rerank
    assert rerank <= graph.reach("mcp_server.handler").origins["bedrock:InvokeModel"]


# OpenSearch Serverless data access permissions (docs/adr/0030-opensearch-serverless.md, AWS "Supported operations
# and plugins in Amazon OpenSearch Serverless"): which permission each opensearch-py call of the adapters needs.
AOSS_PERMISSION = {
    "indices.create": "aoss:CreateIndex",
    "indices.exists": "aoss:DescribeIndex",
    "indices.put_mapping": "aoss:UpdateIndex",
    "index": "aoss:WriteDocument",
    "update": "aoss:WriteDocument",
    "search": "aoss:ReadDocument",
    "msearch": "aoss:ReadDocument",
    "count": "aoss:ReadDocument",
    "mget": "aoss:ReadDocument",
    "bulk": "aoss:WriteDocument",
}
# Calls only the managed-domain path makes (the Serverless mode never sends them: the Serverless-faithful proxy
# refuses them, and tests/integration/test_text_store_contract.py checks it refused nothing in that mode).
DOMAIN_ONLY_CALLS = {"indices.refresh", "delete_by_query", "create"}
AOSS_ADAPTERS = {
    "opensearch_text": "OpenSearchTextStore",
    "tenant_documents": "OpenSearchTenantDocuments",
    "opensearch_records": "OpenSearchRecordIndex",
}


def _opensearch_calls(module: str, cls: str) -> set[str]:
    """`self.client.<op>(...)` and `self.client.indices.<op>(...)` calls of an adapter class."""
    tree = ast.parse((ROOT / "layers/offprompt/offprompt/adapters" / f"{module}.py").read_text())
    (owner,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    calls = set()
    for node in ast.walk(owner):
        if not isinstance(node, ast.Attribute):
            continue
        chain = [node.attr]
        value = node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        chain.reverse()
        if chain[:1] == ["client"] and len(chain) in (2, 3) and isinstance(value, ast.Name) and value.id == "self":
            calls.add(".".join(chain[1:]))
    return calls - {"indices"}


def test_the_collection_access_policy_grants_what_the_adapters_send_on_the_one_index() -> None:
    cfn = sam_transform()
    collection = cfn["Resources"]["OpenSearchCollection"]["Properties"]
    assert collection["Type"] == "VECTORSEARCH"  # k-NN and hybrid need it; BM25 works there too
    calls = set().union(*(_opensearch_calls(m, c) for m, c in AOSS_ADAPTERS.items()))
    assert {"bulk", "search", "indices.create"} <= calls  # the scan sees the calls
    assert calls - DOMAIN_ONLY_CALLS <= set(AOSS_PERMISSION), f"no permission known for {calls - set(AOSS_PERMISSION)}"
    needed = {AOSS_PERMISSION[c] for c in calls - DOMAIN_ONLY_CALLS}
    (rule,) = json.loads(cfn["Resources"]["OpenSearchDataAccessPolicy"]["Properties"]["Policy"]["Fn::Sub"][0])
    (grant,) = rule["Rules"]
    assert grant["ResourceType"] == "index"
    assert grant["Resource"] == ["index/${AWS::StackName}-text/${OpenSearchIndex}"]
    assert set(grant["Permission"]) == needed
