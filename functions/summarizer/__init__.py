"""Lambda function: summarizer."""
