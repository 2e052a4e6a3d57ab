"""prompt-stack: `POST /threads/{thread_id}/prompt-stack` → Griptape PromptStack JSON.

Body `{system?, input?, max_tokens?, last_n?, memory_index?}` (system/input: a string or an artifact JSON
object). Direct invocation: the same fields plus `tenant` and `thread_id`; returns the PromptStack JSON.
"""

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import (
    current_tenant,
    json_response,
    make_handler,
    model_body,
    observability,
    path_param,
)
from api_common.powertools import APIGatewayHttpResolver, Response
from offprompt.errors import InvalidInput
from offprompt.services.conversation import PromptStackRequest, default_service, parse_model


def build(tenant: str, thread_id: str, request: PromptStackRequest) -> dict[str, Any]:
    stack = default_service().prompt_stack(tenant, thread_id, request)
    _, metrics = observability()
    metrics.add_metric(name="PromptStacksBuilt", unit=MetricUnit.Count, value=1)
    return stack.to_dict()


def register(app: APIGatewayHttpResolver) -> None:
    @app.post("/threads/<thread_id>/prompt-stack")
    def post_prompt_stack(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        request = model_body(app, PromptStackRequest)
        return json_response(build(tenant, path_param(app, "thread_id", thread_id), request))


def direct(tenant: str, event: dict[str, Any]) -> dict[str, Any]:
    if "thread_id" not in event:
        raise InvalidInput('a direct invocation must name its "thread_id"')
    fields = {k: v for k, v in event.items() if k not in ("tenant", "thread_id", "action")}
    return build(tenant, event["thread_id"], parse_model(PromptStackRequest, fields))


lambda_handler = make_handler(register, direct)
