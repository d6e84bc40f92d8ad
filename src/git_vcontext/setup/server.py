"""What ``install --server`` adds to a bare repository, and how ``uninstall --server`` takes
it out again: the pre-receive guard that checks every push as the pre-push hook checks it
(PRODUCT.md "The remote guards itself"), the post-receive hook that merges agents'
requests, and the ref that tells ``sync --push`` a server integrates here
(``refs/vcontext/server``). ``--guard``: the guard alone. A hook found in place is kept as
``NAME.legacy`` and runs first."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from ..errors import OperationalError, UsageError
from ..fsio import permitted
from ..gitio import git, repository_error
from ..gitio.places import EMPTY_HOOKS_PATH, nowhere
from ..record import record
from ..shipped import hooks_dir as shipped
from ..validation.model import command_word
from .boot import BOOT as BOOT  # (re-exported: the guard's form is told here)
from .boot import interpreter as interpreter
from .hooks import HOOK_MARKER, foreign, hooks_dir, put_hook

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Repository

SERVER = "refs/vcontext/server"
"""The mark ``sync --push`` looks for: a server integrates the requests here."""
STATE = "vcontext"
"""What the guard and the integration keep in the bare repository (``uninstall`` removes it)."""
HOOK = "post-receive"
GUARD = "pre-receive"
MARK = (
    "git-vcontext integrates here: its post-receive hook merges the requests under "
    "refs/vcontext/sync/ into their base branches (git vcontext install --server)\n"
)


def bare_repository(cwd: Path) -> None:
    """UsageError unless ``cwd`` is (in) a bare repository; outside any repository it may
    use (none, another user's), the one message every command gives, with git's fix."""
    out = git(["rev-parse", "--is-bare-repository"], cwd=cwd, check=False)
    if out.returncode != 0:
        raise repository_error(cwd, out.stderr)
    if out.stdout.strip() != "true":
        raise UsageError(
            "install --server sets up the repository agents push to: run it in a bare "
            "repository (git init --bare), not in a clone"
        )


@record
class Owner:
    """Who owns a bare repository: the user its server runs git as (the web server's, the
    ssh login's). What anyone else writes there (a ref, a folder under refs/) that user may
    not be able to change: every push touching it then fails."""

    uid: int
    gid: int
    name: str
    home: str

    @staticmethod
    def of(path: Path) -> Owner:
        info = path.stat()
        return Owner(info.st_uid, info.st_gid, user_name(info.st_uid), _home(info.st_uid))


def user_name(uid: int) -> str:
    """The login name of ``uid`` (its number when it has none)."""
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


def _home(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_dir
    except (ImportError, KeyError):
        return "/"


def git_dir(cwd: Path) -> Path:
    """The bare repository's folder (UsageError unless ``cwd`` is in one)."""
    bare_repository(cwd)
    return Path(git(["rev-parse", "--absolute-git-dir"], cwd=cwd).stdout.strip())


def owner_elsewhere(cwd: Path) -> Owner | None:
    """The repository's owner when that is not who runs this (None: the same user, or a
    system without users)."""
    if not hasattr(os, "geteuid"):
        return None
    owner = Owner.of(git_dir(cwd))
    return None if owner.uid == os.geteuid() else owner


def install_as(owner: Owner, cwd: Path, argv: list[str]) -> int:
    """Run ``git vcontext ARGV`` in ``cwd`` as ``owner`` (we are root): what it writes is the
    owner's, and it proves the owner can run this installation (its hook will). Its output
    is passed through; OperationalError when the owner cannot run it."""
    from .config import script_command

    command = shlex.split(script_command())
    env = owner_env(owner)

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *args], cwd=cwd, env=env, user=owner.uid, group=owner.gid,
            extra_groups=[], capture_output=True, text=True, check=False,
        )  # fmt: skip

    try:
        probe = run(["--version"])
        why = "" if probe.returncode == 0 else (probe.stderr.strip().splitlines() or ["?"])[-1]
    except (OSError, subprocess.SubprocessError) as exc:
        why = str(exc)
    if why:
        raise OperationalError(
            f"{' '.join(argv)}: {owner.name}, who owns the repository (and runs its hook), "
            f"cannot run this git-vcontext ({why}); install it where {owner.name} can run it, "
            f"then run this as {owner.name}"
        )
    out = run(argv)
    sys.stdout.write(out.stdout)
    sys.stderr.write(out.stderr)
    return out.returncode


def owner_env(owner: Owner) -> dict[str, str]:
    """The environment a command run as ``owner`` gets: the owner's home and name, none of
    root's own git configuration (the owner's git reads its own)."""
    env = {**os.environ, "HOME": owner.home, "USER": owner.name, "LOGNAME": owner.name}
    for key in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        env.pop(key, None)
    return env


def not_the_owners(cwd: Path) -> list[str]:
    """What under the repository's refs, objects, hooks and our folder its owner may not
    write (owned by another user, not root's repository): one line each, with the fix.
    The hooks are those of the folder git runs them from (``hooks_dir``: a bare
    repository's ``core.hooksPath``, where install puts the guard), not ``hooks/``."""
    root = git_dir(cwd)
    owner = Owner.of(root)
    hooks = Path(os.path.normpath(hooks_dir(cwd)))  # (a relative ../team-hooks: outside)
    lines = []
    folders = [root / "refs", root / "objects", *([] if nowhere(hooks) else [hooks])]
    for path in [*folders, *(root / t for t in _STATE)]:
        wrong = _others(path, owner.uid)
        if not wrong:
            continue
        users = ", ".join(sorted({user_name(uid) for uid in wrong.values()}))
        inside = path.is_relative_to(root)
        shown = sorted(str(p.relative_to(root if inside else path.parent)) for p in wrong)
        few = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
        lines.append(
            f"{few} in {root if inside else path.parent} belong to {users}, not to "
            f"{owner.name} who owns the repository (and whose pushes write there: they fail); "
            f"fix: chown -R {command_word(owner.name)}: {command_word(str(path))}"
        )
    return lines


_STATE = ("logs", "vcontext", "packed-refs")
"""The rest of the git directory its owner's pushes write (after refs, objects, hooks)."""


def _others(path: Path, uid: int) -> dict[Path, int]:
    """Files and folders under ``path`` (itself included) another user owns."""
    found: dict[Path, int] = {}
    try:
        info = path.lstat()
    except OSError:
        return found
    if info.st_uid != uid:
        found[path] = info.st_uid
    if path.is_dir() and not path.is_symlink():
        for folder, dirs, files in os.walk(path):
            for name in [*dirs, *files]:
                child = Path(folder) / name
                try:
                    owned = child.lstat().st_uid
                except OSError:
                    continue
                if owned != uid:
                    found[child] = owned
    return found


def install(cwd: Path, command: str, force: bool, *, guard_only: bool = False) -> list[str]:
    """The guard and (unless ``guard_only``) the integration hook (a foreign hook is kept as
    NAME.legacy and runs first) and the mark; refuses before changing anything."""
    bare_repository(cwd)
    folder = hooks_dir(cwd)
    if nowhere(folder):
        raise UsageError(EMPTY_HOOKS_PATH)
    names = (GUARD,) if guard_only else (GUARD, HOOK)
    for name in names:
        hook, legacy = folder / name, folder / f"{name}.legacy"
        if not force and foreign(hook) and legacy.exists():
            raise UsageError(f"{hook} and {legacy} both exist; re-run with --force")
    folder.mkdir(parents=True, exist_ok=True)
    messages = []
    if folder.absolute() != (git_dir(cwd) / "hooks").absolute():
        messages.append(
            f"core.hooksPath is {folder}: git runs this repository's hooks from there, so "
            "ours go there (every repository whose core.hooksPath names it runs them too)"
        )
    for name in names:
        messages += put_hook(folder / name, hook_text(command, name))
    if guard_only:
        return messages
    state = mark_state(cwd)
    if state != "ok":
        blob = git(["hash-object", "-w", "--stdin"], cwd=cwd, input=MARK).stdout.strip()
        git(["update-ref", "--", SERVER, blob], cwd=cwd)
        did = "created" if state == "missing" else "restored"
        messages.append(f"{did} {SERVER} (tells sync --push that the requests are merged here)")
    return messages


def mark_state(cwd: Path) -> str:
    """``ok`` (``refs/vcontext/server`` is the mark install writes), ``missing``, or
    ``wrong`` (it names something else: rewritten by a push, or by hand)."""
    found = git(["rev-parse", "-q", "--verify", SERVER], cwd=cwd, check=False)
    if found.returncode != 0:
        return "missing"
    expected = git(["hash-object", "--stdin"], cwd=cwd, input=MARK).stdout.strip()
    return "ok" if found.stdout.strip() == expected else "wrong"


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
    state = git_dir(cwd) / STATE
    if state.is_dir() and not state.is_symlink():
        import shutil

        shutil.rmtree(state)
        messages.append(
            f"removed {STATE}/ (the verdict cache, the deleted branches the guard remembered, "
            "the integration's lock)"
        )
    return messages


GUARD_FORM = "git-vcontext-guard-form: 2"
"""The line of a guard that starts its Python without ``site`` (``-S``), from the folders
install recorded; a guard of ours without it is an older form (``doctor`` says so, and
``install --server`` writes the new one)."""


def hook_text(command: str, name: str) -> str:
    """One of our server hooks, running ``command`` (its program checked by the guard). The
    guard runs this Python (``sys.executable``) without ``site``, from ``import_paths``."""
    template = shipped().joinpath(name).read_text()
    if GUARD_FORM in template:
        paths = import_paths()
        text = template.replace("@GIT_VCONTEXT_BOOT@", BOOT)
        text = text.replace(
            "@GIT_VCONTEXT_PATHS@", " ".join([str(len(paths)), *map(shlex.quote, paths)])
        )
        return text.replace('"@GIT_VCONTEXT_PROGRAM@"', shlex.quote(interpreter()))
    exe = shlex.split(command)[0]  # the file that must be there (Python for ``-m``)
    text = template.replace('"@GIT_VCONTEXT@"', command)
    return text.replace('"@GIT_VCONTEXT_PROGRAM@"', shlex.quote(exe))


def only_our_guard(repo: Repository) -> bool:
    """Whether the only hook of the bare repository ``repo`` that sees ref updates
    (``gitio.localremote.WATCHERS``) is our guard as ``install --server --guard`` writes it
    (``hook_text``), running this installation: this Python, its recorded folders holding
    this package first (so it imports this code), no hook chained before it
    (``pre-receive.legacy``) and no hooks from git config (git 2.46 and later). Then the
    guard judges a push as this process's own code would (``remote.lease``: a lease taken
    in process passes the guard's own judgement first). Cheap: no process started (the
    folders are read from the hook, not asked of a second Python as ``import_paths`` does;
    git is asked for ``hook.*`` only where it reads settings libgit2 does not, ``config_hooks``)."""
    # lazy: only sync's lease on a remote on this machine asks
    from ..gitio import config_hooks
    from ..gitio.localremote import WATCHERS
    from ..gitio.places import hooks_folder

    folder = hooks_folder(repo, receiving=True)  # (not this command's git -c: git's)
    if any(permitted(folder / name, os.X_OK) for name in WATCHERS if name != GUARD):
        return False
    if (folder / f"{GUARD}.legacy").exists() or config_hooks(repo, given=False):
        return False
    guard = folder / GUARD
    try:
        text = guard.read_text()
    except (OSError, UnicodeDecodeError):
        return False
    paths = _guard_paths(text)
    if paths is None or not permitted(guard, os.X_OK):
        return False
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for path in paths:  # the first folder holding the package git_vcontext: this one's
        if os.path.exists(os.path.join(path, "git_vcontext", "__init__.py")):
            return os.path.abspath(path) == package
    return False


def _guard_paths(text: str) -> list[str] | None:
    """The folders a guard ``text`` imports from when it is exactly what ``hook_text`` writes
    with this Python and those folders (None: it is not)."""
    program = hook_program(text)
    if program is None or not _same_python(program, interpreter()):
        return None
    template = shipped().joinpath(GUARD).read_text()
    template = template.replace("@GIT_VCONTEXT_BOOT@", BOOT)
    template = template.replace('"@GIT_VCONTEXT_PROGRAM@"', shlex.quote(program))
    head, sep, tail = template.partition("@GIT_VCONTEXT_PATHS@")
    if GUARD_FORM not in template or not sep or "@GIT_VCONTEXT_PATHS@" in tail:
        return None
    if not text.startswith(head) or not text.endswith(tail) or len(text) < len(head + tail):
        return None
    try:
        words = shlex.split(text[len(head) : len(text) - len(tail)])
        count = int(words[0])
    except (ValueError, IndexError):
        return None
    paths = words[1:]
    written = " ".join([str(count), *map(shlex.quote, paths)])
    if count != len(paths) or text != template.replace("@GIT_VCONTEXT_PATHS@", written):
        return None
    return paths


def _same_python(one: str, other: str) -> bool:
    """Whether two paths start the same Python with the same packages: the same file,
    from the same folder (a virtual environment's ``python`` and ``python3``)."""
    return os.path.dirname(one) == os.path.dirname(other) and os.path.realpath(
        one
    ) == os.path.realpath(other)


def import_paths() -> list[str]:
    """The folders this Python imports from that the same Python started with ``-S -P -E``
    does not have: those ``site`` (site-packages, ``.pth`` files: an editable install's
    source folder) and ``PYTHONPATH`` added, in their order. With them after its own, the
    guard imports this installation of git-vcontext and its dependencies as this process
    does. The folder this package is in is always among them."""
    base = subprocess.run(
        [interpreter(), "-S", "-P", "-E", "-c", "import sys; print(repr(sys.path))"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    try:
        import ast

        own = set(ast.literal_eval(base.stdout.strip()))
    except (ValueError, SyntaxError, TypeError):
        own = set()
    first = 0 if sys.flags.safe_path else 1  # the script's folder (or cwd): not ours to keep
    found: list[str] = []
    for entry in sys.path[first:]:
        if entry and entry not in own and entry not in found:
            found.append(os.path.abspath(entry))
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if package not in found and package not in own:
        found.append(package)
    return found


def driver_boot() -> tuple[str, list[str]]:
    """How install's merge driver starts this installation: this Python, without ``site``,
    from ``import_paths`` (``config.DRIVER_FORM``)."""
    return interpreter(), import_paths()


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
