/**
 * Generated from docs/openapi.json by openapi-typescript (npm run generate). Do not edit.
 */

export interface paths {
    "/api/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Find the thread with an alias (Griptape Cloud Threads API) */
        get: operations["find_threads_api_threads_get"];
        put?: never;
        /** Create a thread (Griptape Cloud Threads API) */
        post: operations["create_thread_api_threads_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/threads/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A thread (Griptape Cloud Threads API) */
        get: operations["get_thread_api_threads__thread_id__get"];
        put?: never;
        post?: never;
        /** Delete a thread and release its alias (idempotent; Griptape Cloud Threads API) */
        delete: operations["delete_thread_api_threads__thread_id__delete"];
        options?: never;
        head?: never;
        /** Update a thread: its messages (a diff by run id), name, metadata (Griptape Cloud Threads API) */
        patch: operations["patch_thread_api_threads__thread_id__patch"];
        trace?: never;
    };
    "/api/threads/{thread_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of a thread's messages, oldest first (Griptape Cloud Threads API) */
        get: operations["get_messages_api_threads__thread_id__messages_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's audit log, newest first: who wrote, deleted, exported or erased what (no values) */
        get: operations["get_audit_audit_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a checkpoint thread (idempotent; what live copies read stays for them) */
        delete: operations["delete_checkpoint_threads__thread_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A checkpoint tuple: the latest of a namespace, or one by id */
        get: operations["get_checkpoint_threads__thread_id__checkpoint_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}/checkpoints/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A thread's checkpoint tuples, newest first (namespace, before, metadata filter, limit, cursor) */
        post: operations["list__checkpoint_threads__thread_id__checkpoints_list_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Store a checkpoint (creates the thread; re-putting an id replaces it) */
        put: operations["put_checkpoint_threads__thread_id__checkpoints__checkpoint_id__put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Store a checkpoint's pending writes (idx >= 0 already stored is kept, idx < 0 replaced) */
        put: operations["writes_checkpoint_threads__thread_id__checkpoints__checkpoint_id__writes_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}/copy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy a checkpoint thread (a fork: constant writes, the history is shared) */
        post: operations["copy_checkpoint_threads__thread_id__copy_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkpoint-threads/{thread_id}/prune": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Prune a checkpoint thread: keep only the latest checkpoint of each namespace, or delete it */
        post: operations["prune_checkpoint_threads__thread_id__prune_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The memory console (HTML; no credentials: it signs in with an API key and calls this API) */
        get: operations["get_page_console_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/console/{asset}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of the console's files (app.js, app.css) */
        get: operations["get_asset_console__asset__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Export all of the caller's data (JSONL + files in S3, presigned URLs) */
        post: operations["post_export_export_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/extraction/strategies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's extraction strategies, by name */
        get: operations["list_all_extraction_strategies_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/extraction/strategies/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One extraction strategy */
        get: operations["get_extraction_strategies__name__get"];
        /** Create or replace an extraction strategy */
        put: operations["put_extraction_strategies__name__put"];
        post?: never;
        /** Delete an extraction strategy (idempotent; the records it wrote stay) */
        delete: operations["delete_extraction_strategies__name__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's tenant's API keys (no secrets) */
        get: operations["get_keys_keys_get"];
        put?: never;
        /** Create an API key for the caller's tenant (shown once) */
        post: operations["post_key_keys_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one of the tenant's API keys (idempotent; refused at once, whatever API Gateway's cache) */
        delete: operations["delete_key_keys__key_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{key_id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mint a short-lived signed token of a key (at most an hour; its scope or a narrower one) */
        post: operations["post_token_keys__key_id__tokens_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** MCP endpoint: no SSE stream (405, as Streamable HTTP allows) */
        get: operations["get_mcp_mcp_get"];
        put?: never;
        /** MCP endpoint (Model Context Protocol over Streamable HTTP, stateless JSON-RPC 2.0) */
        post: operations["post_mcp_mcp_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/meta": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of a memory's ActionSubtask meta entries */
        get: operations["get_meta_memories__memory_name__meta_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of a memory's namespaces */
        get: operations["get_namespaces_memories__memory_name__namespaces_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/namespaces/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A namespace's record */
        get: operations["get_namespace_memories__memory_name__namespaces__namespace__get"];
        put?: never;
        post?: never;
        /** Delete a namespace and its data (idempotent) */
        delete: operations["delete_namespace_memories__memory_name__namespaces__namespace__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/namespaces/{namespace}/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A namespace's artifacts as Griptape ListArtifact JSON */
        get: operations["get_artifacts_memories__memory_name__namespaces__namespace__artifacts_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/namespaces/{namespace}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Search a namespace's text */
        post: operations["post_search_memories__memory_name__namespaces__namespace__search_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/outputs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store a tool's output off-prompt (Griptape TaskMemory.process_output) */
        post: operations["post_output_memories__memory_name__outputs_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/memories/{memory_name}/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A presigned S3 PUT for a value too large for a request body */
        post: operations["post_upload_memories__memory_name__uploads_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/record-namespaces/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set a record namespace's default TTL (minutes) for puts that give none */
        put: operations["configure_record_namespaces__namespace__put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/records/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** List record namespaces (prefix/suffix conditions with '*' wildcards, max_depth) */
        post: operations["namespaces_records_namespaces_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/records/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Search records under a namespace prefix by text and/or filter */
        post: operations["search_records_search_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/records/{namespace}/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A record: its current version, or the one valid at `as_of` */
        get: operations["get_records__namespace___key__get"];
        /** Create or replace a record (the replaced version stays in its history) */
        put: operations["put_records__namespace___key__put"];
        post?: never;
        /** Delete a record (idempotent; the delete is a version of its history) */
        delete: operations["delete_records__namespace___key__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/records/{namespace}/{key}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A record's stored versions, newest first */
        get: operations["history_records__namespace___key__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tenant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Erase all of the caller's data (needs the tenant id as confirmation) */
        delete: operations["delete_tenant_tenant_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of the tenant's threads, the most recently written first or by id (optionally those whose id starts with `prefix`) */
        get: operations["get_threads_threads_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Search the tenant's conversations (runs and session items) by meaning and words */
        post: operations["post_search_threads_search_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A thread's configuration, counts and summary */
        get: operations["get_thread_threads__thread_id__get"];
        /** Configure a thread (creates it) */
        put: operations["put_thread_threads__thread_id__put"];
        post?: never;
        /** Delete a thread and everything it owns (idempotent) */
        delete: operations["delete_thread_threads__thread_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}/extraction": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where each extraction strategy stands on the thread */
        get: operations["status_threads__thread_id__extraction_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fork a thread after one of its runs (no run is copied) */
        post: operations["post_fork_threads__thread_id__fork_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A thread's newest framework session items, oldest first (optionally within a token budget) */
        get: operations["get_items_threads__thread_id__items_get"];
        put?: never;
        /** Append framework session items (OpenAI Agents SDK items, Strands messages) to a thread */
        post: operations["post_items_threads__thread_id__items_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}/items/pop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remove and return a thread's newest framework session item (atomic under concurrency) */
        post: operations["pop_item_threads__thread_id__items_pop_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}/prompt-stack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Build Griptape's PromptStack from a thread's memory */
        post: operations["post_prompt_stack_threads__thread_id__prompt_stack_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/threads/{thread_id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of a thread's runs */
        get: operations["get_runs_threads__thread_id__runs_get"];
        put?: never;
        /** Append a run to a thread */
        post: operations["post_run_threads__thread_id__runs_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's usage per UTC day and in total, and its current stored bytes */
        get: operations["get_usage_usage_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** ActionIn */
        ActionIn: {
            /** Type */
            type?: "ToolAction" | null;
            /** Tag */
            tag: string;
            /** Name */
            name: string;
            /** Path */
            path?: string | null;
            /** Input */
            input?: {
                [key: string]: unknown;
            };
        };
        /** AddRunResponse */
        AddRunResponse: {
            /** Run */
            run: {
                [key: string]: unknown;
            };
            /** Seq */
            seq: number;
        } & {
            [key: string]: unknown;
        };
        /**
         * ArtifactJSON
         * @description A Griptape artifact's JSON (`BaseArtifact.from_dict` reads it).
         */
        ArtifactJSON: {
            /** Type */
            type: string;
        } & {
            [key: string]: unknown;
        };
        /** AuditActor */
        AuditActor: {
            /**
             * Type
             * @description key | token | jwt | iam | local | direct: what `id` names
             */
            type: string;
            /** Id */
            id: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * AuditEntry
         * @description One audited call (docs/adr/0056): never a value, only the operation, the ids it named and its answer.
         */
        AuditEntry: {
            /** Entry Id */
            entry_id: string;
            /** At */
            at: string;
            actor: components["schemas"]["AuditActor"];
            /**
             * Via
             * @description http | mcp | direct
             */
            via: string;
            /**
             * Operation
             * @description The route (`POST /threads/{thread_id}/runs`), the MCP tool or direct action
             */
            operation: string;
            /** Resources */
            resources: {
                [key: string]: string;
            };
            /** Status */
            status: number;
            /** Code */
            code?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** AuditPage */
        AuditPage: {
            /** Entries */
            entries: components["schemas"]["AuditEntry"][];
            /**
             * Cursor
             * @description Pass it back for the next page; null at the end
             */
            cursor?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** Blob */
        Blob: {
            /** Type */
            type: string;
            /** Data */
            data: string;
        };
        /**
         * BlobDownload
         * @description One stored blob: its artifact JSON without `value`, and a presigned GET of its bytes (`value` = their base64).
         */
        BlobDownload: {
            /** Artifact */
            artifact: {
                [key: string]: unknown;
            };
            /** Size */
            size: number;
            /** Download Url */
            download_url: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * BlobDownloads
         * @description A blob namespace too large for a response: the stored objects themselves, nothing rebuilt.
         */
        BlobDownloads: {
            /**
             * Type
             * @constant
             */
            type: "BlobDownloads";
            /** Size */
            size: number;
            /** Expires In */
            expires_in: number;
            /** Artifacts */
            artifacts: components["schemas"]["BlobDownload"][];
        } & {
            [key: string]: unknown;
        };
        /**
         * CheckpointCopy
         * @description `POST /checkpoint-threads/{thread_id}/copy`.
         */
        CheckpointCopy: {
            /** Target Thread Id */
            target_thread_id: string;
        };
        /** CheckpointKey */
        CheckpointKey: {
            /** Thread Id */
            thread_id: string;
            /** Checkpoint Ns */
            checkpoint_ns: string;
            /** Checkpoint Id */
            checkpoint_id: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * CheckpointList
         * @description `POST /checkpoint-threads/{thread_id}/checkpoints/list`.
         */
        CheckpointList: {
            /** Checkpoint Ns */
            checkpoint_ns?: string | null;
            /** Before */
            before?: string | null;
            /** Filter */
            filter?: {
                [key: string]: unknown;
            } | null;
            /** Limit */
            limit?: number | null;
            /** Cursor */
            cursor?: string | null;
        };
        /**
         * CheckpointPrune
         * @description `POST /checkpoint-threads/{thread_id}/prune`.
         */
        CheckpointPrune: {
            /**
             * Strategy
             * @default keep_latest
             * @enum {string}
             */
            strategy?: "keep_latest" | "delete";
        };
        /**
         * CheckpointPut
         * @description `PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}`.
         */
        CheckpointPut: {
            /**
             * Checkpoint Ns
             * @default
             */
            checkpoint_ns?: string;
            /** Parent Checkpoint Id */
            parent_checkpoint_id?: string | null;
            checkpoint: components["schemas"]["Blob"];
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            };
        };
        /**
         * CheckpointThreadCopied
         * @description A copy (a fork): the source and the newest checkpoint id it shares in each namespace.
         */
        CheckpointThreadCopied: {
            /** Thread Id */
            thread_id: string;
            /** Copied From */
            copied_from: string;
            /** Through */
            through: {
                [key: string]: string;
            };
        } & {
            [key: string]: unknown;
        };
        /** CheckpointThreadPruned */
        CheckpointThreadPruned: {
            /** Thread Id */
            thread_id: string;
            /** Strategy */
            strategy: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * CheckpointTupleView
         * @description A checkpoint tuple (docs/adr/0039): pending writes sorted by (task_path, task_id, idx).
         */
        CheckpointTupleView: {
            /** Thread Id */
            thread_id: string;
            /** Checkpoint Ns */
            checkpoint_ns: string;
            /** Checkpoint Id */
            checkpoint_id: string;
            /** Parent Checkpoint Id */
            parent_checkpoint_id: string | null;
            checkpoint: components["schemas"]["TypedBlobView"];
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Pending Writes */
            pending_writes: components["schemas"]["PendingWriteView"][];
        } & {
            [key: string]: unknown;
        };
        /**
         * CheckpointsPage
         * @description Newest first; `next_cursor` continues a page cut by its blob budget (null: no more).
         */
        CheckpointsPage: {
            /** Checkpoints */
            checkpoints: components["schemas"]["CheckpointTupleView"][];
            /** Next Cursor */
            next_cursor: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * CloudMessage
         * @description A run as a Griptape Cloud message: `input`/`output` are the artifacts' JSON as strings.
         */
        CloudMessage: {
            /** Message Id */
            message_id: string;
            /** Thread Id */
            thread_id: string;
            /** Index */
            index: number;
            /** Input */
            input: string;
            /** Output */
            output: string;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Created At */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        /** CloudMessagesPage */
        CloudMessagesPage: {
            /** Messages */
            messages: components["schemas"]["CloudMessage"][];
            pagination: components["schemas"]["Pagination"];
        } & {
            [key: string]: unknown;
        };
        /**
         * CloudThread
         * @description A thread as Griptape Cloud's Threads API shows it.
         */
        CloudThread: {
            /** Thread Id */
            thread_id: string;
            /** Name */
            name: string;
            /** Alias */
            alias: string | null;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Created At */
            created_at: string;
            /** Updated At */
            updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * CloudThreadIn
         * @description `POST /api/threads` body (Griptape's driver sends `{name, alias}`); other keys are ignored.
         */
        CloudThreadIn: {
            /** Name */
            name?: string | null;
            /** Alias */
            alias?: string | null;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            } | null;
        };
        /**
         * CloudThreadPatch
         * @description `PATCH /api/threads/{id}` body: the whole message list (a diff is derived), name, metadata; any other
         *     top-level key is the memory's meta (Griptape's driver merges it there) and becomes the thread's metadata.
         */
        CloudThreadPatch: {
            /** Messages */
            messages?: {
                [key: string]: unknown;
            }[] | null;
            /** Name */
            name?: string | null;
            /** Alias */
            alias?: string | null;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            } | null;
        } & {
            [key: string]: unknown;
        };
        /** CloudThreadsPage */
        CloudThreadsPage: {
            /** Threads */
            threads: components["schemas"]["CloudThread"][];
            pagination: components["schemas"]["Pagination"];
        } & {
            [key: string]: unknown;
        };
        /** Download */
        Download: {
            /** Download Url */
            download_url: string;
            /** Expires In */
            expires_in: number;
            /** Size */
            size: number;
        } & {
            [key: string]: unknown;
        };
        /**
         * ErasePending
         * @description A fenced erase not verified yet: repeat `DELETE /tenant` after `retry_after` seconds to finish it.
         */
        ErasePending: {
            /** Tenant */
            tenant: string;
            /** Status */
            status: string;
            /** Deleted */
            deleted: {
                [key: string]: number;
            };
            /** Verified */
            verified: boolean;
            /** Retry After */
            retry_after: number;
            /** Indexing */
            indexing?: {
                [key: string]: unknown;
            } | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * EraseReport
         * @description What a tenant erase deleted per store, and what a verification pass found left (nothing when verified).
         */
        EraseReport: {
            /** Tenant */
            tenant: string;
            /** Deleted */
            deleted: {
                [key: string]: number;
            };
            /** Remaining */
            remaining: {
                [key: string]: number;
            };
            /** Verified */
            verified: boolean;
        } & {
            [key: string]: unknown;
        };
        /**
         * EraseRequest
         * @description `DELETE /tenant` body: `confirm` must repeat the caller's own tenant id.
         */
        EraseRequest: {
            /**
             * Confirm
             * @description The caller's tenant id, typed out
             */
            confirm?: string | null;
        };
        /**
         * Error
         * @description Every error response: a stable machine-readable `code`, a message for people, optional `details`
         *     (`[{loc, type, msg}]` for `schema_invalid`, an object for other codes).
         */
        ErrorBody: {
            /**
             * Code
             * @description stable machine-readable error code, e.g. invalid_input, schema_invalid
             */
            code: string;
            /** Message */
            message: string;
            /** Details */
            details?: components["schemas"]["SchemaErrorDetail"][] | {
                [key: string]: unknown;
            } | null;
        };
        /**
         * ExportPending
         * @description An export not made yet: the tenant's data is still being indexed; repeat it after `retry_after` seconds.
         */
        ExportPending: {
            /** Tenant */
            tenant: string;
            /** Status */
            status: string;
            /** Complete */
            complete: boolean;
            /** Retry After */
            retry_after: number;
            /** Indexing */
            indexing: {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        /**
         * ExportResult
         * @description A tenant export: its manifest (JSON listing each file with size, SHA-256 and a presigned GET).
         */
        ExportResult: {
            /** Tenant */
            tenant: string;
            /** Export Id */
            export_id: string;
            /** Manifest Url */
            manifest_url: string | null;
            /** Expires In */
            expires_in: number;
            /** Counts */
            counts: {
                [key: string]: number;
            };
            /** Complete */
            complete: boolean;
        } & {
            [key: string]: unknown;
        };
        /** ExtractionTrigger */
        ExtractionTrigger: {
            /** After Runs */
            after_runs: number;
            /** Idle Seconds */
            idle_seconds: number;
        } & {
            [key: string]: unknown;
        };
        /**
         * ForkRequest
         * @description `POST /threads/{thread_id}/fork`: fork after `after_run_id` (default: the newest run) into `thread_id`
         *     (default: an id derived from `request_id`, or a new one). A retry with the same `request_id` (or the same
         *     `thread_id` and `after_run_id`) answers the fork made first.
         */
        ForkRequest: {
            /** After Run Id */
            after_run_id?: string | null;
            /** Thread Id */
            thread_id?: string | null;
            /** Request Id */
            request_id?: string | null;
        };
        /**
         * ForkedThread
         * @description A fork (docs/adr/0037): its id, the thread it was forked from, the run it forks after (`through_seq`) and
         *     the threads it reads below its own runs (nearest first); `replayed` when a retry found the fork made first.
         */
        ForkedThread: {
            /** Thread Id */
            thread_id: string;
            /** Forked From */
            forked_from: string | null;
            /** Through Seq */
            through_seq: number;
            /** After Run Id */
            after_run_id: string | null;
            /** Ancestry */
            ancestry: {
                [key: string]: unknown;
            }[];
            /** Kind */
            kind: string;
            /** Replayed */
            replayed: boolean;
        } & {
            [key: string]: unknown;
        };
        /**
         * ItemsAppended
         * @description The seqs the appended items have, in order (a retried request's stored items keep theirs).
         */
        ItemsAppended: {
            /** Seqs */
            seqs: number[];
            /** Replayed */
            replayed: number;
        } & {
            [key: string]: unknown;
        };
        /**
         * ItemsIn
         * @description `POST /threads/{thread_id}/items`: framework session items (OpenAI Agents SDK input items, Strands messages:
         *     JSON objects) to append in order. `request_id` makes a retry converge: the same id and items are stored once.
         */
        ItemsIn: {
            /** Items */
            items: {
                [key: string]: unknown;
            }[];
            /** Request Id */
            request_id?: string | null;
        };
        /**
         * ItemsPage
         * @description A framework session's newest items, oldest first; `next_before` pages to older ones (None: no more);
         *     `tokens`: their stored counts (cl100k_base over each item's JSON).
         */
        ItemsPage: {
            /** Items */
            items: {
                [key: string]: unknown;
            }[];
            /** Seqs */
            seqs: number[];
            /** Next Before */
            next_before: number | null;
            /** Tokens */
            tokens: number;
        } & {
            [key: string]: unknown;
        };
        /**
         * JsonRpcMessage
         * @description A JSON-RPC 2.0 message: a request (`id`, `method`, `params`) or its response (`id`, `result` | `error`).
         */
        JsonRpcMessage: {
            /** Jsonrpc */
            jsonrpc: string;
            /** Id */
            id?: string | number | null;
        } & {
            [key: string]: unknown;
        };
        /** KeyInfo */
        KeyInfo: {
            /** Key Id */
            key_id: string;
            /** Prefix */
            prefix: string;
            /** Name */
            name: string;
            /** Created At */
            created_at: string;
            /**
             * Scopes
             * @description what the key may reach (docs/keys.md); absent: all
             */
            scopes?: {
                [key: string]: unknown;
            } | null;
            /** Expires At */
            expires_at?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** KeyList */
        KeyList: {
            /** Keys */
            keys: components["schemas"]["KeyInfo"][];
        } & {
            [key: string]: unknown;
        };
        /**
         * KeyRequest
         * @description `POST /keys`: an optional name to tell keys apart (the listing shows it), an optional scope (what the key may
         *     reach: docs/keys.md; none: the whole tenant) and an optional expiry (ISO 8601 with a time zone).
         */
        KeyRequest: {
            /** Name */
            name?: string | null;
            scopes?: components["schemas"]["Scope"] | null;
            /** Expires At */
            expires_at?: string | null;
        };
        /**
         * LoadedNamespace
         * @description Griptape's ListArtifact JSON when it fits a response (5 MB), else (a blob namespace) BlobDownloads.
         */
        LoadedNamespace: components["schemas"]["ArtifactJSON"] | components["schemas"]["BlobDownloads"];
        /** MemoryScope */
        MemoryScope: {
            /** Names */
            names: string[];
        };
        /** MetaPage */
        MetaPage: {
            /** Entries */
            entries: {
                [key: string]: unknown;
            }[];
            /** Next Cursor */
            next_cursor: string | null;
        } & {
            [key: string]: unknown;
        };
        /** NamespaceRecord */
        NamespaceRecord: {
            /** Memory Name */
            memory_name: string;
            /** Namespace */
            namespace: string;
            /** Storage */
            storage: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * NamespaceSettings
         * @description `PUT /record-namespaces/{namespace}`: the TTL (minutes) of puts that give none; null removes it.
         */
        NamespaceSettings: {
            /** Default Ttl Minutes */
            default_ttl_minutes: number | null;
        };
        /** NamespacesPage */
        NamespacesPage: {
            /** Namespaces */
            namespaces: components["schemas"]["NamespaceRecord"][];
            /** Next Cursor */
            next_cursor: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * NamespacesQuery
         * @description `POST /records/namespaces`: LangGraph's list_namespaces (prefix/suffix labels may be "*").
         */
        NamespacesQuery: {
            /** Prefix */
            prefix?: string[] | null;
            /** Suffix */
            suffix?: string[] | null;
            /** Max Depth */
            max_depth?: number | null;
            /**
             * Limit
             * @default 100
             */
            limit?: number;
            /**
             * Offset
             * @default 0
             */
            offset?: number;
        };
        /** NewKey */
        NewKey: {
            /** Key Id */
            key_id: string;
            /** Prefix */
            prefix: string;
            /** Name */
            name: string;
            /** Created At */
            created_at: string;
            /**
             * Scopes
             * @description what the key may reach (docs/keys.md); absent: all
             */
            scopes?: {
                [key: string]: unknown;
            } | null;
            /** Expires At */
            expires_at?: string | null;
            /**
             * Key
             * @description the API key; shown only in this response (send it as Authorization: Bearer)
             */
            key: string;
        } & {
            [key: string]: unknown;
        };
        /** NewToken */
        NewToken: {
            /**
             * Token
             * @description the short-lived token (send it as Authorization: Bearer); never stored
             */
            token: string;
            /** Token Id */
            token_id: string;
            /** Key Id */
            key_id: string;
            /** Expires At */
            expires_at: string;
            /** Scopes */
            scopes?: {
                [key: string]: unknown;
            } | null;
        } & {
            [key: string]: unknown;
        };
        /** OutputRequest */
        OutputRequest: {
            /** Tool */
            tool: string;
            /** Activity */
            activity: string;
            /** Artifact */
            artifact: {
                [key: string]: unknown;
            };
            /** Actions */
            actions?: components["schemas"]["ActionIn"][];
            /** Thought */
            thought?: string | null;
            /** Value From */
            value_from?: {
                [key: string]: unknown;
            } | null;
            /** Idempotency Key */
            idempotency_key?: string | null;
            /**
             * Consistency
             * @description "load": answer once the output is durable and loadable; a search finds its text within the index's refresh interval (1 s on a domain, 10-60 s on OpenSearch Serverless). "search": answer once a search finds it too (header X-Offprompt-Searchable).
             * @default load
             * @enum {string}
             */
            consistency?: "load" | "search";
        };
        /** Pagination */
        Pagination: {
            /** Page */
            page: number;
            /** Page Size */
            page_size: number;
            /** Total Count */
            total_count: number;
            /** Total Pages */
            total_pages: number;
        } & {
            [key: string]: unknown;
        };
        /** PendingWriteView */
        PendingWriteView: {
            /** Task Id */
            task_id: string;
            /** Task Path */
            task_path: string;
            /** Idx */
            idx: number;
            /** Channel */
            channel: string;
            value: components["schemas"]["TypedBlobView"];
        } & {
            [key: string]: unknown;
        };
        /**
         * PoppedItem
         * @description The item a pop removed (None when the session held none).
         */
        PoppedItem: {
            /** Item */
            item: {
                [key: string]: unknown;
            } | null;
            /** Seq */
            seq: number | null;
        } & {
            [key: string]: unknown;
        };
        /** PrefixScope */
        PrefixScope: {
            /** Prefix */
            prefix: string;
        };
        /**
         * PromptStackJSON
         * @description Griptape's PromptStack JSON (`PromptStack.from_dict` reads it).
         */
        PromptStackJSON: {
            /** Type */
            type: string;
            /** Messages */
            messages: {
                [key: string]: unknown;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** PromptStackRequest */
        PromptStackRequest: {
            /** System */
            system?: string | {
                [key: string]: unknown;
            } | null;
            /** Input */
            input?: string | {
                [key: string]: unknown;
            } | null;
            /** Max Tokens */
            max_tokens?: number | null;
            /** Last N */
            last_n?: number | null;
            /** Memory Index */
            memory_index?: number | null;
            /** Model */
            model?: string | null;
            /** Tokenizer */
            tokenizer?: string | null;
            /** As Of Run */
            as_of_run?: string | null;
        };
        /**
         * RecordHistory
         * @description A record's stored versions, newest first (`deleted`: a delete's tombstone, whose value is null).
         */
        RecordHistory: {
            /** Versions */
            versions: components["schemas"]["RecordView"][];
        } & {
            [key: string]: unknown;
        };
        /** RecordNamespaceSettings */
        RecordNamespaceSettings: {
            /** Namespace */
            namespace: string[];
            /** Default Ttl Minutes */
            default_ttl_minutes: number | null;
        } & {
            [key: string]: unknown;
        };
        /** RecordNamespaces */
        RecordNamespaces: {
            /** Namespaces */
            namespaces: string[][];
        } & {
            [key: string]: unknown;
        };
        /**
         * RecordPut
         * @description `PUT /records/{namespace}/{key}`: the value (a JSON object), what of it to index (`false`: nothing; a list of
         *     field paths; default: every string), and its TTL in minutes (default: the namespace's, else none).
         */
        RecordPut: {
            /** Value */
            value: {
                [key: string]: unknown;
            };
            /** Index */
            index?: false | string[] | null;
            /** Ttl Minutes */
            ttl_minutes?: number | null;
        };
        /** RecordScope */
        RecordScope: {
            /** Namespace Prefix */
            namespace_prefix: string[];
        };
        /**
         * RecordSearch
         * @description `POST /records/search`.
         */
        RecordSearch: {
            /** Namespace Prefix */
            namespace_prefix?: string[];
            /** Query */
            query?: string | null;
            /** Filter */
            filter?: {
                [key: string]: unknown;
            } | null;
            /**
             * Limit
             * @default 10
             */
            limit?: number;
            /**
             * Offset
             * @default 0
             */
            offset?: number;
            /** As Of */
            as_of?: string | number | null;
            /**
             * Refresh Ttl
             * @default true
             */
            refresh_ttl?: boolean;
            /**
             * Mode
             * @default bm25
             * @enum {string}
             */
            mode?: "bm25" | "knn" | "hybrid";
        };
        /**
         * RecordView
         * @description A record (docs/adr/0034): times ISO 8601 UTC; `valid_to` and `expires_at` null when open.
         */
        RecordView: {
            /** Namespace */
            namespace: string[];
            /** Key */
            key: string;
            /** Value */
            value: {
                [key: string]: unknown;
            } | null;
            /** Version */
            version: number;
            /** Created At */
            created_at: string;
            /** Updated At */
            updated_at: string;
            /** Valid From */
            valid_from: string;
            /** Valid To */
            valid_to: string | null;
            /** Expires At */
            expires_at: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * RecordsFound
         * @description Search results: records, each with its `score` (null without a query).
         */
        RecordsFound: {
            /** Items */
            items: components["schemas"]["RecordView"][];
        } & {
            [key: string]: unknown;
        };
        /**
         * RunIn
         * @description Griptape's Run JSON as a client sends it (artifacts are decoded by the service: `invalid_artifact`).
         */
        RunIn: {
            /** Type */
            type?: "Run" | null;
            /** Module Name */
            module_name?: string | null;
            /** Id */
            id?: string | null;
            /** Meta */
            meta?: {
                [key: string]: unknown;
            } | null;
            /** Input */
            input: {
                [key: string]: unknown;
            };
            /** Output */
            output: {
                [key: string]: unknown;
            };
        };
        /** RunsPage */
        RunsPage: {
            /** Runs */
            runs: {
                [key: string]: unknown;
            }[];
            /** Next Cursor */
            next_cursor: string | null;
        } & {
            [key: string]: unknown;
        };
        /** SchemaErrorDetail */
        SchemaErrorDetail: {
            /** Loc */
            loc: (string | number)[];
            /** Type */
            type: string;
            /** Msg */
            msg: string;
        };
        /**
         * Scope
         * @description A key's or token's scope (`POST /keys` `scopes`, `POST /keys/{key_id}/tokens` `scopes`).
         */
        Scope: {
            /** Actions */
            actions: ("read" | "write")[];
            threads?: components["schemas"]["PrefixScope"] | null;
            records?: components["schemas"]["RecordScope"] | null;
            memories?: components["schemas"]["MemoryScope"] | null;
            checkpoints?: components["schemas"]["PrefixScope"] | null;
        };
        /** SearchHits */
        SearchHits: {
            /** Hits */
            hits: {
                [key: string]: unknown;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** SearchRequest */
        SearchRequest: {
            /** Query */
            query: string;
            /**
             * Top K
             * @default 5
             */
            top_k?: number;
            /**
             * Mode
             * @default bm25
             * @enum {string}
             */
            mode?: "bm25" | "knn" | "hybrid";
        };
        /** StrategiesList */
        StrategiesList: {
            /** Strategies */
            strategies: components["schemas"]["StrategyView"][];
        } & {
            [key: string]: unknown;
        };
        /**
         * StrategyPut
         * @description `PUT /extraction/strategies/{name}`.
         */
        StrategyPut: {
            /**
             * Type
             * @enum {string}
             */
            type: "facts" | "preferences" | "summary" | "custom";
            /** Namespace */
            namespace: string;
            trigger?: components["schemas"]["Trigger"];
            /** Instructions */
            instructions?: string | null;
            /**
             * Enabled
             * @default true
             */
            enabled?: boolean;
        };
        /**
         * StrategyStatus
         * @description Where a strategy stands on a thread: `last_error` why the last attempt wrote nothing (null after a success),
         *     `paused` why the plan holds extraction back.
         */
        StrategyStatus: {
            /** Processed Through Seq */
            processed_through_seq: number;
            /** Pending Runs */
            pending_runs: number;
            /** Records Written */
            records_written: number;
            /** Last Error */
            last_error: string | null;
            /** Paused */
            paused: string | null;
            /** Enabled */
            enabled: boolean;
            /** Updated At */
            updated_at: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * StrategyView
         * @description An extraction strategy (docs/adr/0051): its namespace a template (`{actor_id}`, `{thread_id}`, `{strategy}`).
         */
        StrategyView: {
            /** Name */
            name: string;
            /**
             * Type
             * @enum {string}
             */
            type: "facts" | "preferences" | "summary" | "custom";
            /** Namespace */
            namespace: string;
            trigger: components["schemas"]["ExtractionTrigger"];
            /** Instructions */
            instructions: string | null;
            /** Enabled */
            enabled: boolean;
            /** Created At */
            created_at: string;
            /** Updated At */
            updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** ThreadConfigRequest */
        ThreadConfigRequest: {
            /** Max Runs */
            max_runs?: number | null;
            /** Memory Type */
            memory_type?: ("buffer" | "summary") | null;
            /** Offset */
            offset?: number | null;
            /** Retention Days */
            retention_days?: number | null;
            /** Actor Id */
            actor_id?: string | null;
        };
        /** ThreadExtraction */
        ThreadExtraction: {
            /** Thread Id */
            thread_id: string;
            /** Strategies */
            strategies: {
                [key: string]: components["schemas"]["StrategyStatus"];
            };
        } & {
            [key: string]: unknown;
        };
        /**
         * ThreadSearchHit
         * @description One hit of a conversation search (docs/adr/0049): the run (Griptape Run JSON, as list-runs answers it) or
         *     the session item, the thread it was found in (a fork's shared run: the fork searched), its seq, the ranking's
         *     score, the rerank model's score when one is set and scored it (docs/adr/0068), and with `context`, the runs
         *     (items) around it in that thread.
         */
        ThreadSearchHit: {
            /** Thread Id */
            thread_id: string;
            /** Seq */
            seq: number;
            /** Run Id */
            run_id?: string | null;
            /** Run */
            run?: {
                [key: string]: unknown;
            } | null;
            /** Item Id */
            item_id?: string | null;
            /** Item */
            item?: {
                [key: string]: unknown;
            } | null;
            /** Score */
            score: number;
            /** Rerank Score */
            rerank_score?: number | null;
            /** Created At */
            created_at: string;
            /** Context */
            context?: {
                [key: string]: unknown;
            }[] | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * ThreadSearchRequest
         * @description `POST /threads/search` (direct `search_threads`, MCP `search_conversations`; docs/adr/0049): the tenant's
         *     runs and session items by meaning and words, in `thread_ids` and/or under `thread_prefix` (both: the named
         *     threads under the prefix; neither: every thread), created in [`since`, `until`).
         */
        ThreadSearchRequest: {
            /** Query */
            query: string;
            /** Thread Prefix */
            thread_prefix?: string | null;
            /** Thread Ids */
            thread_ids?: string[] | null;
            /**
             * Limit
             * @default 10
             */
            limit?: number;
            /**
             * Mode
             * @default hybrid
             * @enum {string}
             */
            mode?: "hybrid" | "bm25" | "knn";
            /** Since */
            since?: string | null;
            /** Until */
            until?: string | null;
            /** Consistency */
            consistency?: "search" | null;
            /**
             * Context
             * @default 0
             */
            context?: number;
        };
        /**
         * ThreadSearchResult
         * @description The best hits first (ties: newest first; with a rerank model, those it scored first in its order); only runs
         *     and items DynamoDB still holds, visible in a thread searched.
         */
        ThreadSearchResult: {
            /** Hits */
            hits: components["schemas"]["ThreadSearchHit"][];
        } & {
            [key: string]: unknown;
        };
        /** ThreadView */
        ThreadView: {
            /** Thread Id */
            thread_id: string;
        } & {
            [key: string]: unknown;
        };
        /**
         * ThreadsPage
         * @description A page of a tenant's threads by id (each without its summary text); None: no more.
         */
        ThreadsPage: {
            /** Threads */
            threads: {
                [key: string]: unknown;
            }[];
            /** Next Cursor */
            next_cursor: string | null;
        } & {
            [key: string]: unknown;
        };
        /**
         * TokenRequest
         * @description `POST /keys/{key_id}/tokens`: a short-lived token of the key, for `ttl_seconds` (at most an hour), with the
         *     key's scope or a narrower one.
         */
        TokenRequest: {
            /** Ttl Seconds */
            ttl_seconds: number;
            scopes?: components["schemas"]["Scope"] | null;
        };
        /**
         * Trigger
         * @description When a conversation has settled: `after_runs` new runs, the newest `idle_seconds` old.
         */
        Trigger: {
            /**
             * After Runs
             * @default 1
             */
            after_runs?: number;
            /**
             * Idle Seconds
             * @default 0
             */
            idle_seconds?: number;
        };
        /**
         * TypedBlobView
         * @description LangGraph's `serde.dumps_typed` pair: its type and the bytes as base64.
         */
        TypedBlobView: {
            /** Type */
            type: string;
            /** Data */
            data: string;
        } & {
            [key: string]: unknown;
        };
        /** Upload */
        Upload: {
            /** Upload Id */
            upload_id: string;
            /** Url */
            url: string;
            /** Expires In */
            expires_in: number;
            /** Headers */
            headers: {
                [key: string]: string;
            };
            /** S3 Uri */
            s3_uri: string;
        } & {
            [key: string]: unknown;
        };
        /** Usage */
        Usage: {
            /** Tenant */
            tenant: string;
            /** Days */
            days: {
                [key: string]: unknown;
            }[];
            /** Totals */
            totals: {
                [key: string]: unknown;
            };
            /** Stored Bytes */
            stored_bytes: number;
            /** Plan */
            plan?: {
                [key: string]: unknown;
            } | null;
        } & {
            [key: string]: unknown;
        };
        /** WriteIn */
        WriteIn: {
            /** Idx */
            idx: number;
            /** Channel */
            channel: string;
            value: components["schemas"]["Blob"];
        };
        /**
         * WritesPut
         * @description `PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes`.
         */
        WritesPut: {
            /**
             * Checkpoint Ns
             * @default
             */
            checkpoint_ns?: string;
            /** Task Id */
            task_id: string;
            /**
             * Task Path
             * @default
             */
            task_path?: string;
            /** Writes */
            writes: components["schemas"]["WriteIn"][];
        };
        /** WritesStored */
        WritesStored: {
            /** Stored */
            stored: number;
        } & {
            [key: string]: unknown;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    find_threads_api_threads_get: {
        parameters: {
            query: {
                alias: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread with that alias, or none */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudThreadsPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    create_thread_api_threads_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CloudThreadIn"];
            };
        };
        responses: {
            /** @description The thread */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudThread"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_thread_api_threads__thread_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudThread"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_thread_api_threads__thread_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    patch_thread_api_threads__thread_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CloudThreadPatch"];
            };
        };
        responses: {
            /** @description The thread */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudThread"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_messages_api_threads__thread_id__messages_get: {
        parameters: {
            query?: {
                page?: number;
                page_size?: number;
            };
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Messages, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CloudMessagesPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_audit_audit_get: {
        parameters: {
            query?: {
                since?: string | null;
                until?: string | null;
                key_id?: string | null;
                limit?: number | null;
                cursor?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit entries and the cursor of the next */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_checkpoint_threads__thread_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_checkpoint_threads__thread_id__checkpoint_get: {
        parameters: {
            query?: {
                checkpoint_ns?: string;
                checkpoint_id?: string | null;
            };
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkpoint tuple */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointTupleView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list__checkpoint_threads__thread_id__checkpoints_list_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckpointList"];
            };
        };
        responses: {
            /** @description A page of checkpoint tuples */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointsPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    put_checkpoint_threads__thread_id__checkpoints__checkpoint_id__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
                checkpoint_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckpointPut"];
            };
        };
        responses: {
            /** @description The checkpoint's key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointKey"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    writes_checkpoint_threads__thread_id__checkpoints__checkpoint_id__writes_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
                checkpoint_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WritesPut"];
            };
        };
        responses: {
            /** @description How many writes were stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WritesStored"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    copy_checkpoint_threads__thread_id__copy_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckpointCopy"];
            };
        };
        responses: {
            /** @description The copy */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointThreadCopied"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    prune_checkpoint_threads__thread_id__prune_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckpointPrune"];
            };
        };
        responses: {
            /** @description Pruned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointThreadPruned"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_page_console_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The console's page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_asset_console__asset__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                asset: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/javascript": unknown;
                    "text/css": unknown;
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_export_export_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export's manifest URL and counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportResult"];
                };
            };
            /** @description Not exported yet: the tenant's data is still being indexed (data from before the tenant index); repeat the request after Retry-After seconds */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExportPending"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    list_all_extraction_strategies_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every strategy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StrategiesList"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_extraction_strategies__name__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The strategy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StrategyView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    put_extraction_strategies__name__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StrategyPut"];
            };
        };
        responses: {
            /** @description The strategy as stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StrategyView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_extraction_strategies__name__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_keys_keys_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyList"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_key_keys_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["KeyRequest"] | null;
            };
        };
        responses: {
            /** @description The new key; its secret is never shown again */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewKey"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_key_keys__key_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_token_keys__key_id__tokens_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description The token; never stored, never shown again */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewToken"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_mcp_mcp_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Outside the calling key's scope (scope_denied; docs/keys.md), or a browser request from a web origin this endpoint does not allow (origin_refused) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_mcp_mcp_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The JSON-RPC response (a tool's failure is a result with isError: true) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                };
            };
            /** @description A notification or a response was accepted (no body) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not JSON (-32700), not a JSON-RPC 2.0 request (-32600) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Outside the calling key's scope (scope_denied; docs/keys.md), or a browser request from a web origin this endpoint does not allow (origin_refused) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Accept does not allow application/json (-32600) */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (-32600) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                };
            };
            /** @description Content-Type is not JSON (-32600) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcMessage"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_meta_memories__memory_name__meta_get: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string | null;
            };
            header?: never;
            path: {
                memory_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Meta entries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MetaPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_namespaces_memories__memory_name__namespaces_get: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string | null;
            };
            header?: never;
            path: {
                memory_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Namespace records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespacesPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_namespace_memories__memory_name__namespaces__namespace__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_name: string;
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NamespaceRecord"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_namespace_memories__memory_name__namespaces__namespace__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_name: string;
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_artifacts_memories__memory_name__namespaces__namespace__artifacts_get: {
        parameters: {
            query?: {
                /** @description the X-Offprompt-Ref its store answered: read without a lookup when it still names the namespace as it is (docs/adr/0053); otherwise, or absent, the namespace is read by name */
                ref?: string | null;
            };
            header?: never;
            path: {
                memory_name: string;
                namespace: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ListArtifact JSON, byte-exact, whenever it fits a response (5 MB); past that, a blob namespace answers BlobDownloads (presigned GETs of the stored objects; an artifact's value is the base64 of what its download_url returns) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoadedNamespace"];
                };
            };
            /** @description A text namespace too large to answer inline: Location is a presigned GET of the JSON */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Download"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_search_memories__memory_name__namespaces__namespace__search_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_name: string;
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description Hits, best first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchHits"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_output_memories__memory_name__outputs_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OutputRequest"];
            };
        };
        responses: {
            /** @description The artifact to give the model */
            200: {
                headers: {
                    /** @description whether the output was stored */
                    "X-Offprompt-Stored"?: string;
                    /** @description with consistency "search": whether a search finds the stored text now (false: the index was slower than the wait; the text is stored and loadable all the same) */
                    "X-Offprompt-Searchable"?: "true" | "false";
                    /** @description true when an idempotency_key retry got the first request's answer (nothing stored again) */
                    "X-Offprompt-Replayed"?: string;
                    /** @description a store that created a blob namespace: the reference its load may pass as `ref` to read it without a lookup (docs/adr/0053); opaque, and only ever a shortcut: any ref loads what the namespace holds */
                    "X-Offprompt-Ref"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ArtifactJSON"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_upload_memories__memory_name__uploads_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    configure_record_namespaces__namespace__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NamespaceSettings"];
            };
        };
        responses: {
            /** @description The namespace's settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordNamespaceSettings"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    namespaces_records_namespaces_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NamespacesQuery"];
            };
        };
        responses: {
            /** @description Namespaces, sorted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordNamespaces"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    search_records_search_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordSearch"];
            };
        };
        responses: {
            /** @description Records, best first (newest first without a query) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordsFound"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_records__namespace___key__get: {
        parameters: {
            query?: {
                as_of?: string | null;
                refresh_ttl?: boolean;
            };
            header?: never;
            path: {
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    put_records__namespace___key__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordPut"];
            };
        };
        responses: {
            /** @description The record as stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_records__namespace___key__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    history_records__namespace___key__history_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                namespace: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Versions with their validity windows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecordHistory"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_tenant_tenant_delete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EraseRequest"];
            };
        };
        responses: {
            /** @description What was deleted, and that nothing is left (verified) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EraseReport"];
                };
            };
            /** @description API keys fenced and the data deleted (`status: erasing`), or the tenant's data still being indexed (`status: indexing`: nothing deleted yet); repeat the request after Retry-After seconds to go on, verify and finish (a request admitted before the fence may still land a write until then; the key works until the end) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErasePending"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_threads_threads_get: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string | null;
                prefix?: string | null;
                order?: "activity" | "id";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Threads in the order asked; `next_cursor` reads the next page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadsPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_search_threads_search_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThreadSearchRequest"];
            };
        };
        responses: {
            /** @description The best hits first */
            200: {
                headers: {
                    /** @description with consistency "search": "true" when every write acknowledged before the request, in the threads searched, was searchable; "false" when the bounded wait gave up (the hits are still only runs DynamoDB holds) */
                    "X-Offprompt-Searchable"?: "true" | "false";
                    /** @description with a rerank model set (RerankModelId, docs/adr/0068): "true" when it ordered the hits, "false" when it failed and the hits are in the fused order */
                    "X-Offprompt-Reranked"?: "true" | "false";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadSearchResult"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_thread_threads__thread_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The thread */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    put_thread_threads__thread_id__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThreadConfigRequest"];
            };
        };
        responses: {
            /** @description The thread */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadView"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    delete_thread_threads__thread_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done (also when there was nothing to delete) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    status_threads__thread_id__extraction_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each strategy's status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ThreadExtraction"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_fork_threads__thread_id__fork_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForkRequest"];
            };
        };
        responses: {
            /** @description The fork */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForkedThread"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_items_threads__thread_id__items_get: {
        parameters: {
            query?: {
                limit?: number | null;
                before?: number | null;
                max_tokens?: number | null;
            };
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The newest `limit` items before `before` (or those that fit `max_tokens`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ItemsPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_items_threads__thread_id__items_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ItemsIn"];
            };
        };
        responses: {
            /** @description The items' seqs, in order */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ItemsAppended"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    pop_item_threads__thread_id__items_pop_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The item removed, or null */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PoppedItem"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_prompt_stack_threads__thread_id__prompt_stack_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PromptStackRequest"];
            };
        };
        responses: {
            /** @description Griptape PromptStack JSON */
            200: {
                headers: {
                    /** @description Tokens of the rendered prompt stack */
                    "X-Offprompt-Prompt-Tokens"?: number;
                    /** @description true when max_tokens is smaller than the system and input messages alone */
                    "X-Offprompt-Over-Budget"?: "true" | "false";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PromptStackJSON"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_runs_threads__thread_id__runs_get: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string | null;
                order?: "asc" | "desc";
                as_of_run?: string | null;
            };
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Runs, oldest first (asc) or newest first (desc) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunsPage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    post_run_threads__thread_id__runs_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunIn"];
            };
        };
        responses: {
            /** @description The run as stored and its sequence number */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AddRunResponse"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    get_usage_usage_get: {
        parameters: {
            query?: {
                from?: string | null;
                to?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage counters */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No caller identity (unauthenticated) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (not_found) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Known path, wrong method (method_not_allowed; the Allow header lists the methods) */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflicts with what is stored (conflict) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too large (payload_too_large) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity and numbers beyond a double, such as 1e400, are not JSON: finite_number) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); nothing was written */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Server misconfiguration (configuration_error) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A dependency failed or timed out; nothing was committed, safe to retry */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
}
