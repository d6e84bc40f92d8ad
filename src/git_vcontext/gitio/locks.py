"""Lock files (``<ref>.lock``, ``index.lock``) left behind by a process that was killed.

git holds a ref's lock for milliseconds (it gives up on one after 100 ms:
``core.filesRefLockTimeout``); a lock file that stays for seconds belongs to a process
that died. Such a lock on a ref only ``sync`` writes (``refs/vcontext/…``: leases,
requests, what it fetched) is removed once it is ``STALE_AFTER`` seconds old; any other
(a branch, a remote-tracking ref, the index) is named with what to do, as git does, and
never removed by us.
"""

from __future__ import annotations

import os
import re
import time

STALE_AFTER = 5.0
"""Seconds after which a lock file is taken as left by a dead process."""
OURS = "refs/vcontext/"
_QUOTED = re.compile(r"'([^']+\.lock)'")


def named_lock(text: str) -> str | None:
    """The lock file a git or libgit2 message names (``'…/main.lock'``), if any. A ref's
    name may hold a quote (``agents/x'y``), which ends ``'…'`` early: then the quoted span
    ending in ``.lock'`` that names a file here is the one (else such a lock was never
    named, and "sync again" was all sync could say, for ever)."""
    found = _QUOTED.search(text)
    if found and os.path.lexists(found.group(1)):
        return found.group(1)
    for end in (m.start() + len(".lock") for m in re.finditer(r"\.lock'", text)):
        line = text.rfind("\n", 0, end) + 1
        for start in (i for i in range(line, end) if text[i] == "'"):  # the longest first
            path = text[start + 1 : end]
            if "'" in path and os.path.lexists(path):
                return path
    return found.group(1) if found else None


def age(path: str) -> float | None:
    """Seconds since the lock file was made; None when it is gone."""
    try:
        return max(0.0, time.time() - os.stat(path).st_mtime)
    except OSError:
        return None


def is_ours(path: str) -> bool:
    """Whether the lock is that of a ref only git-vcontext writes."""
    return f"/{OURS}" in path.replace(os.sep, "/")


def settle(path: str, *, ours: bool | None = None, sleep: object = time.sleep) -> bool:
    """Wait for a lock file to go away (at most until it is ``STALE_AFTER`` seconds old):
    True when it went, or when it was left stale on a ref of ours (``is_ours``) and has
    been removed; False when it stays (see ``advice``)."""
    ours = is_ours(path) if ours is None else ours
    deadline = time.monotonic() + STALE_AFTER + 1.0
    while True:
        held = age(path)
        if held is None:
            return True
        if held >= STALE_AFTER or time.monotonic() > deadline:
            return ours and _remove(path)
        assert callable(sleep)
        sleep(0.05)


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def advice(path: str) -> str:
    """What to do about a lock file that stays: one clause, with the command (the path
    shell-quoted: a ref's name may hold a quote or ``$(…)``, which a pasted ``'PATH'``
    would end or run)."""
    held = age(path)
    when = "" if held is None else f", made {held:.0f} s ago"
    return (
        f"{path} is in the way (a lock file{when}, most likely left by a git process that "
        f"was killed): if no git command is running there, remove it: {removal(path)}"
    )


def removal(path: str) -> str:
    """The command that removes a lock file, its path one single-quoted word of a command
    line (a quote in it as ``'\\''``; a control character: ``command_word``'s ``$'…'``)."""
    if path.startswith("-"):
        path = f"./{path}"
    if any(ch < " " or ch == "\x7f" for ch in path):
        from ..validation.model import command_word

        return f"rm -f {command_word(path)}"
    return "rm -f '" + path.replace("'", "'\\''") + "'"
