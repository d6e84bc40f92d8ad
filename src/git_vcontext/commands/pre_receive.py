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

from ..errors import ExitCode, OperationalError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.outgoing import RefUpdate

ALLOW_DELETE = "vcontext.guard.allowDelete"
ALLOW_MARK = "vcontext.guard.allowServerRef"
MARK = "refs/vcontext/server"
"""What ``install --server`` writes and ``sync --push`` believes (``setup.server.SERVER``; not
imported from there: the fast path must stay light): a push never changes it (nor creates a
ref under it), unless ``vcontext.guard.allowServerRef`` is true."""
VERBOSE = "GIT_VCONTEXT_HOOK_VERBOSE"
REMEMBERED_AS = "(server)"
"""The name the guard keeps deletions under (``prepush.check.SERVER``; not imported from
there: the fast path must stay light)."""


def read_input() -> str:
    """git's ref lines on stdin ('' when stdin is a terminal or closed)."""
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return ""
    return stream.read()


def run(*, text: str | None = None, probe: bool = False) -> int:
    """Judge a push; report on stderr; 0 = let it in, 1 = refuse it. ``probe`` (doctor):
    judge nothing, but load what the full check loads and open the repository, so a guard
    that could not run at a push says why now."""
    if probe:
        return _probe()
    return judge(text)[0]


def judge(text: str | None) -> tuple[int, bool]:
    """``run``'s verdict on a push, and whether the light path gave it (no repository
    opened, no full check: ``entry`` may then end the process without the teardown)."""
    if text is None:
        try:
            text = read_input()
        except (OSError, ValueError) as exc:
            raise OperationalError(f"cannot read git's ref lines ({exc}): push refused") from None
    if not text.strip():
        return int(ExitCode.OK), True
    try:
        if not touches_mark(text) and _light(text):
            return int(ExitCode.OK), True
        return _check(text), False
    except (OperationalError, UsageError) as exc:  # (a setting of the server's refused:
        raise OperationalError(  # the hook passes on exit 3's one line, not exit 2's)
            f"the guard could not check this push, so it is refused: {exc.message}"
        ) from None
    except ImportError as exc:  # a dependency gone from the server (pygit2, ...)
        raise OperationalError(
            f"the guard could not run ({exc}): push refused, nothing was checked; on the "
            "server: install git-vcontext, then git vcontext install --server (git vcontext "
            "doctor there says more)"
        ) from None


def _probe() -> int:
    try:
        # lazy: what a push the light path leaves to the full check loads
        from ..gitio.places import open_pushing_repo
        from ..prepush import check, light
        from ..validation import files

        del check, light, files
        open_pushing_repo(os.environ.get("GIT_DIR") or ".")
    except OperationalError as exc:
        raise OperationalError(f"the guard could not open this repository: {exc.message}") from None
    except ImportError as exc:  # a dependency gone from the server (pygit2, ...)
        raise OperationalError(
            f"the guard could not run ({exc}): every push is refused; on the server: install "
            "git-vcontext, then git vcontext install --server"
        ) from None
    return int(ExitCode.OK)


def is_mark(ref: str) -> bool:
    """Whether ``ref`` is the server's mark, or a ref under it (which would keep
    ``install --server`` from writing the mark)."""
    return ref == MARK or ref.startswith(MARK + "/")


def touches_mark(text: str) -> bool:
    """Whether a line of git's input updates the mark (then only the full check judges)."""
    return any(len(p) == 3 and is_mark(p[2]) for p in (line.split() for line in text.splitlines()))


def nothing_to_check(text: str) -> bool:
    """Whether this push, for certain, changes no file: every update creates a ref at a
    commit of the empty tree without parents, and what the guard remembers under that ref
    (a deleted tip it compares a re-created ref with) is such a commit too; or creates a
    lease ref (``remote.refs``) at a lease commit (that, or one on the tip of one of the
    repository's refs, with its tree), what it remembers there being one too (a lease ref is not
    compared with its old tip: ``prepush.check.lease_moved``). Then the push is let in
    without opening the repository (pygit2's import is most of what a guard costs, and
    every ``sync --push`` takes a lease). Anything less certain (a packed object, another
    layout, a line that does not read) is False: the full check runs; so is a
    ``vcontext.agentPrefix`` the full check refuses every push for (``agent_prefix_of``)."""
    # lazy: only this fast path reads loose objects itself
    from ..branches import AGENT_PREFIX, agent_prefix_of
    from ..gitio.batch import Unreadable, config_value
    from ..gitio.loose import is_empty_root_commit, loose_dirs
    from ..prepush.remotepast import remembered

    git_dir = os.environ.get("GIT_DIR") or "."
    try:  # an agent prefix the full check refuses (every push): it refuses this one too
        if agent_prefix_of(config_value(git_dir, AGENT_PREFIX)) is None:
            return False  # (no git process where no file git reads names the key)
    except Unreadable:
        return False
    try:
        dirs = loose_dirs(git_dir)
        if (
            not dirs
            or not os.path.isfile(os.path.join(git_dir, "HEAD"))
            or os.path.exists(os.path.join(git_dir, "commondir"))
        ):
            return False  # not the plain bare repository this reading is sure of
        lines = [line.split() for line in text.splitlines() if line.strip()]
        record = remembered(git_dir, REMEMBERED_AS)
        if not lines or record is None or touches_mark(text):
            return False
        tips: list[set[str]] = []  # what the refs point at, read once a lease needs it
        for parts in lines:
            if len(parts) != 3 or set(parts[0]) != {"0"} or set(parts[1]) == {"0"}:
                return False  # not the creation of a ref
            before = record.get(parts[2])
            if is_empty_root_commit(dirs, parts[1]) and (
                before is None or is_empty_root_commit(dirs, before)
            ):
                continue
            if not _lease_taken(git_dir, dirs, parts[2], parts[1], before, tips):
                return False
    except (OSError, ValueError):
        return False
    return True


def _lease_taken(
    git_dir: str, dirs: list[str], ref: str, new: str, before: str | None, tips: list[set[str]]
) -> bool:
    """Whether ``ref`` is a lease ref created at a lease commit, for certain, what the guard
    remembers there (``before``) one too. A lease commit's parent must be a ref's tip
    (``tips``: read once, kept there): a commit merely in the store may be on no ref, never
    judged, and the full check judges it (``rev-list --not --all`` lists it)."""
    # lazy: only a push creating a ref
    from ..gitio.loose import is_empty_root_commit, is_lease_commit, is_lease_ref, ref_tips_in_files

    # what the repository had before the push: its store, when the push is held apart in a
    # quarantine (else the push's objects are in the store already)
    own = dirs[1:]
    if not is_lease_ref(ref) or not is_lease_commit(dirs, new, own):
        return False
    if before is not None and not is_lease_commit(dirs, before, dirs):
        return False
    if is_empty_root_commit(dirs, new):
        return True
    if not tips:
        found = ref_tips_in_files(git_dir)
        if found is None:
            return False
        tips.append(set(found.values()))
    return is_lease_commit(dirs, new, own, on=tips[0])


def _light(text: str) -> bool:
    """Whether the light path (``prepush.light``: git's plumbing, no pygit2) finds this
    push clean for certain; then what it learnt is kept and the push let in. False: the
    full check judges it (and alone says what is wrong)."""
    # lazy: an empty input returns before
    from ..gitio.outgoing import parse_receive_lines
    from ..prepush.cache import VerdictCache
    from ..prepush.light import Light
    from ..prepush.remotepast import remember_deletions_in

    git_dir = os.environ.get("GIT_DIR") or "."
    if not os.path.isfile(os.path.join(git_dir, "HEAD")) or any(
        os.path.exists(os.path.join(git_dir, name)) for name in ("commondir", "shallow")
    ):
        return False  # not the plain bare repository this reading is sure of
    try:
        updates = parse_receive_lines(text)
    except OperationalError:
        return False  # the full check says what does not read
    cache = VerdictCache.open(git_dir)
    light = Light(git_dir, cache)
    if not light.clean(updates):
        return False
    cache.save()
    remember_deletions_in(git_dir, REMEMBERED_AS, updates, limit=None, exists=_Refs(git_dir))
    out = [f"git-vcontext: note: {cache.warning}"] if cache.warning else []
    if os.environ.get(VERBOSE):
        out.append(
            f"git-vcontext: guard (light): checked {light.commits} commit(s), {light.files} "
            f"file change(s); cache hits {cache.hits}, misses {cache.misses}"
        )
    if out:
        sys.stderr.write("\n".join(out) + "\n")
    return True


class _Refs:
    """Whether a ref exists now (git's list of refs, read once, when first asked)."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self.names: set[str] | None = None

    def __call__(self, ref: str) -> bool:
        if self.names is None:
            from ..gitio.batch import Unreadable, ref_names

            try:
                self.names = ref_names(self.git_dir)
            except Unreadable:
                return False  # kept: read only for an absent ref anyway
        return ref in self.names


def _check(text: str) -> int:
    # lazy: an empty input returns before
    from ..gitio.incoming import see_quarantine
    from ..gitio.outgoing import parse_receive_lines
    from ..gitio.places import common_dir, open_pushing_repo
    from ..prepush.cache import VerdictCache
    from ..prepush.check import check_received, let_in

    updates = parse_receive_lines(text)
    repo = open_pushing_repo()
    see_quarantine(repo)
    refused = _deletions(repo, updates) + _marks(repo, updates)
    if refused:
        sys.stderr.write("\n".join(refused) + "\n")
        return int(ExitCode.FOUND)
    cache = VerdictCache.open(common_dir(repo))
    report, checker = check_received(repo, updates, cache)
    if not report.problems:  # a refused push leaves no trace: no record, no verdict kept
        cache.save()
        let_in(repo, updates)
    out = report.lines + [f"git-vcontext: note: {note}" for note in report.notes]
    if cache.warning:
        out.append(f"git-vcontext: note: {cache.warning}")
    if os.environ.get(VERBOSE):
        out.append(
            f"git-vcontext: guard: checked {checker.commits} commit(s), {checker.files} file "
            f"change(s); cache hits {cache.hits}, misses {cache.misses}"
        )
    if report.problems:
        fixes = report.fixes(repo)
        out.append(
            f"git-vcontext: push refused: {report.problems} problem(s) in {report.held()}. "
            f"{fixes[:1].upper()}{fixes[1:]}, then push again."
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


def _marks(repo: Repository, updates: list[RefUpdate]) -> list[str]:
    """Why an update of the server's mark in this push is refused: agents' ``sync --push``
    trusts it to say whether requests are merged here, so only ``install --server`` and
    ``uninstall --server`` in the bare repository change it (unless allowed)."""
    touched = [u for u in updates if is_mark(u.remote_ref)]
    if not touched:
        return []
    from ..gitio import config_flag  # lazy: only a push touching the mark

    if config_flag(repo, ALLOW_MARK, False):
        return []
    out = []
    for u in touched:
        did = "deletes" if u.is_deletion else "creates" if u.is_new else "rewrites"
        out.append(
            f"git-vcontext: push refused: it {did} {u.remote_ref}, which tells agents' sync "
            f"--push whether this repository merges their requests (only git vcontext install "
            f"--server or uninstall --server, run in the bare repository, change it); to let "
            f"pushes change it, run in the bare repository: git config {ALLOW_MARK} true"
        )
    return out
