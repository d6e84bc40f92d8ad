"""What ``install --server`` adds to a bare repository, and how ``uninstall --server`` takes
it out again: the post-receive hook that merges agents' requests, and the ref that tells
``sync --push`` a server integrates here (``refs/vcontext/server``)."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..gitio import git
from ..shipped import hooks_dir as shipped
from .hooks import foreign, hooks_dir, put_hook

SERVER = "refs/vcontext/server"
"""The mark ``sync --push`` looks for: a server integrates the requests here."""
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
    """The hook (a foreign one is kept as post-receive.legacy and runs first) and the mark;
    refuses before changing anything."""
    bare_repository(cwd)
    folder = hooks_dir(cwd)
    hook, legacy = folder / HOOK, folder / f"{HOOK}.legacy"
    if not force and foreign(hook) and legacy.exists():
        raise UsageError(f"{hook} and {legacy} both exist; re-run with --force")
    folder.mkdir(parents=True, exist_ok=True)
    messages = put_hook(hook, _hook_text(command))
    if git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode != 0:
        blob = git(["hash-object", "-w", "--stdin"], cwd=cwd, input=MARK).stdout.strip()
        git(["update-ref", "--", SERVER, blob], cwd=cwd)
        messages.append(f"created {SERVER} (tells sync --push that the requests are merged here)")
    return messages


def uninstall(cwd: Path) -> list[str]:
    """Remove the hook (restoring a chained one) and the mark."""
    bare_repository(cwd)
    folder = hooks_dir(cwd)
    hook, legacy = folder / HOOK, folder / f"{HOOK}.legacy"
    messages = []
    if hook.exists() and not foreign(hook):
        hook.unlink()
        messages.append(f"removed our {HOOK} hook")
        if legacy.exists():
            legacy.replace(hook)
            messages[-1] += f"; restored {legacy.name}"
    if git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode == 0:
        git(["update-ref", "-d", "--", SERVER], cwd=cwd)
        messages.append(f"removed {SERVER}")
    return messages


def _hook_text(command: str) -> str:
    template = shipped().joinpath(HOOK).read_text()
    return template.replace('"@GIT_VCONTEXT@"', command)
