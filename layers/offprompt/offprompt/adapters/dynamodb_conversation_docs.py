"""The ids of a run's search documents, kept on the run's own item (docs/adr/0048-conversation-index.md, "Serverless
ids"). OpenSearch Serverless chooses a document's id, and its search sees a document only after the collection's
refresh interval: a run removed within that window was found by no delete, and its document outlived it (a pop, a
prune, an erase). So the indexer writes the ids the collection gave on the item (`search_doc_ids`, a string set), and
whatever removes the item removes the ids with it: the stream's REMOVE record carries them to the indexer, and the
tenant erase reads them before it deletes the items (`tenant_items.document_ids`).

The write is conditional on the item still being that run (`run_id`): a run removed or replaced between its indexing
and this write keeps nothing here, and the caller deletes the documents it just indexed. It answers the ids the item
named before (a run written again: those documents are the old text's, and go). Only the indexer writes the
attribute; the stream decoder ignores a MODIFY that changes nothing else, and an export leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .aws_errors import CONDITION_FAILED, aws_call_allowing
from .dynamodb_table import DynamoDbTable
from .layout import SEARCH_DOC_IDS, run_sk, thread_pk

#: The run item's attribute holding its search documents' ids.
DOC_IDS = SEARCH_DOC_IDS


def doc_ids_of(item: Mapping[str, Any]) -> tuple[str, ...]:
    """The search document ids an item (in DynamoDB JSON: a stream image, a read) names."""
    value = item.get(DOC_IDS)
    ids = value.get("SS") if isinstance(value, Mapping) else None
    return tuple(sorted(str(i) for i in ids)) if isinstance(ids, list) else ()


class DynamoDbConversationDocIds(DynamoDbTable):
    """`DocumentIds` (services/conversation_index/context.py) on the runs table."""

    def remember(
        self, tenant: str, thread_id: str, seq: int, run_id: str, ids: Sequence[str]
    ) -> tuple[str, ...] | None:
        """Keep `ids` on the item of run `run_id` at `seq`; the ids it named before, or None when the item is gone or
        holds another run (then nothing was written)."""
        if not ids:
            return ()
        params = {
            "TableName": self.table_name,
            "Key": {"pk": {"S": thread_pk(tenant, thread_id)}, "sk": {"S": run_sk(seq)}},
            "UpdateExpression": "SET #ids = :ids",
            "ConditionExpression": "run_id = :run",
            "ExpressionAttributeNames": {"#ids": DOC_IDS},
            "ExpressionAttributeValues": {":ids": {"SS": sorted(set(ids))}, ":run": {"S": run_id}},
            "ReturnValues": "UPDATED_OLD",
        }
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED) as call:
            out = self.client.update_item(**params)
        if call.refused:
            return None
        return doc_ids_of(out.get("Attributes") or {})
