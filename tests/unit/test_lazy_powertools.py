"""api_common.powertools: the functions get Powertools' HTTP resolver without the package's every-resolver
`__init__` (AppSync, asyncio, ...), and every name of the package still resolves when asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from probe_support import probe

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = ["add_run", "prompt_stack", "threads", "summarizer", "process_output", "load_artifacts", "memories"]


@pytest.mark.parametrize("handler", HANDLERS)
def test_importing_a_handler_skips_the_other_resolvers(handler: str) -> None:
    state = probe(
        f"import json, sys; import {handler}.handler; "
        "print(json.dumps(sorted(m for m in ['asyncio', 'aws_lambda_powertools.event_handler.appsync', "
        "'aws_lambda_powertools.event_handler.bedrock_agent', 'aws_lambda_powertools.event_handler.vpc_lattice', "
        "'aws_lambda_powertools.utilities.data_classes.sqs_event', "
        "'aws_lambda_powertools.utilities.data_classes.kafka_event'] "
        "if m in sys.modules)))"
    )
    assert state == []


def test_every_name_of_the_package_still_resolves() -> None:
    state = probe(
        "import json, sys\n"
        "import api_common.entry\n"
        "from aws_lambda_powertools.event_handler import content_types, APIGatewayHttpResolver\n"
        "submodule_only = 'aws_lambda_powertools.event_handler.appsync' not in sys.modules\n"
        "from aws_lambda_powertools.event_handler import AppSyncResolver, APIGatewayRestResolver\n"
        "from aws_lambda_powertools.event_handler.api_gateway import APIGatewayHttpResolver as Direct\n"
        "import aws_lambda_powertools.event_handler as package\n"
        "print(json.dumps({'submodule_only': submodule_only, 'same': APIGatewayHttpResolver is Direct,\n"
        "  'appsync': AppSyncResolver.__name__, 'json': content_types.APPLICATION_JSON,\n"
        "  'all': sorted(set(package.__all__) - set(vars(package)))}))"
    )
    assert state == {
        "submodule_only": True,
        "same": True,
        "appsync": "AppSyncResolver",
        "json": "application/json",
        "all": [],
    }


def test_every_event_class_still_resolves() -> None:
    state = probe(
        "import json, sys\n"
        "import api_common.entry\n"
        "import aws_lambda_powertools.utilities.data_classes as package\n"
        "from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2\n"
        "from aws_lambda_powertools.utilities.data_classes.api_gateway_proxy_event import APIGatewayProxyEventV2 as D\n"
        "lazy = 'aws_lambda_powertools.utilities.data_classes.s3_event' not in sys.modules\n"
        "from aws_lambda_powertools.utilities.data_classes import SQSEvent, S3Event\n"
        "print(json.dumps({'lazy': lazy, 'same': APIGatewayProxyEventV2 is D, 'sqs': SQSEvent.__name__,\n"
        "  'all': sorted(set(package.__all__) - set(vars(package)))}))"
    )
    assert state == {"lazy": True, "same": True, "sqs": "SQSEvent", "all": []}


def test_a_missing_name_is_an_attribute_error() -> None:
    state = probe(
        "import json\nimport api_common\nimport aws_lambda_powertools.event_handler as p\n"
        "try:\n    p.NoSuchResolver\nexcept AttributeError as e:\n    print(json.dumps(str(e)))"
    )
    assert "NoSuchResolver" in state


#: Powertools' top-level `__init__` imports its Logger, Metrics and Tracer (~20 ms of a cold start past boto3's
#: imports); a function whose request logs nothing and records no metric does not need them (issue 34).
OBSERVABILITY_MODULES = [
    "aws_lambda_powertools.logging.logger",
    "aws_lambda_powertools.metrics.base",
    "aws_lambda_powertools.tracing.tracer",
]
QUIET_HANDLERS = ["threads", "process_output", "load_artifacts", "memories", "mcp_server"]


@pytest.mark.parametrize("handler", QUIET_HANDLERS)
def test_importing_a_quiet_handler_skips_powertools_observability(handler: str) -> None:
    state = probe(
        f"import json, sys; import {handler}.handler; "
        f"print(json.dumps(sorted(m for m in {OBSERVABILITY_MODULES!r} if m in sys.modules)))"
    )
    assert state == []


def test_the_top_level_package_completes_on_demand_with_its_side_effects_once() -> None:
    state = probe(
        "import json, logging, sys\n"
        "import api_common.entry\n"
        "import botocore\n"
        "lazy = 'aws_lambda_powertools.logging.logger' not in sys.modules\n"
        "quiet = [type(h).__name__ for h in logging.getLogger('aws_lambda_powertools').handlers]\n"
        "agents = sum(getattr(f, '__name__', '') == '_initializer_botocore_session' for f in botocore._INITIALIZERS)\n"
        "from aws_lambda_powertools import Logger, Metrics, Tracer, single_metric\n"
        "import aws_lambda_powertools as package\n"
        "after = sum(getattr(f, '__name__', '') == '_initializer_botocore_session' for f in botocore._INITIALIZERS)\n"
        "print(json.dumps({'lazy': lazy, 'quiet': quiet, 'agents': [agents, after], 'names': [Logger.__name__,\n"
        "  Metrics.__name__, Tracer.__name__], 'all': sorted(set(package.__all__) - set(vars(package))),\n"
        "  'version': bool(package.__version__)}))"
    )
    assert state == {
        "lazy": True,
        "quiet": ["NullHandler"],
        "agents": [1, 1],
        "names": ["Logger", "Metrics", "Tracer"],
        "all": [],
        "version": True,
    }


def test_a_name_asked_for_while_another_thread_completes_the_package_waits_for_it(tmp_path: Path) -> None:
    # The race behind an intermittent 500 on a fresh stack: thread A's first log completes `aws_lambda_powertools`
    # (its real __init__ runs); thread B asks for `Logger` meanwhile. The package must not look complete to B
    # (no __getattr__, `Logger` not yet defined: "cannot import name 'Logger'") before A's __init__ has run.
    package = tmp_path / "slowpkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import slowpkg_gate\nslowpkg_gate.entered.set()\nslowpkg_gate.proceed.wait(30)\nLogger = 'the logger'\n"
    )
    gate = "import threading\nentered = threading.Event()\nproceed = threading.Event()\n"
    (tmp_path / "slowpkg_gate.py").write_text(gate)
    state = probe(
        "import json, threading\n"
        "import slowpkg_gate\n"
        "from api_common.powertools import install_lazy_package\n"
        "install_lazy_package('slowpkg')\n"
        "results = {}\n"
        "def ask(who):\n"
        "    try:\n"
        "        from slowpkg import Logger\n"
        "        results[who] = Logger\n"
        "    except ImportError as exc:\n"
        "        results[who] = f'ImportError: {exc}'\n"
        "a = threading.Thread(target=ask, args=('a',)); a.start()\n"
        "assert slowpkg_gate.entered.wait(30)\n"  # A is inside the package's __init__
        "b = threading.Thread(target=ask, args=('b',)); b.start()\n"
        "b.join(0.5)\n"  # before the fix B fails at once; after it, B waits for A
        "early = dict(results)\n"
        "slowpkg_gate.proceed.set(); a.join(30); b.join(30)\n"
        "print(json.dumps({'early': early, 'results': results}))",
        tmp_path,
    )
    assert state == {"early": {}, "results": {"a": "the logger", "b": "the logger"}}
