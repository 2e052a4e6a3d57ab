"""prompt-stack: `POST /threads/{thread_id}/prompt-stack` → Griptape PromptStack JSON.

Body `{system?, input?, max_tokens?, last_n?, memory_index?}` (system/input: a string or an artifact JSON
object), validated by the library's `PromptStackRequest` on both paths. The body stays Griptape's PromptStack
JSON; the headers `X-Offprompt-Prompt-Tokens` (tokens of the rendered stack) and `X-Offprompt-Over-Budget`
(`true` when `max_tokens` is smaller than the system and input alone, so no budget could be kept) report on it.
Direct invocation: the same fields plus `tenant` and `thread_id`; returns the PromptStack JSON unchanged (the
count and the over-budget flag go to the log line and the metrics; docs/adr/0017-api-contract.md).

Use case: `offprompt.services.conversation.prompt_stack`.
"""

from typing import Annotated, Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import direct_field, direct_fields, json_text_response, observability
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Response
from api_common.routes import FunctionRoutes, json_content
from api_common.scope_rules import read
from offprompt.composition.conversation import default_service, prime_conversation
from offprompt.metering import Meter
from offprompt.services.conversation import PromptStackRequest, PromptStackResult, parse_model
from offprompt.services.conversation.prompt_stack import build_prompt_stack

TOKENS_HEADER = "X-Offprompt-Prompt-Tokens"
OVER_BUDGET_HEADER = "X-Offprompt-Over-Budget"

routes = FunctionRoutes("prompt_stack", default_action="prompt_stack", prime=prime_conversation)


def build(tenant: str, thread_id: str, request: PromptStackRequest) -> tuple[PromptStackResult, int, bool]:
    result = build_prompt_stack(default_service(), tenant, thread_id, request)
    tokens = result.tokens
    over = request.max_tokens is not None and tokens >= request.max_tokens
    logger, metrics = observability()
    metrics.add_metric(name="PromptStacksBuilt", unit=MetricUnit.Count, value=1)
    if over:
        metrics.add_metric(name="PromptStacksOverBudget", unit=MetricUnit.Count, value=1)
    logger.info("prompt stack built", extra={"prompt_tokens": tokens, "over_budget": over})
    return result, tokens, over


_HEADERS = {
    TOKENS_HEADER: {"description": "Tokens of the rendered prompt stack", "schema": {"type": "integer"}},
    OVER_BUDGET_HEADER: {
        "description": "true when max_tokens is smaller than the system and input messages alone",
        "schema": {"type": "string", "enum": ["true", "false"]},
    },
}


@routes.post(
    "/threads/{thread_id}/prompt-stack",
    scope=read("threads", path="thread_id"),
    audit=False,  # reads only (docs/adr/0056)
    action="prompt_stack",
    summary="Build Griptape's PromptStack from a thread's memory",
    responses={
        200: json_content("PromptStackJSON", "Griptape PromptStack JSON", headers=_HEADERS),
        **error_responses(),
    },
)
def post_prompt_stack(
    thread_id: Annotated[str, Path()], request: Annotated[PromptStackRequest, Body()]
) -> Response[Any]:
    result, tokens, over = build(routes.tenant(), routes.param("thread_id", thread_id), request)
    headers = {TOKENS_HEADER: str(tokens), OVER_BUDGET_HEADER: "true" if over else "false"}
    return json_text_response(result.to_json(), headers=headers)


@routes.direct("prompt_stack")
def prompt_stack_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> dict[str, Any]:
    thread_id = direct_field(event, "thread_id")
    request = parse_model(PromptStackRequest, direct_fields(event, "thread_id"))
    return build(tenant, thread_id, request)[0].stack.to_dict()


register = routes.register
lambda_handler = routes.handler()
