"""Helpers shared by the tests, imported as ``helpers.<module>`` (never conftest, never a test)."""
