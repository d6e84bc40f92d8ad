"""Files shipped inside the package (hooks, schemas).

A wheel puts them next to the package's modules and a source checkout at the top of the
repository: both are plain folders, found without importing importlib.resources (~20 ms,
paid by every pre-push hook). Only an unusual install (a zip archive) needs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable


def _dir(name: str) -> Path | Traversable:
    here = Path(__file__).resolve().parent
    for folder in (here / name, here.parents[1] / name):  # wheel, then checkout
        if folder.is_dir():
            return folder
    # lazy: only an installed layout without the folders needs it
    from importlib import resources

    return resources.files("git_vcontext").joinpath(name)


def hooks_dir() -> Path | Traversable:
    """The folder of hook shims (``pre-push``)."""
    return _dir("hooks")


def schemas_dir() -> Path | Traversable:
    """The folder of bundled JSON Schemas."""
    return _dir("schemas")
