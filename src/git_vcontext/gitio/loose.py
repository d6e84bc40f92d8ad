"""One loose object of a repository read without pygit2, whose import is most of what a hook
with almost nothing to do costs: the server's guard reads the commit of a push that only
takes ``sync --push``'s lease this way (``commands.pre_receive.nothing_to_check``).

Only what is certain is answered: an object that is not loose in the directories given
(packed, behind an alternate, absent), too big, or not well-formed is None, and the caller
does the full work with pygit2.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_OBJECT = 1 << 16  # a lease commit is a few hundred bytes
EMPTY_TREES = frozenset(
    {
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",  # SHA-1
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",  # SHA-256
    }
)
HEX = "0123456789abcdef"


def is_oid(text: str) -> bool:
    """Whether ``text`` is an object id as git writes it: 40 (SHA-1) or 64 (SHA-256)
    lowercase hexadecimal digits (no ``re``: the guard's light paths do without it)."""
    return len(text) in (40, 64) and not text.strip(HEX)


def loose_dirs(git_dir: str) -> list[str]:
    """Where a hook reads loose objects itself: the push's quarantine (git's
    ``GIT_QUARANTINE_PATH`` for pre-receive), then the repository's ``objects``, when git's
    environment says exactly that (``GIT_OBJECT_DIRECTORY`` the quarantine or unset,
    ``GIT_ALTERNATE_OBJECT_DIRECTORIES`` the repository's store or unset, the quarantine
    inside that store), so an object found there is the one git would read; an empty list
    otherwise (git reads them all)."""
    env = os.environ
    own = os.path.realpath(os.path.join(git_dir, "objects"))
    quarantine = env.get("GIT_QUARANTINE_PATH")
    where = env.get("GIT_OBJECT_DIRECTORY")
    others = env.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
    if quarantine:
        quarantine = os.path.realpath(quarantine)
        if os.path.dirname(quarantine) != own:
            return []
    if where is not None and os.path.realpath(where) not in (quarantine, own):
        return []
    if others is not None and others and os.path.realpath(others) != own:
        return []
    return [d for d in (quarantine, own) if d]


def loose_object(
    dirs: Sequence[str], oid: str, limit: int = MAX_OBJECT
) -> tuple[str, bytes] | None:
    """(type, content) of the loose object ``oid`` in the first of ``dirs`` holding it;
    None when none does, or it is bigger than ``limit`` (compressed or not)."""
    if not is_oid(oid):
        return None
    for folder in dirs:
        try:
            with open(os.path.join(folder, oid[:2], oid[2:]), "rb") as fh:
                raw = fh.read(limit + 1)
        except OSError:
            continue
        import zlib  # lazy: the guard's light path asks only when it reads objects

        inflate = zlib.decompressobj()
        try:
            data = inflate.decompress(raw, limit + 64)
        except zlib.error:
            return None
        if not inflate.eof or len(raw) > limit:
            return None  # truncated, or bigger than anything this reader is for
        head, sep, body = data.partition(b"\0")
        kind, _, size = head.partition(b" ")
        if not sep or not size.isdigit() or int(size) != len(body):
            return None
        return kind.decode("ascii", "replace"), body
    return None


def is_empty_root_commit(dirs: Sequence[str], oid: str) -> bool:
    """Whether ``oid`` is, for certain, a commit of the empty tree without parents (what a
    ``sync --push`` lease ref points to): a commit that changes no file."""
    found = loose_object(dirs, oid)
    if found is None or found[0] != "commit":
        return False
    header = found[1].split(b"\n\n", 1)[0].split(b"\n")
    if not header[0].startswith(b"tree "):
        return False
    tree = header[0][len(b"tree ") :].decode("ascii", "replace")
    return tree in EMPTY_TREES and not any(line.startswith(b"parent ") for line in header)
