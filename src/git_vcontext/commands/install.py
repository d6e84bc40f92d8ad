"""``git vcontext install`` / ``uninstall``: set up, or remove, everything in one step."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import installer
from ..errors import ExitCode, UsageError


def run(
    *,
    scope: str = "local",
    force: bool = False,
    no_hooks: bool = False,
    server: bool = False,
    cwd: str | None = None,
) -> int:
    """Driver, textconv, difftool, attribute patterns and (locally) the pre-push hook; with
    ``server``, in a bare repository, the hook that merges agents' requests."""
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
        installer.hook_refusal(where, force) if hooks else None,
    ]
    if why := next((r for r in refusals if r), None):  # refuse before changing anything
        raise UsageError(why)
    messages = installer.install_config(s, command, force)
    messages += installer.install_attributes(s.attributes_file(), force)
    if hooks:
        messages += installer.install_hook(where, command, force)
    elif scope == "global" and not no_hooks:
        messages.append(
            "hooks are per repository: run 'git vcontext install' in a repository "
            "to add the pre-push check"
        )
    _report(
        messages, "git-vcontext is installed" + (" (nothing to change)" if not messages else "")
    )
    if scope == "local":
        print("Commit .gitattributes so your teammates' merges use the driver too.")
    return int(ExitCode.OK)


def uninstall(*, scope: str = "local", server: bool = False, cwd: str | None = None) -> int:
    """Remove exactly what install added."""
    where = Path(cwd or ".")
    if server:
        from ..server_setup import uninstall as remove

        messages = remove(where)
        summary = "the server integration is uninstalled"
        _report(messages, summary + (" (nothing to remove)" if not messages else ""))
        return int(ExitCode.OK)
    if scope == "local":
        installer.repo_top(where)
    s = installer.Scope(scope, where)
    messages = installer.uninstall_config(s)
    messages += installer.uninstall_attributes(s.attributes_file())
    if scope == "local":
        messages += installer.uninstall_hook(where)
        messages += installer.uninstall_cache(where)
    _report(
        messages, "git-vcontext is uninstalled" + (" (nothing to remove)" if not messages else "")
    )
    return int(ExitCode.OK)


def _server(where: Path, force: bool) -> int:
    from ..server_setup import install as setup

    messages = setup(where, installer.script_command(), force)
    summary = "the server integration is installed"
    _report(messages, summary + (" (nothing to change)" if not messages else ""))
    print("Pushes of agents' requests (git vcontext sync --push) are now merged here as they come.")
    return int(ExitCode.OK)


def _report(messages: list[str], summary: str) -> None:
    for line in messages:
        print(f"  {line}", file=sys.stdout)
    print(summary)
