"""Use case: a tenant's extraction strategies — put (create or replace), get, list, delete (docs/adr/0051). Handler:
functions/extraction (`PUT/GET/DELETE /extraction/strategies[/{name}]`, direct `put_strategy`, `get_strategy`,
`list_strategies`, `delete_strategy`).

A name is a namespace label (an identifier without "."); the namespace template's labels and variables, and a custom
strategy's instructions, are 400 `invalid_input`; a body of the wrong shape 422. Deleting a strategy keeps the
records it wrote and its statuses (an erase removes them).
"""

from __future__ import annotations

from typing import Any

from offprompt.errors import NotFound
from offprompt.memory.extraction import (
    MAX_STRATEGIES,
    check_instructions,
    check_strategy_name,
    check_template,
)
from offprompt.memory.records import iso, millis
from offprompt.services.extraction.context import Extractions
from offprompt.services.extraction.requests import StrategyPut


class StrategyNotFound(NotFound):
    code = "strategy_not_found"

    def __init__(self, name: str) -> None:
        super().__init__(f'no extraction strategy "{name[:100]}"', details={"name": name})


def put_strategy(ext: Extractions, tenant: str, name: str, request: StrategyPut) -> dict[str, Any]:
    check_strategy_name(name)
    check_template(request.namespace)
    check_instructions(request.type, request.instructions)
    now = iso(millis(ext.clock()))
    strategy = {
        "name": name,
        "type": request.type,
        "namespace": request.namespace,
        "trigger": request.trigger.model_dump(),
        "instructions": request.instructions,
        "enabled": request.enabled,
        "created_at": now,
        "updated_at": now,
    }
    return ext.store.put_strategy(tenant, strategy, max_strategies=MAX_STRATEGIES)


def get_strategy(ext: Extractions, tenant: str, name: str) -> dict[str, Any]:
    check_strategy_name(name)
    found = ext.store.get_strategy(tenant, name)
    if found is None:
        raise StrategyNotFound(name)
    return found


def list_strategies(ext: Extractions, tenant: str) -> dict[str, Any]:
    return {"strategies": ext.store.list_strategies(tenant)}


def delete_strategy(ext: Extractions, tenant: str, name: str) -> bool:
    """Whether there was one (a delete is idempotent)."""
    check_strategy_name(name)
    return ext.store.delete_strategy(tenant, name)
