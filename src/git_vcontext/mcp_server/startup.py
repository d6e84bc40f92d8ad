"""From command-line options to a running service: root, repository, pins, access, HTTP address."""

from __future__ import annotations

import ipaddress
import os
import sys
from typing import TYPE_CHECKING

from ..errors import OperationalError, UsageError
from ..fsio import permitted, remove_stale_temporaries
from ..gitio import config_value, git_dir, open_repo, work_tree
from ..gitio.places import common_dir
from ..record import record
from .catalog import Catalog
from .files import Moved, is_repository
from .gitside import GitSide
from .locks import Locks
from .service import WRITABLE, Options, Service
from .store import Store
from .writer import Writer

if TYPE_CHECKING:
    from pygit2 import Repository

PIN_KEYS = {"todoList": "todo", "plan": "plan", "playbook": "playbook"}
ALLOW_NAMES = {
    **{name: kind for name, kind in WRITABLE.items()},
    **{name.rstrip("s"): kind for name, kind in WRITABLE.items()},
    **{name.rstrip("s") + "s": kind for name, kind in WRITABLE.items()},
    "todolist": "todoList",
    "todolists": "todoList",
}
"""``--allow`` names: each kind singular or plural (``todo``, ``todos``, ``playbooks`` ...)."""
LOOPBACK_NAMES = {"localhost"}


@record
class Address:
    """Where ``--http`` listens."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host in LOOPBACK_NAMES:
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def http_address(value: str) -> Address:
    """``PORT``, ``HOST:PORT`` or ``[IPv6]:PORT``; the host defaults to 127.0.0.1."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise UsageError(f"--http {value!r}: expected [HOST:]PORT, e.g. 8765 or 127.0.0.1:8765")
    return Address(host, int(port))


@record
class Sessions:
    """How many HTTP sessions may be open at once, and how long one may sit idle: a client
    that never closes its sessions cannot make the server grow without end."""

    idle_timeout: float = 1800.0  # seconds without a request in flight
    limit: int = 100


def sessions(address: Address | None, timeout: float | None, limit: int | None) -> Sessions:
    """``--session-timeout`` and ``--max-sessions`` (only with ``--http``)."""
    if address is None and (timeout is not None or limit is not None):
        given = "--session-timeout" if timeout is not None else "--max-sessions"
        raise UsageError(f"{given} is for --http: stdio serves one client, one session")
    default = Sessions()
    return Sessions(
        default.idle_timeout if timeout is None else timeout,
        default.limit if limit is None else limit,
    )


def token(address: Address | None, env: str | None) -> str | None:
    """The bearer token clients must send: required off loopback, read from ``--token-env``."""
    if env is None:
        if address is not None and not address.loopback:
            raise UsageError(
                f"--http {address.host}: listening beyond loopback needs a bearer token: "
                "--token-env VAR (clients send 'Authorization: Bearer <$VAR>')"
            )
        return None
    value = os.environ.get(env, "")
    if not value.strip():
        raise UsageError(f"--token-env {env}: the environment variable is not set or empty")
    return value.strip()


def allowed(value: str | None) -> frozenset[str]:
    """``--allow todos,plans,playbook`` as container kinds."""
    if value is None:
        return frozenset(WRITABLE.values())
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n.lower() not in ALLOW_NAMES]
    if unknown or not names:
        raise UsageError(
            f"--allow {value!r}: use a comma list of {', '.join(WRITABLE)} (singular or plural)"
        )
    return frozenset(ALLOW_NAMES[n.lower()] for n in names)


def find_root(given: str | None) -> tuple[str, Repository | None]:
    """The folder served (``--root``, else the repository's top, else here) and its repo."""
    where, repo, _ = served_root(given)
    return where, repo


def served_root(given: str | None) -> tuple[str, Repository | None, bool]:
    """The folder served, its repository, and whether it is served alone: ``--root DIR``
    (walked below, nested repositories being boundaries), else the top of the repository
    here, else the current folder alone (its own documents and ``.vcontext/``: a server
    started from ``/`` or a home folder never walks the disk)."""
    start = given or os.getcwd()
    if not os.path.isdir(start):
        raise OperationalError(f"--root {given}: not a directory")
    try:
        repo = open_repo(start)
    except OperationalError:
        return os.path.realpath(start), None, given is None
    top = work_tree(repo)
    if top is None:
        raise OperationalError("the repository is bare: run the server in a work tree")
    return os.path.realpath(given or top), repo, False


def unwritable(root: str, repo: Repository | None) -> str | None:
    """What this user may not write among what a write needs (the served folder, the git
    directory: commits, locks); None when both are writable. A server started on another
    user's checkout (a read-only mount, CI's cache) then serves read-only, saying why."""
    places = [root] + ([str(common_dir(repo))] if repo is not None else [])
    for place in places:
        if not permitted(place, os.W_OK | os.X_OK):
            return str(place)
    return None


def root_note(root: str, repo: Repository | None, alone: bool) -> str | None:
    """The one line a server started where platforms start them says about what it serves
    (None: nothing worth a line)."""
    home = os.path.realpath(os.path.expanduser("~"))
    where = "the file system's root" if root == os.sep else None
    where = "your home folder" if root == home else where
    if alone:
        shown = f"{root} ({where})" if where else root
        return (
            f"{shown} is not in a git repository: serving only its own documents and "
            ".vcontext/, nothing below it; start the server in a repository or pass --root DIR"
        )
    if where is not None and repo is not None:
        return (
            f"serving the repository at {root} ({where}): every folder git does not ignore, "
            "nested repositories left out; pass --root DIR to serve less"
        )
    return None


def pins(root: str, repo: Repository | None, given: dict[str, str | None]) -> dict[str, str]:
    """``--todo/--plan/--playbook PATH``, else git config ``vcontext.mcp.<kind>``."""
    out: dict[str, str] = {}
    for kind, key in PIN_KEYS.items():
        value = given.get(kind) or _config(repo, f"vcontext.mcp.{key}")
        if value:
            out[kind] = _inside(
                root, value, f"--{key}" if given.get(kind) else f"vcontext.mcp.{key}"
            )
    return out


def _config(repo: Repository | None, key: str) -> str | None:
    return None if repo is None else config_value(repo, key)


def _inside(root: str, path: str, option: str) -> str:
    full = os.path.realpath(os.path.join(root, path))
    rel = os.path.relpath(full, root)
    if rel.startswith("..") or os.path.isabs(rel):
        raise UsageError(f"{option} {path}: outside the served folder {root}")
    if not rel.endswith((".json", ".tron")):
        raise UsageError(f"{option} {path}: a todo list, plan or playbook is a .json or .tron file")
    parts = rel.split(os.sep)
    for n in range(1, len(parts)):
        if is_repository(os.path.join(root, *parts[:n])):
            nested = "/".join(parts[:n])
            raise UsageError(
                f"{option} {path}: {nested}/ is a repository of its own (a boundary of the "
                f"served folder): serve it with its own server (--root {nested})"
            )
    return rel.replace(os.sep, "/")


def _prefix(root: str, repo: Repository | None) -> str:
    """The served folder as the repository names it, with a trailing ``/`` ("" at its top,
    or outside a repository)."""
    top = work_tree(repo) if repo is not None else None
    if top is None:
        return ""
    rel = os.path.relpath(os.path.realpath(root), os.path.realpath(top))
    if rel == "." or rel.startswith(".."):
        return ""
    return rel.replace(os.sep, "/") + "/"


def service(options: Options, repo: Repository | None) -> Service:
    """Everything the server needs, wired together."""
    store = Store(_prefix(options.root, repo))
    git = GitSide(repo, agent=options.agent, commit=options.commit) if repo is not None else None
    catalog = Catalog(
        options.root,
        store,
        ignored=(lambda rel: git.ignored(os.path.join(options.root, rel))) if git else _never,
        declared=(lambda rel: git.declared(os.path.join(options.root, rel))) if git else _never,
        pinned=options.pinned,
        sniff=git is None,  # in a repository: install's patterns and .gitattributes only
        alone=options.alone,
        moved=Moved(_git_state_files(repo)) if repo is not None else lambda: False,
        routed=git.routing_moved if git else lambda paths: False,
    )
    locks = Locks(_lock_folder(repo))
    scratch = _scratch_folder(repo)
    writer = Writer(store, locks, git, root=catalog.root, scratch=scratch)
    _tidy(catalog, scratch)
    if git is not None:
        git.hold = locks.hold  # finishing a killed server's write holds the writer's lock
    if git is not None and not options.read_only:  # writes a killed server left uncommitted
        git.held = git.finish_pending()  # the first tool call's answer says them too
        for line in git.held:
            print(f"git-vcontext mcp: {line}", file=sys.stderr)
    return Service(options, catalog, writer, git)


def _scratch_folder(repo: Repository | None) -> str | None:
    """Where writes make their temporaries: in the git directory, which ``git status``
    never shows (a write killed half way leaves nothing in the work tree)."""
    if repo is None:
        return None
    folder = common_dir(repo) / "vcontext" / "tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only repository: temporaries go beside the documents
        return None
    return str(folder)


def _tidy(catalog: Catalog, scratch: str | None) -> None:
    """Remove what writes killed half way (by an earlier server) left: temporaries named as
    ours are, whose process is gone, in the scratch folder and the served folders."""
    for folder in [*([scratch] if scratch else []), *catalog.folders()]:
        remove_stale_temporaries(folder)


def _git_state_files(repo: Repository) -> list[str]:
    """The files a checkout, merge, reset or commit rewrites (this work tree's index and
    HEAD): when they change, every folder is looked at again."""
    return [os.path.join(git_dir(repo), "index"), os.path.join(git_dir(repo), "HEAD")]


def _never(rel: str) -> bool:
    return False


def _lock_folder(repo: Repository | None) -> str | None:
    if repo is None:
        return None

    return str(common_dir(repo) / "vcontext" / "mcp-locks")
