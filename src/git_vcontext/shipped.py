"""Files shipped inside the package (hooks, schemas).

A wheel puts them next to the package's modules and a source checkout at the top of the
repository: both are plain folders, found without importing importlib.resources (~20 ms,
paid by every pre-push hook) or pathlib (the server's guard reads the schemas on every
push). Only an unusual install (a zip archive) needs importlib.resources.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.abc import Traversable
    from pathlib import Path


def folder(name: str) -> str | None:
    """The plain folder ``name`` ships in (a wheel's, then a checkout's); None when the
    install has none (a zip archive: ``_dir`` reads it through importlib.resources)."""
    here = os.path.dirname(os.path.realpath(__file__))
    for found in (
        os.path.join(here, name),
        os.path.join(os.path.dirname(os.path.dirname(here)), name),
    ):
        if os.path.isdir(found):
            return found
    return None


def _dir(name: str) -> Path | Traversable:
    found = folder(name)
    if found is not None:
        from pathlib import Path  # lazy: see the module

        return Path(found)
    # lazy: only an installed layout without the folders needs it
    from importlib import resources

    return resources.files("git_vcontext").joinpath(name)


def hooks_dir() -> Path | Traversable:
    """The folder of hook shims (``pre-push``)."""
    return _dir("hooks")


def schemas_dir() -> Path | Traversable:
    """The folder of bundled JSON Schemas."""
    return _dir("schemas")
