"""The process_output Lambda function."""
