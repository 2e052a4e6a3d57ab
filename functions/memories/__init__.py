"""The memories Lambda function."""
