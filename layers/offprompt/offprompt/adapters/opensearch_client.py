"""The opensearch-py client: plain HTTP(S) locally, SigV4-signed for Amazon OpenSearch Service / Serverless.

Nothing is built (and opensearch-py is not even imported) at import time. `opensearch_client()` builds the
client for a given (url, auth) once per process and caches it; `build_opensearch_client()` always builds a
new one (tests, benchmarks).

Transport choices:
- `Urllib3HttpConnection` (urllib3 already ships with botocore; no `requests` session per client);
- retries on connection errors, timeouts and 429/502/503/504, with opensearch-py's own retry loop. Every
  request the text store sends is idempotent (deterministic document ids, mget, search, delete by query),
  so retrying a timed-out write cannot duplicate data;
- SigV4: `Urllib3AWSV4SignerAuth` over boto3's credential chain (the Lambda role); refreshable credentials
  are frozen per request by the signer, so long-lived clients survive credential rotation;
- deadlines (offprompt.deadline): every attempt's timeout is capped by the time the invocation has left, and
  no attempt (first or retry) starts without time left: it raises DependencyTimeout instead, which ends
  opensearch-py's retry loop (it retries only its own TransportErrors).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from offprompt import deadline
from offprompt.config import ConfigurationError

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

OpenSearchAuth = Literal["none", "sigv4-es", "sigv4-aoss"]

_SERVICES = {"sigv4-es": "es", "sigv4-aoss": "aoss"}
RETRY_ON_STATUS = (429, 502, 503, 504)
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_RETRIES = 3


def build_opensearch_client(
    url: str,
    auth: OpenSearchAuth = "none",
    *,
    region: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_MAX_RETRIES,
    pool_maxsize: int = 10,
) -> OpenSearch:
    """A new client for the OpenSearch endpoint at `url` (http:// or https://, optional port)."""
    from opensearchpy import OpenSearch

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(f"OFFPROMPT_OPENSEARCH_URL must be an http(s) URL, got {url!r}")
    if auth not in ("none", *_SERVICES):
        raise ConfigurationError(f"OFFPROMPT_OPENSEARCH_AUTH must be none, sigv4-es or sigv4-aoss, got {auth!r}")
    use_ssl = parts.scheme == "https"
    host: dict[str, Any] = {"host": parts.hostname, "port": parts.port or (443 if use_ssl else 80)}
    if parts.path not in ("", "/"):
        host["url_prefix"] = parts.path
    options: dict[str, Any] = {
        "hosts": [host],
        "use_ssl": use_ssl,
        "verify_certs": use_ssl,
        "ssl_show_warn": use_ssl,
        "connection_class": _deadline_connection_class(),
        "timeout": timeout,
        "max_retries": max_retries,
        "retry_on_timeout": True,
        "retry_on_status": RETRY_ON_STATUS,
        "pool_maxsize": pool_maxsize,
    }
    if auth != "none":
        options["http_auth"] = _sigv4(_SERVICES[auth], region)
    return OpenSearch(**options)


@functools.cache
def _deadline_connection_class() -> type:
    """`Urllib3HttpConnection` whose every request (each retry too) obeys the invocation's deadline."""
    from opensearchpy import Urllib3HttpConnection

    class DeadlineConnection(Urllib3HttpConnection):
        def perform_request(
            self,
            method: str,
            url: str,
            params: Any = None,
            body: Any = None,
            timeout: Any = None,
            ignore: Any = (),
            headers: Any = None,
        ) -> Any:
            usual = float(timeout) if timeout is not None else float(self.timeout)
            capped = deadline.attempt_timeout(usual, "OpenSearch")
            return super().perform_request(method, url, params, body, timeout=capped, ignore=ignore, headers=headers)

    return DeadlineConnection


def _sigv4(service: str, region: str | None) -> Any:
    import boto3
    from opensearchpy import Urllib3AWSV4SignerAuth

    session = boto3.session.Session()
    credentials = session.get_credentials()
    if credentials is None:
        raise ConfigurationError("SigV4 auth for OpenSearch needs AWS credentials, and none were found")
    region = region or session.region_name
    if not region:
        raise ConfigurationError("SigV4 auth for OpenSearch needs a region (AWS_REGION)")
    return Urllib3AWSV4SignerAuth(credentials, region, service)


@functools.cache
def opensearch_client(url: str, auth: OpenSearchAuth = "none") -> OpenSearch:
    """The process's client for (url, auth), built on first use."""
    return build_opensearch_client(url, auth)


def reset_opensearch_clients() -> None:
    """Forget cached clients (tests)."""
    opensearch_client.cache_clear()
