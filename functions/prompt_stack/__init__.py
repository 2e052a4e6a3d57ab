"""Lambda function: prompt-stack."""
