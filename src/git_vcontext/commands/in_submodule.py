"""``log``, ``blame`` and ``diff`` of a path inside a submodule: what to run there instead.

A submodule is a repository of its own: the superproject's history holds only which commit
of it each of its commits uses, never its files. So a path in it is answered with the same
command run in the submodule (``git -C sub vcontext log -- todo.vcontext.json``), the
superproject's revisions replaced by the submodule commits they record, on one line (exit 3).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import OperationalError
from ..gitio import revision_range, workdir
from ..gitio.submodules import containing, recorded
from ..validation.model import command_word, quoted_path

if TYPE_CHECKING:
    from pygit2 import Repository

_PLAIN = re.compile(r"[\w@%+=:,./#^~-]+")


def check(
    repo: Repository,
    command: str,
    targets: Sequence[tuple[str, str, str]],
    *,
    revs: Sequence[str] = (),
    before: Sequence[str] = (),
    after: Sequence[str] = (),
    dash_dash: bool = True,
    rev_option: str | None = None,
) -> None:
    """OperationalError when a target lies in a submodule, naming what to run there.

    ``targets``: (path from the top, as named, what follows the file name in the argument,
    e.g. ``#t1``); ``revs``: the superproject's revisions (ranges too), translated;
    ``before``/``after``: the other arguments of the command, around the targets;
    ``rev_option``: a revision given as ``--rev REV`` (translated too)."""
    for path, shown, _ in targets:
        sub = containing(repo, path)
        if sub is None:
            continue
        inside = [_inner(p, sub) + s for p, _, s in targets if p == sub or p.startswith(sub + "/")]
        where = os.path.relpath(workdir(repo) / sub, os.getcwd())
        what = ("submodule " if path == sub else "in submodule ") + quoted_path(sub)
        head = f"{quoted_path(shown)}: {what}, a repository of its own"
        try:
            translated = [_translate(repo, rev, sub) for rev in revs]
            if rev_option is not None:
                after = [*after, "--rev", _translate(repo, rev_option, sub)]
        except _NotThere as exc:
            shown_log = _command(where, ["log", "--", *inside])
            raise OperationalError(
                f"{head}, which {exc.rev} does not have ({shown_log} shows its history)"
            ) from None
        words = [command, *translated, *before, *(["--"] if dash_dash else []), *inside, *after]
        raise OperationalError(
            f"{head} (the history of its files is there): run {_command(where, words)}"
        )


class _NotThere(Exception):
    """A revision of the superproject that records no commit of the submodule."""

    def __init__(self, rev: str) -> None:
        super().__init__(rev)
        self.rev = rev


def _command(where: str, words: Sequence[str]) -> str:
    return f"git -C {_quote(where)} vcontext " + " ".join(_quote(w) for w in words)


def _inner(path: str, sub: str) -> str:
    """``path`` from the top of the submodule (``.``: the submodule itself)."""
    return path[len(sub) + 1 :] if path != sub else "."


def _translate(repo: Repository, rev: str, sub: str) -> str:
    """A revision of the superproject as the commit of ``sub`` it records (``A..B``,
    ``A...B`` and ``^A`` side by side)."""
    if rev.startswith("^") and len(rev) > 1:
        return "^" + _commit(repo, rev[1:], sub)
    if revision_range(repo, rev) is not None:
        dots = "..." if "..." in rev else ".."
        left, right = rev.split(dots, 1)
        return _commit(repo, left or "HEAD", sub) + dots + _commit(repo, right or "HEAD", sub)
    return _commit(repo, rev, sub)


def _commit(repo: Repository, rev: str, sub: str) -> str:
    found = recorded(repo, rev, sub)
    if found is None:
        raise _NotThere(rev)
    return found[:12]


def _quote(word: str) -> str:
    """A word as a shell reads it back: ``#`` inside a word is no comment, but a leading
    ``#`` starts one and a leading ``~`` is a home folder, so those are quoted; on one line
    (``command_word``: a newline in a name is ``$'…\\n…'``)."""
    if _PLAIN.fullmatch(word) and not word.startswith(("#", "~")):
        return word
    return command_word(word)
