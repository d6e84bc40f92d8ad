"""Which git operation is in progress (merge, rebase, cherry-pick, revert) and what its sides are.

Read from the files git keeps under the git directory, without running git, so
the merge driver can name the branches in its markers for the price of a few
small reads. During a rebase git's "ours" is the upstream and "theirs" the
commit being replayed: the labels say so.
"""

from __future__ import annotations

import os

from ..patterns import lazy
from ..record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Literal

    OperationKind = Literal["merge", "rebase", "cherry-pick", "revert", "stash", "checkout"]
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
    """The git directory of the work tree containing ``start`` ($GIT_DIR first); None
    outside. The one reading of it: ``fsio.find_git_dir``."""
    from ..fsio import find_git_dir as found

    return found(start, os.environ if env is None else env)


def current(
    git_dir: str | None,
    env: Mapping[str, str] | None = None,
    commands: Sequence[Sequence[str]] = (),
) -> Operation:
    """The operation in progress in ``git_dir`` (also while git runs the merge driver).

    ``commands``: the git command lines running us, nearest first (the driver passes
    ``invoker.git_commands()``): what git 2.39 shows of a ``stash pop``, a ``checkout
    -m``, a ``merge --squash`` or a single ``cherry-pick``/``revert`` while it merges.
    """
    env = os.environ if env is None else env
    if git_dir is None:
        return Operation(None, "ours", "theirs")
    head = head_branch(git_dir) or "HEAD"
    if commands:
        found = _from_command(git_dir, head, commands, env)
        if found is not None:
            return found
    readers: tuple[tuple[OperationKind, Reader], ...] = (
        ("rebase", _rebase),
        ("cherry-pick", _cherry_pick),
        ("revert", _revert),
        ("merge", _merge),
        ("merge", _squash),
    )
    for kind, read in readers:
        found_sides = read(git_dir, head)
        if found_sides is not None:
            return Operation(kind, *found_sides)
    heads = [v for k, v in env.items() if k.startswith("GITHEAD_") and v]
    if len(heads) == 1:  # `git merge NAME` sets GITHEAD_<sha>=NAME before it runs drivers
        return Operation("merge", head, _named(git_dir, heads[0]))
    return Operation(None, head, "theirs")


# Compiled on first use (patterns.lazy): the merge driver finds the git directory here
# and needs none of them (issue 32).
_HEX = lazy(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ABBREVIATED = lazy(r"[0-9a-f]{7,64}")
_SQUASHED = lazy(r"(?m)^commit ([0-9a-f]{40,64})$")
_WITH_VALUE = frozenset(("-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option"))


def _from_command(
    git_dir: str, head: str, commands: Sequence[Sequence[str]], env: Mapping[str, str]
) -> Operation | None:
    """The operation the nearest git command line names, for those git keeps no state of
    while the driver runs; None for the others (their state files say it)."""
    verb, args = (commands[0][0], list(commands[0][1:])) if commands[0] else ("", [])
    outer = {c[0] for c in commands[1:] if c}
    if verb == "stash" and args and args[0] in ("pop", "apply"):
        given = _operands(args[1:], frozenset())
        ref = given[0] if given else "stash@{0}"
        if _HEX().fullmatch(ref) and outer & {"rebase", "pull", "merge"}:
            return Operation("stash", _rebased_branch(git_dir, head), AUTOSTASH)
        return Operation("stash", head, f"{ref} (stashed changes)")
    if verb in ("checkout", "switch") and {"-m", "--merge"} & set(args) and "--" not in args:
        given = _operands(args, frozenset(("-b", "-B", "-c", "-C", "--orphan", "--conflict")))
        if given:
            return Operation("checkout", given[-1], f"local changes (uncommitted, on {head})")
    if verb == "merge" and "--squash" in args:
        heads = [v for k, v in env.items() if k.startswith("GITHEAD_") and v]
        if len(heads) == 1:
            return Operation("merge", head, f"{_named(git_dir, heads[0])} (merge --squash)")
    if verb in ("cherry-pick", "revert"):
        sha = _sequencer_next(git_dir) or _single(git_dir, _operands(args, _WITH_VALUE))
        if sha:
            picked: OperationKind = "cherry-pick" if verb == "cherry-pick" else "revert"
            return Operation(picked, head, _picked(git_dir, sha, verb))
    return None


AUTOSTASH = "autostash: your uncommitted changes (kept in the stash)"


def _operands(args: Sequence[str], with_value: frozenset[str]) -> list[str]:
    """The arguments that are no options (nor the value of one of ``with_value``)."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a == "--":
            break
        elif a in with_value:
            skip = True
        elif not a.startswith("-"):
            out.append(a)
    return out


def _rebased_branch(git_dir: str, head: str) -> str:
    """The branch a rebase is finishing (its autostash is applied on it)."""
    if head != "HEAD":
        return head
    for folder in ("rebase-merge", "rebase-apply"):
        name = _short(_read(os.path.join(git_dir, folder, "head-name")) or "")
        if name:
            return name
    return head


def _sequencer_next(git_dir: str) -> str | None:
    """The commit a cherry-pick or revert of several commits is applying now (the first
    line of the sequencer's todo)."""
    todo = (_read(os.path.join(git_dir, "sequencer", "todo")) or "").split("\n", 1)[0].split()
    if len(todo) >= 2 and todo[0] in ("pick", "p", "revert"):
        return todo[1]
    return None


def _single(git_dir: str, operands: list[str]) -> str | None:
    return operands[-1] if len(operands) == 1 else None


def _picked(git_dir: str, rev: str, verb: str) -> str:
    """How the commit being cherry-picked or reverted is named in labels."""
    from .invoker import describe

    sha, subject = describe(git_dir, rev) or (rev, "")
    named = f"{sha[:7]} ({subject})" if subject else sha[:7]
    return f"{named} (cherry-picked)" if verb == "cherry-pick" else f"parent of {named}"


def stopped_at(git_dir: str | None) -> str | None:
    """Which stop of an operation this is, so that choices recorded at an earlier one (an
    aborted attempt met again) are known as such: when git last wrote the operation's head
    file, when its merge last wrote ``AUTO_MERGE``, and how long HEAD's reflog is — a
    ``stash pop`` or ``checkout -m`` leaves no head file, but undoing one (``reset
    --hard``, switching back) adds to the reflog, and nothing does while files stay
    conflicted (git refuses to commit or switch then). None when none of them exists."""
    parts = []
    for name in ("REBASE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "MERGE_HEAD", "AUTO_MERGE"):
        try:
            parts.append(f"{name}:{os.stat(os.path.join(git_dir or '', name)).st_mtime_ns}")
        except OSError:
            continue
    try:
        parts.append(f"reflog:{os.stat(os.path.join(git_dir or '', 'logs', 'HEAD')).st_size}")
    except OSError:
        pass
    return " ".join(parts) or None


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
    if len(last) >= 2 and _ABBREVIATED().fullmatch(last[1]):
        subject = f" ({last[2]})" if len(last) > 2 else ""
        return f"{last[1][:7]}{subject}"
    sha = (_read(os.path.join(git_dir, "REBASE_HEAD")) or "").strip()
    return sha[:7] or "the commit being replayed"


def _cherry_pick(git_dir: str, head: str) -> tuple[str, str] | None:
    sha = (_read(os.path.join(git_dir, "CHERRY_PICK_HEAD")) or "").strip()
    if not sha:
        return None
    return head, _picked(git_dir, sha, "cherry-pick")


def _revert(git_dir: str, head: str) -> tuple[str, str] | None:
    sha = (_read(os.path.join(git_dir, "REVERT_HEAD")) or "").strip()
    if not sha:
        return None
    return head, _picked(git_dir, sha, "revert")


def _squash(git_dir: str, head: str) -> tuple[str, str] | None:
    """A stopped ``merge --squash`` (SQUASH_MSG, no MERGE_HEAD): the branch at the newest
    commit it lists."""
    text = _read(os.path.join(git_dir, "SQUASH_MSG"))
    if text is None:
        return None
    found = _SQUASHED().search(text)
    name = (_branch_at(git_dir, found.group(1)) or found.group(1)[:7]) if found else "theirs"
    return head, f"{name} (merge --squash)"


def _merge(git_dir: str, head: str) -> tuple[str, str] | None:
    sha = (_read(os.path.join(git_dir, "MERGE_HEAD")) or "").split()
    if not sha:
        return None
    name = _merged_name(_read(os.path.join(git_dir, "MERGE_MSG")) or "")
    return head, _named(git_dir, name) if name else _branch_at(git_dir, sha[0]) or sha[0][:7]


def _named(git_dir: str, name: str) -> str:
    """``name`` as git gives it, or the branch at it when it is a bare commit id
    (``git merge 3f2a1bc…``: MERGE_HEAD's branch, when one points there)."""
    if _is_full_id(name):
        return _branch_at(git_dir, name) or name
    return name


def _is_full_id(name: str) -> bool:
    """``_HEX().fullmatch(name)`` by ``str`` methods: a plain merge's labels need no ``re``
    (with ``enum``: ~3 ms of a conflicted file's driver under git before 2.44, issue 32)."""
    return len(name) in (40, 64) and not name.strip("0123456789abcdef")


# What the first line of MERGE_MSG starts with, then where the name ends:
# ^Merge (?:remote-tracking )?branch '([^']+)'  |  ^Merge (?:tag|commit) '([^']+)'
# ^vcontext sync: merge (\S+) into   -- read by str methods (see _is_full_id)
_QUOTED = ("Merge branch '", "Merge remote-tracking branch '", "Merge tag '", "Merge commit '")
_SYNCED = "vcontext sync: merge "


def _merged_name(message: str) -> str | None:
    first = message.split("\n", 1)[0]
    for prefix in _QUOTED:
        if first.startswith(prefix):
            end = first.find("'", len(prefix))
            return first[len(prefix) : end] if end > len(prefix) else None
    synced = sync_title(first)
    return synced[0] if synced else None


def sync_title(first: str) -> tuple[str, str] | None:
    """(what was merged, the branch it was merged into: the rest of the line) of the title
    ``sync`` gives the merge it leaves stopped (``vcontext sync: merge X into BRANCH``);
    None for another."""
    if not first.startswith(_SYNCED):
        return None
    start = end = len(_SYNCED)
    while end < len(first) and not first[end].isspace():
        end += 1
    if end == start or not first.startswith(" into ", end):
        return None
    return first[start:end], first[end + len(" into ") :].strip()


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
    from ..fsio import common_dir

    return common_dir(git_dir, os.environ)


def _short(ref: str) -> str:
    return ref.strip().removeprefix("refs/heads/")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None
