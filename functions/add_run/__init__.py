"""Lambda function: add-run."""
