"""The tenant data stores (export, import, erase; ADR 0024) built from settings: the same OFFPROMPT_* environment
the functions read."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.services.tenant_data.ports import TenantStores


def stores_from_settings(settings: Settings) -> TenantStores:
    from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
    from offprompt.adapters.opensearch_client import opensearch_client
    from offprompt.adapters.s3_text_records import S3TextRecords
    from offprompt.adapters.tenant_documents import OpenSearchTenantDocuments
    from offprompt.adapters.tenant_items import DynamoDbTenantItems
    from offprompt.adapters.tenant_objects import S3TenantObjects

    url = settings.require("opensearch_url")
    bucket = settings.require("bucket_name")
    serverless = settings.opensearch_mode == "serverless"
    return TenantStores(
        items=DynamoDbTenantItems(settings.require("table_name")),
        objects=S3TenantObjects(bucket),
        documents=OpenSearchTenantDocuments(
            functools.partial(opensearch_client, url, settings.opensearch_auth),
            settings.opensearch_index,
            serverless=serverless,
            records=S3TextRecords(bucket) if serverless else None,
        ),
        fence=DynamoDbAccountStore(settings.require("table_name")),
    )


@functools.cache
def default_stores() -> TenantStores:
    from offprompt.config import get_settings

    return stores_from_settings(get_settings())
