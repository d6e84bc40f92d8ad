"""Which git operation is in progress (merge, rebase, cherry-pick, revert) and what its sides are.

Read from the files git keeps under the git directory, without running git, so
the merge driver can name the branches in its markers for the price of a few
small reads. During a rebase git's "ours" is the upstream and "theirs" the
commit being replayed: the labels say so.
"""

from __future__ import annotations

import os
import re

from ..record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Literal

    OperationKind = Literal["merge", "rebase", "cherry-pick", "revert"]
    Reader = Callable[[str, str], "tuple[str, str] | None"]


@record
class Operation:
    """The operation in progress and the names of its two sides."""

    kind: OperationKind | None
    ours: str
    theirs: str

    def labels(self) -> dict[str, str]:
        return {"ours": self.ours, "theirs": self.theirs}


def find_git_dir(start: str = ".", env: Mapping[str, str] | None = None) -> str | None:
    """The git directory of the work tree containing ``start`` ($GIT_DIR first); None outside."""
    env = os.environ if env is None else env
    if env.get("GIT_DIR"):
        return os.path.abspath(env["GIT_DIR"])
    here = os.path.abspath(start)
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            return dot_git
        if os.path.isfile(dot_git):  # a linked work tree or submodule: "gitdir: PATH"
            text = _read(dot_git) or ""
            if text.startswith("gitdir:"):
                return os.path.normpath(os.path.join(here, text[7:].strip()))
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def current(git_dir: str | None, env: Mapping[str, str] | None = None) -> Operation:
    """The operation in progress in ``git_dir`` (also while git runs the merge driver)."""
    env = os.environ if env is None else env
    if git_dir is None:
        return Operation(None, "ours", "theirs")
    head = head_branch(git_dir) or "HEAD"
    readers: tuple[tuple[OperationKind, Reader], ...] = (
        ("rebase", _rebase),
        ("cherry-pick", _cherry_pick),
        ("revert", _revert),
        ("merge", _merge),
    )
    for kind, read in readers:
        found = read(git_dir, head)
        if found is not None:
            return Operation(kind, *found)
    heads = [v for k, v in env.items() if k.startswith("GITHEAD_") and v]
    if len(heads) == 1:  # `git merge NAME` sets GITHEAD_<sha>=NAME before it runs drivers
        return Operation("merge", head, _named(git_dir, heads[0]))
    return Operation(None, head, "theirs")


def stopped_at(git_dir: str | None) -> int | None:
    """When the operation in progress last stopped (the time git wrote its head file, in ns):
    choices recorded before that belong to an earlier, aborted attempt."""
    for name in ("REBASE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "MERGE_HEAD"):
        try:
            return os.stat(os.path.join(git_dir or "", name)).st_mtime_ns
        except OSError:
            continue
    return None


def head_branch(git_dir: str) -> str | None:
    """The branch HEAD is on (None when detached)."""
    text = _read(os.path.join(git_dir, "HEAD")) or ""
    if text.startswith("ref: refs/heads/"):
        return text[len("ref: refs/heads/") :].strip()
    return None


def _rebase(git_dir: str, head: str) -> tuple[str, str] | None:
    for folder in ("rebase-merge", "rebase-apply"):
        state = os.path.join(git_dir, folder)
        if os.path.isdir(state):
            break
    else:
        return None
    branch = _short(_read(os.path.join(state, "head-name")) or "") or "HEAD"
    onto = (_read(os.path.join(state, "onto")) or "").strip()
    upstream = _branch_at(git_dir, onto) or onto[:7] or "upstream"
    replayed = _replayed(git_dir, state)
    return (
        f"{upstream} (upstream: rebasing {branch} onto it)",
        f"{replayed}, replayed from {branch}",
    )


def _replayed(git_dir: str, state: str) -> str:
    """``sha (subject)`` of the commit being replayed."""
    done = (_read(os.path.join(state, "done")) or "").strip().splitlines()
    last = done[-1].split(None, 2) if done else []
    if len(last) >= 2 and re.fullmatch(r"[0-9a-f]{7,64}", last[1]):
        subject = f" ({last[2]})" if len(last) > 2 else ""
        return f"{last[1][:7]}{subject}"
    sha = (_read(os.path.join(git_dir, "REBASE_HEAD")) or "").strip()
    return sha[:7] or "the commit being replayed"


def _cherry_pick(git_dir: str, head: str) -> tuple[str, str] | None:
    sha = (_read(os.path.join(git_dir, "CHERRY_PICK_HEAD")) or "").strip()
    if not sha:
        return None
    return head, f"{sha[:7]}{_subject(git_dir)} (cherry-picked)"


def _revert(git_dir: str, head: str) -> tuple[str, str] | None:
    sha = (_read(os.path.join(git_dir, "REVERT_HEAD")) or "").strip()
    if not sha:
        return None
    return head, f"parent of {sha[:7]} (reverting it)"


def _merge(git_dir: str, head: str) -> tuple[str, str] | None:
    sha = (_read(os.path.join(git_dir, "MERGE_HEAD")) or "").split()
    if not sha:
        return None
    name = _merged_name(_read(os.path.join(git_dir, "MERGE_MSG")) or "")
    return head, _named(git_dir, name) if name else _branch_at(git_dir, sha[0]) or sha[0][:7]


def _named(git_dir: str, name: str) -> str:
    """``name`` as git gives it, or the branch at it when it is a bare commit id
    (``git merge 3f2a1bc…``: MERGE_HEAD's branch, when one points there)."""
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", name):
        return _branch_at(git_dir, name) or name
    return name


_MERGED = (
    re.compile(r"^Merge (?:remote-tracking )?branch '([^']+)'"),
    re.compile(r"^Merge (?:tag|commit) '([^']+)'"),
    re.compile(r"^vcontext sync: merge (\S+) into "),
)


def _merged_name(message: str) -> str | None:
    first = message.split("\n", 1)[0]
    for pattern in _MERGED:
        found = pattern.match(first)
        if found:
            return found.group(1)
    return None


def _subject(git_dir: str) -> str:
    first = (_read(os.path.join(git_dir, "MERGE_MSG")) or "").split("\n", 1)[0].strip()
    return f" ({first})" if first else ""


def _branch_at(git_dir: str, sha: str) -> str | None:
    """A local branch whose tip is ``sha`` (loose refs, then packed-refs), if any."""
    if not sha:
        return None
    common = _common_dir(git_dir)
    heads = os.path.join(common, "refs", "heads")
    for root, _dirs, files in os.walk(heads):
        for name in sorted(files):
            path = os.path.join(root, name)
            if (_read(path) or "").strip() == sha:
                return os.path.relpath(path, heads).replace(os.sep, "/")
    for line in (_read(os.path.join(common, "packed-refs")) or "").splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[0] == sha and parts[1].startswith("refs/heads/"):
            return parts[1][len("refs/heads/") :]
    return None


def _common_dir(git_dir: str) -> str:
    pointer = (_read(os.path.join(git_dir, "commondir")) or "").strip()
    return os.path.normpath(os.path.join(git_dir, pointer)) if pointer else git_dir


def _short(ref: str) -> str:
    return ref.strip().removeprefix("refs/heads/")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
