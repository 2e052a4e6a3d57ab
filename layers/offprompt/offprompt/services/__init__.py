"""Use cases wired from ports: what the Lambda handlers (HTTP and direct) call."""
