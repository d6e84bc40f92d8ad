"""``git vcontext install`` / ``uninstall``: set up, or remove, everything in one step."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ExitCode, UsageError
from ..setup import config as installer
from ..setup import hooks as hookinstall
from ..setup.server import install as setup
from ..setup.server import uninstall as remove


def run(
    *,
    scope: str = "local",
    force: bool = False,
    no_hooks: bool = False,
    server: bool = False,
    cwd: str | None = None,
) -> int:
    """Driver, textconv, difftool, attribute patterns and (locally) the pre-push hook.

    With ``core.hooksPath`` set, the hook goes into that folder when it is a plain folder
    of this machine's hooks; for a hook manager (husky, lefthook, pre-commit) or a folder
    of the repository, install says what to add where, and installs the rest (exit 0).
    """
    where = Path(cwd or ".")
    if server:
        return _server(where, force)
    if scope == "local":
        installer.repo_top(where)
    s = installer.Scope(scope, where)
    command = installer.script_command()
    hooks = scope == "local" and not no_hooks
    refusals = [
        installer.config_refusal(s, force),
        installer.attributes_refusal(s.attributes_file(), force),
        hookinstall.refusal(where, force) if hooks else None,
    ]
    if why := next((r for r in refusals if r), None):  # refuse before changing anything
        raise UsageError(why)
    messages = installer.install_config(s, command, force)
    attributes = installer.install_attributes(s.attributes_file(), force, s)
    messages += attributes
    done, advice = hookinstall.install(where, command, force) if hooks else ([], ())
    messages += done
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
    return int(ExitCode.OK)


def uninstall(*, scope: str = "local", server: bool = False, cwd: str | None = None) -> int:
    """Remove exactly what install added."""
    where = Path(cwd or ".")
    if server:
        messages = remove(where)
        summary = "the server integration is uninstalled"
        _report(messages, summary + (" (nothing to remove)" if not messages else ""))
        return int(ExitCode.OK)
    if scope == "local":
        installer.repo_top(where)
    s = installer.Scope(scope, where)
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


def _server(where: Path, force: bool) -> int:
    messages = setup(where, installer.script_command(), force)
    summary = "the server integration is installed"
    _report(messages, summary + (" (nothing to change)" if not messages else ""))
    print("Pushes of agents' requests (git vcontext sync --push) are now merged here as they come.")
    return int(ExitCode.OK)


def _report(messages: list[str], summary: str) -> None:
    for line in messages:
        print(f"  {line}", file=sys.stdout)
    print(summary)
