"""``git vcontext install`` / ``uninstall``: set up, or remove, everything in one step."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..document import matches_file_patterns
from ..errors import ExitCode, OperationalError, UsageError
from ..gitio import git
from ..setup import config as installer
from ..setup import hooks as hookinstall
from ..setup.server import Owner, driver_boot, install_as, marked, owner_elsewhere, user_name
from ..setup.server import install as setup
from ..setup.server import uninstall as remove


def run(
    *,
    scope: str = "local",
    force: bool = False,
    no_hooks: bool = False,
    server: bool = False,
    guard: bool = False,
    cwd: str | None = None,
    recurse: bool = False,
) -> int:
    """Driver, textconv, difftool, attribute patterns and (locally) the pre-push hook;
    ``server``: the guard and the integration of a bare repository (``guard``: the guard
    alone).

    With ``core.hooksPath`` set, the hook goes into that folder when it is a plain folder
    of this machine's hooks; for a hook manager (husky, lefthook, pre-commit) or a folder
    of the repository, install says what to add where, and installs the rest (exit 0).
    Tracked documents the patterns miss get the ``.gitattributes`` line that routes each.
    ``recurse``: then the same in each checked-out submodule holding vContext files.
    """
    where = Path(cwd or ".")
    if server:
        return _server(where, force, guard)
    if scope == "local":
        _not_bare(where, "install")
        top = installer.repo_top(where)
        if recurse:
            _submodules_first(top, force, no_hooks)
    s = installer.Scope(scope, where)
    hooks = scope == "local" and not no_hooks
    refusals = [
        installer.config_refusal(s, force),
        installer.attributes_refusal(s.attributes_file(), force),
        hookinstall.refusal(where, force) if hooks else None,
    ]
    if why := next((r for r in refusals if r), None):  # refuse before changing anything
        raise UsageError(why)
    relaunched = _relaunch()  # before the command: a script rewritten is the one to run
    command = installer.script_command()
    messages = installer.install_config(s, command, force, driver_boot())
    attributes = installer.install_attributes(s.attributes_file(), force, s)
    messages += attributes
    done, advice = hookinstall.install(where, command, force) if hooks else ([], ())
    messages += done + relaunched
    if scope == "global" and not no_hooks:
        messages.append(
            "hooks are per repository: run 'git vcontext install' in a repository "
            "to add the pre-push check"
        )
    changed = [m for m in messages if not m.startswith("kept ")]
    summary = "git-vcontext is installed" + ("" if changed else " (nothing to change)")
    _report(messages, summary + (", except the pre-push hook:" if advice else ""))
    for line in advice:
        print(f"  {line}")
    if scope == "local" and attributes:
        print("Commit .gitattributes so your teammates' merges use the driver too.")
    if scope == "local":
        _outside_patterns(where)
        if recurse:
            _recurse(top, force, no_hooks)
    return int(ExitCode.OK)


def _relaunch() -> list[str]:
    """The console script rewritten to start through ``sh`` when its first line cannot
    start (a virtual environment whose path holds a space); one line said either way,
    nothing when it starts (the normal case: never touched)."""
    script = installer.unstartable_script()
    if script is None:
        return []
    try:
        return [installer.relaunch_script(script)]
    except OperationalError as exc:
        return [f"{script} cannot start ('git vcontext' fails): {exc}"]


def _not_bare(where: Path, command: str) -> None:
    """A usage error naming ``--server`` when ``where`` is a bare repository (the local
    install is for a clone with a work tree)."""
    out = git(["rev-parse", "--is-bare-repository"], cwd=where, check=False)
    if out.returncode == 0 and out.stdout.strip() == "true":
        raise UsageError(
            f"{where.resolve()} is a bare repository: 'git vcontext {command} --server' "
            f"{command}s the guard and the integration here ('git vcontext {command}' "
            "without --server is for a clone with a work tree)"
        )


def _outside_patterns(where: Path) -> None:
    """The tracked documents no pattern routes (git merges them by lines): the line for each."""
    # lazy: only a local install reads the work tree's files
    from ..setup import coverage

    outside = [
        p
        for p in coverage.uncovered_documents(installer.repo_top(where))
        if not matches_file_patterns(p)
    ]
    if outside:
        print(
            f"{len(outside)} vContext file(s) lie outside the patterns, so git merges them by "
            "lines; add to .gitattributes (and commit it):"
        )
        for line in coverage.attribute_lines(outside):
            print(f"  {line}")


def _submodules_first(top: Path, force: bool, no_hooks: bool) -> None:
    """Refuse before changing anything when a submodule's install would refuse."""
    for sub in _with_documents(top):
        s = installer.Scope("local", sub)
        refusals = [
            installer.config_refusal(s, force),
            installer.attributes_refusal(s.attributes_file(), force),
            None if no_hooks else hookinstall.refusal(sub, force),
        ]
        if why := next((r for r in refusals if r), None):
            raise UsageError(f"submodule {sub.relative_to(top).as_posix()}: {why}")


def _recurse(top: Path, force: bool, no_hooks: bool) -> None:
    """install in each checked-out submodule holding vContext files, nested ones too."""
    tops = _submodule_tops(top)
    have = set(_with_documents(top, tops))
    for sub in tops:
        shown = sub.relative_to(top).as_posix()
        if sub not in have:
            print(f"submodule {shown}: no vContext files, left alone")
            continue
        print(f"submodule {shown}:")
        run(scope="local", force=force, no_hooks=no_hooks, cwd=str(sub))


def _submodule_tops(top: Path) -> list[Path]:
    """The checked-out submodules under ``top``, nested ones after their parent."""
    # lazy: only --recurse-submodules lists them
    from ..gitio.submodules import checked_out

    found: list[Path] = []
    for path in checked_out(top):
        found.append(top / path)
        found += _submodule_tops(top / path)
    return found


def _with_documents(top: Path, tops: list[Path] | None = None) -> list[Path]:
    """The submodules among ``tops`` (default: all under ``top``) holding vContext files."""
    from ..setup import coverage

    return [
        s for s in (_submodule_tops(top) if tops is None else tops) if coverage.vcontext_files(s)[0]
    ]


def uninstall(
    *, scope: str = "local", server: bool = False, cwd: str | None = None, recurse: bool = False
) -> int:
    """Remove exactly what install added (``recurse``: in each checked-out submodule too)."""
    where = Path(cwd or ".")
    if recurse and scope == "local" and not server:
        for sub in _submodule_tops(installer.repo_top(where)):
            print(f"submodule {sub.relative_to(installer.repo_top(where)).as_posix()}:")
            uninstall(scope="local", cwd=str(sub))
    if server:
        if (owner := owner_elsewhere(where)) is not None:
            return _server_as(owner, where, ["uninstall", "--server"])
        messages = remove(where)
        summary = "the server's guard and integration are uninstalled"
        _report(messages, summary + (" (nothing to remove)" if not messages else ""))
        return int(ExitCode.OK)
    if scope == "local":
        _not_bare(where, "uninstall")
        installer.repo_top(where)
    s = installer.Scope(scope, where)
    if conflicted := installer.conflict_markers(s.attributes_file()):  # before any change
        raise OperationalError(f"{conflicted}: resolve them first, then uninstall again")
    messages = installer.uninstall_config(s)
    messages += installer.uninstall_attributes(s.attributes_file(), s)
    if scope == "local":
        messages += hookinstall.uninstall(where)
        messages += installer.uninstall_cache(where)
    elif messages:
        messages += installer.remove_empty_config(installer.global_config_file())
    _report(
        messages, "git-vcontext is uninstalled" + (" (nothing to remove)" if not messages else "")
    )
    return int(ExitCode.OK)


def _server(where: Path, force: bool, guard_only: bool) -> int:
    if (owner := owner_elsewhere(where)) is not None:
        argv = ["install", "--server", *(["--guard"] if guard_only else [])]
        return _server_as(owner, where, [*argv, *(["--force"] if force else [])])
    relaunched = _relaunch()  # before the command, as a local install: the hooks run it
    messages = setup(where, installer.script_command(), force, guard_only=guard_only)
    messages += relaunched
    summary = (
        "the guard is installed" if guard_only else "the guard and the integration are installed"
    )
    _report(messages, summary + (" (nothing to change)" if not messages else ""))
    print(
        "Every push here is checked as the pre-push hook checks it (git push --no-verify "
        "cannot skip it)."
    )
    if not guard_only:
        print(
            "Pushes of agents' requests (git vcontext sync --push) are now merged here as "
            "they come."
        )
    elif marked(where):  # --guard leaves an earlier install's integration as it is
        print(
            "The integration installed earlier stays: agents' requests are still merged here "
            "(refs/vcontext/server). For the guard alone: git vcontext uninstall --server, "
            "then git vcontext install --server --guard."
        )
    return int(ExitCode.OK)


def _server_as(owner: Owner, where: Path, argv: list[str]) -> int:
    """``install --server`` (``argv``) run by another user than the repository's owner: as
    root, do it as the owner (what root wrote there, the owner's pushes could not change);
    else refuse before writing anything."""
    what = " ".join(argv)
    if os.geteuid() != 0:
        me = user_name(os.geteuid())
        raise UsageError(
            f"{what}: the repository belongs to {owner.name}, and you are {me}: what you "
            f"write there {owner.name}'s pushes may not change; run it as {owner.name} "
            f"(sudo -u {owner.name} git vcontext {what})"
        )
    print(f"{what}: the repository belongs to {owner.name}: working as {owner.name}")
    return install_as(owner, where, argv)


def _report(messages: list[str], summary: str) -> None:
    for line in messages:
        print(f"  {line}", file=sys.stdout)
    print(summary)
