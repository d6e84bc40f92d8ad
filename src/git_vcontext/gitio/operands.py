"""Values from outside that reach git, checked as what they are.

Every remote, branch, agent name, revision and path that a person (the command line) or
an MCP client (a tool argument: hostile input) gives goes through one of these checks
before a git command or a pygit2 call sees it; ``gitio.git`` then passes such values
after ``--``. Together: no value from outside is ever read by git as an option.

- a remote is a configured remote, a URL git speaks (``ssh://``, ``git://``,
  ``http(s)://``, ``file://``, ``[user@]host:path``) or the path of a repository on this
  machine; never a remote helper's ``transport::address`` (``ext::`` runs a command);
- a branch (agent) name passes ``git check-ref-format --branch``;
- a revision or a path is one line of text;
- none of them is empty or starts with ``-``.

A value that cannot be one (``--upload-pack=…``) is a UsageError (exit 2); a remote that
is none of these, e.g. a name no ``git remote`` has, an OperationalError (exit 3), as git's
own "does not appear to be a git repository".
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from ..errors import URL_SCHEME, OperationalError, UsageError, shown_text, shown_url

if TYPE_CHECKING:
    from pygit2 import Repository

URL_SCHEMES = ("ssh", "git", "http", "https", "file", "git+ssh", "ssh+git")
"""The transports a remote URL may name: git's own (the remote helpers of ``X::`` and
schemes such as ``ext`` run programs of the URL's choosing)."""

_URL = re.compile(URL_SCHEME)
_HELPER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9+.-]*::")  # <transport>::<address>
"""A remote helper's address as git's ``transport_get`` reads it (``is_urlschemechar``: a
letter or a digit, then letters, digits, ``+.-``; then ``::``)."""
_SCP = re.compile(r"^(?:[^@/:]+@)?(\[[^\]/]+\]|[^:/\[\]]+):")  # [user@]host:path


def plain(value: object, what: str) -> str:
    """``value`` when it is non-empty text of one line that does not start with ``-``."""
    if not isinstance(value, str) or not value:
        raise UsageError(f"{what} is empty")
    if value.startswith("-"):
        raise UsageError(f"{what} {value!r} starts with '-': git would read it as an option")
    if any(ord(c) < 32 or c == "\x7f" for c in value):
        raise UsageError(f"{what} {value!r} holds a control character")
    if not _utf8(value):
        raise UsageError(f"{what} {value!r} is not UTF-8 text")
    return value


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8 on the command line
        return False
    return True


def branch(value: object, what: str = "branch") -> str:
    """A local branch's short name as git accepts it (``git check-ref-format --branch``);
    ``refs/heads/NAME`` is taken as NAME."""
    # lazy: pygit2 is slow to import
    import pygit2

    name = plain(value, what).removeprefix("refs/heads/")
    valid = name != "@" and pygit2.reference_is_valid_name(f"refs/heads/{name}")
    if not valid or name.startswith("-"):
        raise UsageError(f"not a valid {what} name: {value!r}")
    return name


def ref(value: object, what: str = "ref") -> str:
    """A full reference name (``refs/...``) as git accepts it."""
    # lazy: pygit2 is slow to import
    import pygit2

    name = plain(value, what)
    if not name.startswith("refs/") or not pygit2.reference_is_valid_name(name):
        raise UsageError(f"not a valid {what}: {value!r}")
    return name


def revision(value: object, what: str = "revision") -> str:
    """A revision (``HEAD``, a branch, ``main~2``, ``A..B``, ``^A``): one line, no option."""
    return plain(value, what)


def path(value: object, what: str = "path") -> str:
    """A file name given for git (passed after ``--``, so it may start with ``-`` there):
    text without NUL."""
    if not isinstance(value, str) or not value:
        raise UsageError(f"{what} is empty")
    if "\0" in value:
        raise UsageError(f"{what} {value!r} holds a NUL character")
    return value


def remote(repo: Repository | None, value: object, what: str = "remote") -> str:
    """A remote to fetch from or push to: a remote configured in ``repo`` (``git remote``), a
    URL of one of git's own transports, or the path of a repository on this machine."""
    name = plain(value, what)
    if repo is not None and name in configured(repo):
        return name
    hint = "a configured remote (git remote -v), a URL or the path of a repository"
    scheme = _URL.match(name)
    if scheme is not None:
        if scheme.group(1).lower() not in URL_SCHEMES:
            raise UsageError(
                f"{what} {shown_url(name)!r}: transport {scheme.group(1)!r} is not allowed "
                f"(only {', '.join(URL_SCHEMES)})"
            )
        where = name[scheme.end() :].split("/", 1)[0]
        if any(part.startswith("-") for part in where.split("@")):  # ssh would read an option
            raise UsageError(f"{what} {shown_url(name)!r}: a user or host name starts with '-'")
        return name
    if remote_helper(name):
        raise UsageError(
            f"{what} {shown_text(name)!r}: a remote helper's address is not allowed; use {hint}"
        )
    if os.path.exists(name) or (repo is not None and _in_top(repo, name)):
        return name
    scp = _SCP.match(name)
    if scp is not None and not scp.group(1).startswith("-"):
        return name
    raise OperationalError(f"{what} {shown_text(name)!r} is not {hint}")


def remote_helper(address: str) -> bool:
    """Whether git reaches ``address`` through a remote helper (``git-remote-X`` for
    ``X::…``), not through one of its own transports: git runs no ssh for it."""
    return _HELPER.match(address) is not None


def configured(repo: Repository) -> list[str]:
    """The names of the remotes configured in ``repo`` (``git remote``)."""
    try:
        return [name for name in repo.remotes.names() if name]
    except Exception:  # a config git cannot read: no named remote
        return []


def upstream_branch(merge: str | None, base: str) -> tuple[str | None, str | None]:
    """What ``branch.BASE.merge`` (``merge``) says of the branch on the remote, as git's
    ``@{upstream}`` reads it: (its name, None) for ``refs/heads/NAME`` with a NAME a command
    line can take; (None, why) when it is set but names no such branch — no
    ``refs/heads/`` name (``trunk``, ``refs/tags/v1``: git's ``@{upstream}`` is none, "not
    stored as a remote-tracking branch", and ``git push`` refuses it), or a name git or a
    command line cannot take (``refs/heads/-x``); (None, None) when it is unset."""
    if not merge:
        return None, None
    setting = f"branch.{base}.merge {shown_text(merge)!r}"
    if not merge.startswith("refs/heads/"):
        return None, (
            f"{setting} names no branch on the remote (git reads one only as"
            " refs/heads/NAME: its @{upstream} is none)"
        )
    try:
        return branch(merge, f"branch.{base}.merge"), None
    except UsageError:
        return None, (
            f"{setting} names no branch a command line can take (not a branch name git"
            " accepts there)"
        )


def shown_branch(remote: str, branch: str, *, named: bool) -> str:
    """A remote's branch as a person reads it: ``origin/main`` for a configured remote
    (``named``), ``main of /srv/x.git`` for a URL or a path, its credentials masked
    (``/srv/x.git/main`` names nothing: git shows the two apart)."""
    return f"{remote}/{branch}" if named else f"{branch} of {shown_url(remote)}"


def _in_top(repo: Repository, name: str) -> bool:
    top = repo.workdir or repo.path
    return bool(top) and os.path.exists(os.path.join(top, name))
