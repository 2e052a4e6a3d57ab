"""Root conftest: the shared fixtures (local OpenSearch, fake AWS, moto) live in offprompt_local.pytest_plugin; the
order xdist's workers take the test files in (longest first) in tests/file_order.py."""

pytest_plugins = ["offprompt_local.pytest_plugin", "file_order"]
