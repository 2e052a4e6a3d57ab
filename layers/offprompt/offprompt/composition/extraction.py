"""Extraction strategies built from settings (docs/adr/0051): the strategy and status store, the runs it reads, the
records it writes (`composition.records`), the model (`OFFPROMPT_EXTRACTION_MODEL`, built on first use: the routes
never configure one), the account store (the plan's extraction tokens, the usage counter) and the queue of delayed
checks."""

from __future__ import annotations

import functools

from offprompt.composition.events import publisher_overridden as events_override
from offprompt.config import Settings
from offprompt.errors import ConfigurationError
from offprompt.ports import Deferrer, ExtractionModel
from offprompt.services.extraction.context import Extractions

#: Where a local Ollama answers Chat Completions (`ollama:<model>`).
OLLAMA_URL = "http://127.0.0.1:11434/v1"

#: A test or the local stack installs the queue of delayed checks here (None: SQS when a queue URL is set).
_deferrer_override: Deferrer | None = None


def set_deferrer_override(deferrer: Deferrer | None) -> None:
    global _deferrer_override
    _deferrer_override = deferrer
    default_extractions.cache_clear()


def model_from_settings(settings: Settings) -> ExtractionModel:
    """`rules` | `openai:<model>` | `bedrock:<model id>` (| `ollama:<model>`: `openai:` at a local Ollama's `/v1`
    unless a base URL is set); anything else is a configuration error."""
    spec = settings.extraction_model.strip()
    kind, _, name = spec.partition(":")
    if spec == "rules":
        from offprompt.adapters.extraction_models import RulesModel

        return RulesModel()
    if kind == "openai" and name:
        from offprompt.adapters.extraction_models import OpenAIChatModel

        return OpenAIChatModel(name, settings.extraction_base_url, settings.extraction_api_key)
    if kind == "ollama" and name:  # a local Ollama's OpenAI-compatible endpoint: one variable for `make dev`
        from offprompt.adapters.extraction_models import OpenAIChatModel

        base = settings.extraction_base_url
        default = Settings.model_fields["extraction_base_url"].default
        ollama = OpenAIChatModel(name, OLLAMA_URL if base == default else base, settings.extraction_api_key)
        ollama.label = f"ollama:{name}"
        return ollama
    if kind == "bedrock" and name:
        from offprompt.adapters.extraction_models import BedrockConverseModel

        return BedrockConverseModel(name)
    raise ConfigurationError(
        f'OFFPROMPT_EXTRACTION_MODEL must be "rules", "openai:<model>", "bedrock:<model id>" or "ollama:<model>", '
        f"not {spec[:100]!r}"
    )


def extractions_from_settings(settings: Settings) -> Extractions:
    from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
    from offprompt.adapters.dynamodb_extraction import DynamoDbExtractionStore
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies
    from offprompt.adapters.sqs import SqsDeferrer
    from offprompt.composition.records import records_from_settings
    from offprompt.services.conversation.context import InlineRunBodies

    table = settings.require("table_name")
    publisher = None
    if settings.event_bus_name or events_override():
        from offprompt.composition.events import events_from_settings

        publisher = events_from_settings(settings).publisher
    deferrer = _deferrer_override
    if deferrer is None and settings.extraction_queue_url:
        deferrer = SqsDeferrer(settings.extraction_queue_url)
    return Extractions(
        DynamoDbExtractionStore(table),
        DynamoDbRunStore(table),
        S3RunBodies(settings.bucket_name) if settings.bucket_name else InlineRunBodies(),
        records_from_settings(settings),
        model=functools.partial(model_from_settings, settings),
        account=DynamoDbAccountStore(table),
        deferrer=deferrer,
        publisher=publisher,
    )


@functools.cache
def default_extractions() -> Extractions:
    """The process's extraction context, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return extractions_from_settings(get_settings())
