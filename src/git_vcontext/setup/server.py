"""What ``install --server`` adds to a bare repository, and how ``uninstall --server`` takes
it out again: the pre-receive guard that checks every push as the pre-push hook checks it
(PRODUCT.md "The remote guards itself"), the post-receive hook that merges agents'
requests, and the ref that tells ``sync --push`` a server integrates here
(``refs/vcontext/server``). ``--guard``: the guard alone. A hook found in place is kept as
``NAME.legacy`` and runs first."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from ..errors import UsageError
from ..gitio import git
from ..shipped import hooks_dir as shipped
from .hooks import HOOK_MARKER, foreign, hooks_dir, put_hook

SERVER = "refs/vcontext/server"
"""The mark ``sync --push`` looks for: a server integrates the requests here."""
HOOK = "post-receive"
GUARD = "pre-receive"
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


def install(cwd: Path, command: str, force: bool, *, guard_only: bool = False) -> list[str]:
    """The guard and (unless ``guard_only``) the integration hook (a foreign hook is kept as
    NAME.legacy and runs first) and the mark; refuses before changing anything."""
    bare_repository(cwd)
    folder = hooks_dir(cwd)
    names = (GUARD,) if guard_only else (GUARD, HOOK)
    for name in names:
        hook, legacy = folder / name, folder / f"{name}.legacy"
        if not force and foreign(hook) and legacy.exists():
            raise UsageError(f"{hook} and {legacy} both exist; re-run with --force")
    folder.mkdir(parents=True, exist_ok=True)
    messages = []
    for name in names:
        messages += put_hook(folder / name, hook_text(command, name))
    if guard_only:
        return messages
    if git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode != 0:
        blob = git(["hash-object", "-w", "--stdin"], cwd=cwd, input=MARK).stdout.strip()
        git(["update-ref", "--", SERVER, blob], cwd=cwd)
        messages.append(f"created {SERVER} (tells sync --push that the requests are merged here)")
    return messages


def uninstall(cwd: Path) -> list[str]:
    """Remove both hooks (restoring chained ones) and the mark."""
    bare_repository(cwd)
    folder = hooks_dir(cwd)
    messages = []
    for name in (GUARD, HOOK):
        hook, legacy = folder / name, folder / f"{name}.legacy"
        if hook.exists() and not foreign(hook):
            hook.unlink()
            messages.append(f"removed our {name} hook")
            if legacy.exists():
                legacy.replace(hook)
                messages[-1] += f"; restored {legacy.name}"
    if git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode == 0:
        git(["update-ref", "-d", "--", SERVER], cwd=cwd)
        messages.append(f"removed {SERVER}")
    return messages


def hook_text(command: str, name: str) -> str:
    """One of our server hooks, running ``command`` (its program checked by the guard)."""
    template = shipped().joinpath(name).read_text()
    exe = shlex.split(command)[0]  # the file that must be there (Python for ``-m``)
    text = template.replace('"@GIT_VCONTEXT@"', command)
    return text.replace('"@GIT_VCONTEXT_PROGRAM@"', shlex.quote(exe))


def marked(cwd: Path) -> bool:
    """Whether ``refs/vcontext/server`` tells agents that requests are merged here."""
    return git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False).returncode == 0


def hook_program(text: str) -> str | None:
    """The program our guard's shim checks for (its ``PROGRAM=`` line), None if not ours."""
    if HOOK_MARKER not in text:
        return None
    for line in text.splitlines():
        if line.startswith("PROGRAM="):
            try:
                words = shlex.split(line.removeprefix("PROGRAM="))
            except ValueError:
                return None
            return words[0] if words else None
    return None


def hook_command(text: str, name: str) -> str | None:
    """The git-vcontext command one of our server hooks runs (None when not ours)."""
    if HOOK_MARKER not in text:
        return None
    found = re.search(rf"\| (.+?) hook {re.escape(name)}\b", text)
    return None if found is None else found.group(1).strip()
