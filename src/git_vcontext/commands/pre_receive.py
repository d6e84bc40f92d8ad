"""``git vcontext hook pre-receive``: the server's guard (``install --server``, PRODUCT.md "The
remote guards itself").

Reads git's ``<old> <new> <ref>`` lines on stdin, in the bare repository, before any ref
moves: every ref update is checked as the pre-push hook checks it (``prepush.check``,
``check_received``), ``refs/vcontext/`` included, and a push that breaks a rule is refused
whole with the hook's own lines (git shows them as ``remote:`` lines). Deleting a branch
is allowed, except the default branch (what ``HEAD`` names) unless
``vcontext.guard.allowDelete`` is true. Exit 0 lets the push in, 1 refuses it; a check
that cannot run exits 3 with one line, and the shim refuses the push then too.
"""

from __future__ import annotations

import os
import sys

from ..errors import ExitCode, OperationalError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.outgoing import RefUpdate

ALLOW_DELETE = "vcontext.guard.allowDelete"
VERBOSE = "GIT_VCONTEXT_HOOK_VERBOSE"


def read_input() -> str:
    """git's ref lines on stdin ('' when stdin is a terminal or closed)."""
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return ""
    return stream.read()


def run(*, text: str | None = None) -> int:
    """Judge a push; report on stderr; 0 = let it in, 1 = refuse it."""
    if text is None:
        try:
            text = read_input()
        except (OSError, ValueError) as exc:
            raise OperationalError(f"cannot read git's ref lines ({exc}): push refused") from None
    if not text.strip():
        return int(ExitCode.OK)
    try:
        return _check(text)
    except OperationalError as exc:
        raise OperationalError(
            f"the guard could not check this push, so it is refused: {exc.message}"
        ) from None


def _check(text: str) -> int:
    # lazy: an empty input returns before
    from ..gitio.incoming import parse_receive_lines, see_quarantine
    from ..gitio.places import common_dir, open_pushing_repo
    from ..prepush.cache import VerdictCache
    from ..prepush.check import check_received

    updates = parse_receive_lines(text)
    repo = open_pushing_repo()
    see_quarantine(repo)
    refused = _deletions(repo, updates)
    if refused:
        sys.stderr.write("\n".join(refused) + "\n")
        return int(ExitCode.FOUND)
    cache = VerdictCache.open(common_dir(repo))
    report, checker = check_received(repo, updates, cache)
    cache.save()
    out = report.lines + [f"git-vcontext: note: {note}" for note in report.notes]
    if cache.warning:
        out.append(f"git-vcontext: note: {cache.warning}")
    if os.environ.get(VERBOSE):
        out.append(
            f"git-vcontext: guard: checked {checker.commits} commit(s), {checker.files} file "
            f"change(s); cache hits {cache.hits}, misses {cache.misses}"
        )
    if report.problems:
        out.append(
            f"git-vcontext: push refused: {report.problems} problem(s) in {report.commits} "
            "commit(s). Fix those commits (git rebase -i), then push again."
        )
    if out:
        sys.stderr.write("\n".join(out) + "\n")
        sys.stderr.flush()
    return int(ExitCode.FOUND if report.problems else ExitCode.OK)


def _deletions(repo: Repository, updates: list[RefUpdate]) -> list[str]:
    """Why a deletion in this push is refused: the default branch, unless allowed."""
    # lazy: only when the push deletes something
    if not any(u.is_deletion for u in updates):
        return []
    from ..gitio import config_flag
    from ..gitio.incoming import default_branch

    default = default_branch(repo)
    if default is None or config_flag(repo, ALLOW_DELETE, False):
        return []
    return [
        f"git-vcontext: push refused: it deletes {u.remote_ref}, the repository's default "
        f"branch (what HEAD names); to allow that, run in the bare repository: "
        f"git config {ALLOW_DELETE} true (git itself refuses it too unless "
        "receive.denyDeleteCurrent is warn or ignore)"
        for u in updates
        if u.is_deletion and u.remote_ref == default
    ]
