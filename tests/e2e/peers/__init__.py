"""(a package: its conftest's package-scoped stack stops when the package's tests are done)"""
