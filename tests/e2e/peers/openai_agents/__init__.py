"""(a package of tests/e2e/peers)"""
