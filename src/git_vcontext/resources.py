"""Files shipped inside the package (hooks, schemas), found through importlib.resources."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path


def _dir(name: str) -> Traversable:
    packaged = resources.files("git_vcontext").joinpath(name)
    if packaged.is_dir():
        return packaged
    # Editable installs and source checkouts: the folder sits at the top of the repo.
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    return packaged


def hooks_dir() -> Traversable:
    """The folder of hook shims (``pre-push``)."""
    return _dir("hooks")


def schemas_dir() -> Traversable:
    """The folder of bundled JSON Schemas."""
    return _dir("schemas")
