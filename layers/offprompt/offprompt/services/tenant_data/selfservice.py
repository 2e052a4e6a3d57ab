"""The tenant's own export and erase (`POST /export`, `DELETE /tenant`): the same use cases the operator runs."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from offprompt.errors import InvalidInput
from offprompt.limits import EXPORT_EXPIRES_IN
from offprompt.services.tenant_data.erase import EraseReport, erase_tenant
from offprompt.services.tenant_data.export import S3ExportSink, export_tenant
from offprompt.services.tenant_data.ports import TenantStores


class EraseRequest(BaseModel):
    """`DELETE /tenant` body: `confirm` must repeat the caller's own tenant id."""

    model_config = ConfigDict(extra="forbid")

    confirm: str | None = Field(default=None, max_length=1024, description="The caller's tenant id, typed out")


def export_self(tenant: str, stores: TenantStores) -> dict[str, Any]:
    now = datetime.now(UTC)
    export_id = now.strftime("%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:8]
    sink = S3ExportSink(stores.objects, stores.objects.export_prefix(tenant, export_id), EXPORT_EXPIRES_IN)
    created_at = now.isoformat(timespec="seconds").replace("+00:00", "Z")
    result = export_tenant(tenant, stores, sink, export_id=export_id, created_at=created_at)
    return {**result.to_dict(), "expires_in": EXPORT_EXPIRES_IN} if result.complete else result.to_dict()


def erase_self(tenant: str, request: EraseRequest, stores: TenantStores, *, with_keys: bool) -> EraseReport:
    """The caller's own erase. `with_keys`: the caller authenticated with one of the tenant's API keys, which are
    fenced first and removed last (the erase answers "erasing" until no earlier request can still land a write)."""
    if request.confirm != tenant:
        raise InvalidInput('to erase every thread, memory and export of this tenant, send {"confirm": "<tenant id>"}')
    return erase_tenant(tenant, stores, fence=with_keys)
