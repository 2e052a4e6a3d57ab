"""Settings read from the environment, validated on first use (never at import).

Each variable appears in exactly two places: here and in template.yaml (checked by tests/infrastructure).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.errors import ConfigurationError


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    table_name: str | None = Field(default=None, alias="OFFPROMPT_TABLE")
    bucket_name: str | None = Field(default=None, alias="OFFPROMPT_BUCKET")
    opensearch_url: str | None = Field(default=None, alias="OFFPROMPT_OPENSEARCH_URL")
    opensearch_index: str = Field(default="offprompt-text", alias="OFFPROMPT_OPENSEARCH_INDEX")
    # How requests to OpenSearch are signed: SigV4 for a managed domain ("es") or Serverless ("aoss").
    opensearch_auth: Literal["none", "sigv4-es", "sigv4-aoss"] = Field(
        default="none", alias="OFFPROMPT_OPENSEARCH_AUTH"
    )
    # Which API the text store speaks: a managed domain's (deterministic ids, mget, delete-by-query, refresh) or
    # OpenSearch Serverless's subset (server-generated ids, no refresh; docs/adr/0030-opensearch-serverless.md).
    opensearch_mode: Literal["domain", "serverless"] = Field(default="domain", alias="OFFPROMPT_OPENSEARCH_MODE")
    summary_model_id: str = Field(default="amazon.nova-micro-v1:0", alias="OFFPROMPT_SUMMARY_MODEL_ID")
    # "inline" summarizes right after add-run (local stack); "async" leaves it to the summarizer function.
    summarize_mode: Literal["inline", "async", "off"] = Field(default="async", alias="OFFPROMPT_SUMMARIZE_MODE")
    embedding_model_id: str | None = Field(default=None, alias="OFFPROMPT_EMBEDDING_MODEL_ID")
    embedding_dimensions: int = Field(default=1024, alias="OFFPROMPT_EMBEDDING_DIMENSIONS")
    # Conversation search's optional rerank model (Bedrock Rerank API: a model id or ARN; docs/adr/0068). "": off.
    rerank_model_id: str = Field(default="", alias="OFFPROMPT_RERANK_MODEL_ID")
    # JWT claim that names the tenant (HTTP API JWT authorizer).
    tenant_claim: str = Field(default="sub", alias="OFFPROMPT_TENANT_CLAIM")
    # The model the example extractor (functions/example_extractor) asks for facts (Bedrock Converse).
    extraction_model_id: str = Field(default="amazon.nova-micro-v1:0", alias="OFFPROMPT_EXTRACTION_MODEL_ID")
    # The model extraction strategies ask (docs/adr/0051): "rules" (the local rule-based stand-in, labelled),
    # "openai:<model>" (any OpenAI-compatible Chat Completions endpoint at the base URL, with the key) or
    # "bedrock:<model id>" (Converse).
    extraction_model: str = Field(default="rules", alias="OFFPROMPT_EXTRACTION_MODEL")
    extraction_base_url: str = Field(default="https://api.openai.com/v1", alias="OFFPROMPT_EXTRACTION_BASE_URL")
    extraction_api_key: str | None = Field(default=None, alias="OFFPROMPT_EXTRACTION_API_KEY")
    # The extraction runner's queue (SQS): memory events and its own delayed checks (idle triggers, retries).
    extraction_queue_url: str | None = Field(default=None, alias="OFFPROMPT_EXTRACTION_QUEUE_URL")
    # The EventBridge bus the memory events go to (functions/memory_events; docs/adr/0036-memory-events.md).
    event_bus_name: str | None = Field(default=None, alias="OFFPROMPT_EVENT_BUS")
    # Web origins (`https://app.example.com`, comma-separated) whose pages may call the MCP endpoint besides the API's
    # own origin; a request with any other `Origin` is a 403 (docs/adr/0044-front-door.md). Empty: none.
    mcp_allowed_origins: str = Field(default="", alias="OFFPROMPT_MCP_ALLOWED_ORIGINS")
    # The secret short-lived tokens are signed with (docs/adr/0055): deployed, a Secrets Manager secret the template
    # generates (its ARN); locally, the value itself (the local stack generates one in its data directory).
    token_secret_arn: str | None = Field(default=None, alias="OFFPROMPT_TOKEN_SECRET_ARN")
    token_secret: str | None = Field(default=None, alias="OFFPROMPT_TOKEN_SECRET", repr=False)
    # Local stack only: take the tenant from the X-Offprompt-Tenant header. Never set in template.yaml.
    trust_tenant_header: bool = Field(default=False, alias="OFFPROMPT_TRUST_TENANT_HEADER")

    def mcp_origins(self) -> frozenset[str]:
        """`mcp_allowed_origins` as a set of origins, lower-case, without a trailing slash."""
        return frozenset(
            part.strip().lower().rstrip("/") for part in self.mcp_allowed_origins.split(",") if part.strip()
        )

    def require(self, field: str) -> str:
        value = getattr(self, field)
        if not value:
            alias = type(self).model_fields[field].alias
            raise ConfigurationError(f"{alias} is not set for this function")
        return str(value)


def load_settings(environ: Mapping[str, str]) -> Settings:
    try:
        return Settings.model_validate({k: v for k, v in environ.items() if k.startswith("OFFPROMPT_")})
    except ValidationError as exc:
        raise ConfigurationError(f"invalid configuration: {exc.errors(include_url=False)}") from None


@functools.cache
def get_settings() -> Settings:
    """The process's settings, read once on first use."""
    return load_settings(os.environ)
