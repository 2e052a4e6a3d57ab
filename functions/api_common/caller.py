"""Who is calling: the tenant comes from the authorizer, never from the request body.

- HTTP API + API-key authorizer (AuthMode=apikey; functions/authorizer): `requestContext.authorizer.lambda`
  carries the key's tenant and plan (the local dev server runs the same authorizer for `Bearer op_...`).
- HTTP API + JWT authorizer: the claim named by OFFPROMPT_TENANT_CLAIM (default `sub`).
- HTTP API + IAM authorizer: the caller's account id and IAM principal ARN.
- Local stack only (OFFPROMPT_TRUST_TENANT_HEADER): the X-Offprompt-Tenant header, default `local`.
- Direct invocation (Step Functions `lambda:invoke`): the payload's `tenant` field; the invoker is already
  authorized by IAM to call the function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from offprompt.config import Settings
from offprompt.errors import InvalidInput, Unauthenticated
from offprompt.identifiers import check_identifier

if TYPE_CHECKING:
    from offprompt.services.account.service import Principal

LOCAL_TENANT_HEADER = "x-offprompt-tenant"

__all__ = ["LOCAL_TENANT_HEADER", "Unauthenticated", "direct_tenant", "hosted_principal", "http_tenant"]


def hosted_principal(event: dict[str, Any]) -> Principal | None:
    """The API-key authorizer's principal (tenant and plan) of an HTTP event, else None."""
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    context = authorizer.get("lambda") if isinstance(authorizer, dict) else None
    if not isinstance(context, dict) or not context.get("tenant"):
        return None
    # imported by the first request with such a principal: a JWT, IAM or local deployment never needs the account
    # service's modules (issue 34, docs/adr/0063)
    from offprompt.services.account.service import Principal

    return Principal.from_context(context)


def http_tenant(event: dict[str, Any], settings: Settings) -> str:
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    principal = hosted_principal(event)
    if principal is not None:
        return check_identifier("tenant", principal.tenant)
    claims = (authorizer.get("jwt") or {}).get("claims") or {}
    if settings.tenant_claim in claims:
        return check_identifier("tenant", str(claims[settings.tenant_claim]))
    iam = authorizer.get("iam") or {}
    if iam.get("userArn"):
        return check_identifier("tenant", f"{iam.get('accountId', '')}:{iam['userArn']}")
    if settings.trust_tenant_header:
        headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
        return check_identifier("tenant", headers.get(LOCAL_TENANT_HEADER) or "local")
    raise Unauthenticated("no tenant: the request carries no authorizer identity")


def direct_tenant(event: dict[str, Any]) -> str:
    if "tenant" not in event:
        raise InvalidInput('a direct invocation must name its "tenant"')
    return check_identifier("tenant", event["tenant"])
