"""Task memory's size, time and search limits."""

# Batch entries bigger than this go to an S3 manifest (DynamoDB items are capped at 400 KB).
MAX_INLINE_ENTRIES_BYTES = 300_000
# Values given by reference (`value_from`) may be this large.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024
UPLOAD_EXPIRES_IN = 900
DOWNLOAD_EXPIRES_IN = 900
# A ListArtifact JSON larger than this is handed out as a presigned S3 GET (Lambda responses are capped at 6 MB).
MAX_INLINE_RESPONSE_BYTES = 5 * 1024 * 1024
MAX_TOP_K = 100
MAX_QUERY_CHARS = 10_000
SEARCH_MODES = ("bm25", "knn", "hybrid")
