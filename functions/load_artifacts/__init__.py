"""The load_artifacts Lambda function."""
