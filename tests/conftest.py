"""Root conftest: the shared fixtures (local OpenSearch, fake AWS, moto) live in offprompt_local.pytest_plugin."""

pytest_plugins = ["offprompt_local.pytest_plugin"]
