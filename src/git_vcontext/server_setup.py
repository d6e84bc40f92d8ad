"""What ``install --server`` adds to a bare repository, and how ``uninstall --server`` takes
it out again: the post-receive hook that merges agents' requests, and the ref that tells
``sync --push`` a server integrates here (``refs/vcontext/server``)."""

from __future__ import annotations

from pathlib import Path

from . import installer
from .errors import UsageError
from .gitio import git
from .workflow.lease import SERVER

HOOK = "post-receive"
MARK = (
    "git-vcontext integrates here: its post-receive hook merges the requests under "
    "refs/vcontext/sync/ into their base branches (git vcontext install --server)\n"
)


def bare_repository(cwd: Path) -> None:
    """UsageError unless ``cwd`` is (in) a bare repository."""
    out = git(["rev-parse", "--is-bare-repository"], cwd=cwd, check=False)
    if out.returncode != 0 or out.stdout.strip() != "true":
        raise UsageError(
            "install --server sets up the repository agents push to: run it in a bare "
            "repository (git init --bare), not in a clone"
        )


def install(cwd: Path, command: str, force: bool) -> list[str]:
    """The hook (a foreign one is kept and chained) and the mark; refuses before changing."""
    bare_repository(cwd)
    if why := installer.hook_refusal(cwd, force, HOOK):
        raise UsageError(why)
    messages = installer.install_hook(cwd, command, force, HOOK)
    if git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode != 0:
        blob = git(["hash-object", "-w", "--stdin"], cwd=cwd, input=MARK).stdout.strip()
        git(["update-ref", SERVER, blob], cwd=cwd)
        messages.append(f"created {SERVER} (tells sync --push that the requests are merged here)")
    return messages


def uninstall(cwd: Path) -> list[str]:
    """Remove the hook (restoring a chained one) and the mark."""
    bare_repository(cwd)
    messages = installer.uninstall_hook(cwd, HOOK)
    if git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode == 0:
        git(["update-ref", "-d", SERVER], cwd=cwd)
        messages.append(f"removed {SERVER}")
    return messages
