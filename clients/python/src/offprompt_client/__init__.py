"""offprompt's HTTP client (standard library only). Griptape drivers: `offprompt_client.griptape` (extra `griptape`)."""

from offprompt_client.client import (
    TENANT_HEADER,
    OffpromptClient,
    OffpromptClientError,
    OffpromptConnectionError,
    Response,
)

__all__ = ["TENANT_HEADER", "OffpromptClient", "OffpromptClientError", "OffpromptConnectionError", "Response"]
