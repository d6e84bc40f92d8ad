"""The operating system's calls of the processes git starts once per file (the merge
driver, the diff): ``posix`` itself where there is one, else ``os``.

Python started without ``site`` (as install's command starts the driver) has not loaded
``os``; importing it loads ``stat``, ``posixpath``, ``genericpath`` and
``_collections_abc`` too, ~5 M of a JSON merge's ~99 M instructions (callgrind). Every
call the driver makes (open, write, fsync, chmod, replace, stat, readlink, getpid,
urandom, listdir) is ``posix``'s own function, the one ``os`` re-exports; the few things
``os`` adds (its path functions, ``environ`` as text) are written out here for POSIX and
taken from ``os`` elsewhere, so that one code (fsio.write_atomic, entry's module finder)
runs on either module."""

from __future__ import annotations

import sys

if sys.platform != "win32":
    import posix as system

    SEP = "/"
else:  # no posix module: os (nt) and its path functions
    import os as system

    SEP = system.sep

import _stat as stat  # what stat.py re-exports (S_ISREG, …), without loading it

__all__ = ["SEP", "basename", "dirname", "getenv", "join", "stat", "system"]


def dirname(path: str) -> str:
    """``os.path.dirname``."""
    if SEP != "/":
        import os

        return os.path.dirname(path)
    head = path[: path.rfind("/") + 1]
    if head and head != "/" * len(head):
        head = head.rstrip("/")
    return head


def basename(path: str) -> str:
    """``os.path.basename``."""
    if SEP != "/":
        import os

        return os.path.basename(path)
    return path[path.rfind("/") + 1 :]


def join(folder: str, name: str) -> str:
    """``os.path.join`` of a folder and one more name."""
    if SEP != "/":
        import os

        return os.path.join(folder, name)
    if name.startswith("/") or not folder:
        return name
    return folder + name if folder.endswith("/") else folder + "/" + name


def getenv(name: str) -> str | None:
    """``os.environ.get(name)``: from ``os.environ`` once something loaded ``os`` (it may
    have been changed since the start), else the process's environment as it started,
    decoded as ``os`` decodes it."""
    loaded = sys.modules.get("os")
    if loaded is not None or SEP != "/":
        import os

        return os.environ.get(name)
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    value = system.environ.get(name.encode(encoding, errors))
    return None if value is None else value.decode(encoding, errors)
