"""The version of git-vcontext: written here once (pyproject.toml reads it from here)."""

__version__ = "0.1.0"
