# A package, so that its conftest.py is grammar.conftest and does not shadow the conftest of
# python/tests (whose FIXTURES and ROOT the tests there import).
