# A package, so that its conftest.py is grammar.conftest and does not shadow the conftest of
# python/tests (the tests there import FIXTURES and ROOT from tckpaths.py).
