"""Lambda function: the MCP endpoint (`POST /mcp`, docs/adr/0032-mcp-endpoint.md)."""
