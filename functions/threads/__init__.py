"""Lambda function: threads."""
