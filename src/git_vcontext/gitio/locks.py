"""Lock files (``<ref>.lock``, ``index.lock``) left behind by a process that was killed.

git holds a ref's lock for milliseconds (it gives up on one after 100 ms:
``core.filesRefLockTimeout``); a lock file that stays for seconds belongs to a process
that died. Such a lock on a ref only ``sync`` writes (``refs/vcontext/…``: leases,
requests, what it fetched) is removed once it is ``STALE_AFTER`` seconds old.

Any other (a branch, a remote-tracking ref, the index) is removed only when it is proven
stale: sync claims the ref locks it takes (``claim``: right after taking them, a record in
``<git common dir>/vcontext/reflocks/`` of this process — pid, start time, pid namespace,
host, the kernel's boot id — and of each lock file and its ref file — device, inode,
change time), and drops the claim once the refs moved. A lock file that is still the very
file a claim names (same inode and change time: no other process made it since), never
committed (its ref file still the one the claim saw: ``_uncommitted``), whose claimant is gone
(``fsio.alive``, on this boot of this machine's kernel, in this pid namespace), was left
by a killed sync: no live process holds it, and it is removed (``settle``), by one remover
at a time, which proves it again in its turn (``_Turn``). Anything short of that proof
(no claim: a git process, or a sync killed before it wrote its claim; a claimant that may
still run, in another pid namespace or on another machine; a claim that is no regular,
small, well-formed file) is named with what to do, as git does, and never removed by us:
what a person must do (``advice``; ``removal``).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Sequence

STALE_AFTER = 5.0
"""Seconds after which a lock file is taken as left by a dead process."""
OURS = "refs/vcontext/"
CLAIMS = ("vcontext", "reflocks")
"""Where, in a git common directory, sync claims the ref locks it holds."""
_QUOTED = re.compile(r"'([^']+\.lock)'")


def named_lock(text: str) -> str | None:
    """The lock file a git or libgit2 message names (``'…/main.lock'``), if any. A ref's
    name may hold a quote (``agents/x'y``), which ends ``'…'`` early: then the quoted span
    ending in ``.lock'`` that names a file here is the one (else such a lock was never
    named, and "sync again" was all sync could say, for ever)."""
    found = _QUOTED.search(text)
    if found and os.path.lexists(found.group(1)):
        return found.group(1)
    for end in (m.start() + len(".lock") for m in re.finditer(r"\.lock'", text)):
        line = text.rfind("\n", 0, end) + 1
        for start in (i for i in range(line, end) if text[i] == "'"):  # the longest first
            path = text[start + 1 : end]
            if "'" in path and os.path.lexists(path):
                return path
    return found.group(1) if found else None


def age(path: str) -> float | None:
    """Seconds since the lock file was made; None when it is gone."""
    try:
        return max(0.0, time.time() - os.stat(path).st_mtime)
    except OSError:
        return None


def ref_of(path: str, common: str | None) -> str | None:
    """The name of the ref whose lock file ``path`` is, in the repository whose git common
    directory is ``common`` (``refs/heads/a/refs/x`` for ``COMMON/refs/heads/a/refs/x.lock``);
    None when it is no ref's lock there (a work tree's own, ``packed-refs.lock``, another
    repository's, or ``common`` unknown). Judged against ``common`` itself: a ref's name
    may hold any folder name (``refs``, ``vcontext``), so no folder in the path tells where
    the repository begins."""
    if common is None or not path.endswith(".lock"):
        return None
    for lock, top in ((path, common), (_real(path), os.path.realpath(common))):
        rel = os.path.relpath(lock[: -len(".lock")], top).replace(os.sep, "/")
        if rel.startswith("refs/"):
            return rel
    return None


def _real(path: str) -> str:
    """``path`` with its folder's links resolved (the file itself may be gone)."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def common_of(path: str, names: Iterable[str]) -> str | None:
    """The git directory a lock file ``path`` is in when it is the lock of one of the refs
    ``names`` (``DIR/NAME.lock``): what a remote's message names of a push's refs."""
    slashed = path.replace(os.sep, "/")
    for name in names:
        if slashed.endswith(f"/{name}.lock"):
            return path[: len(path) - len(name) - len(".lock") - 1]
    return None


def settle(
    path: str, common: str | None, *, ours: bool | None = None, sleep: object = time.sleep
) -> bool:
    """Wait for a lock file to go away (at most until it is ``STALE_AFTER`` seconds old):
    True when it went, or when it was left stale and has been removed — proven a killed
    sync's (``proven_stale``: at once), or on a ref of ours (``refs/vcontext/``); False when
    it stays (see ``advice``). ``common``: the git common directory of the repository the
    lock is in (where its claims are, and what tells its ref's name: ``ref_of``); None when
    not known: then nothing is proven, nor ours."""
    if ours is None:
        ours = (ref_of(path, common) or "").startswith(OURS)
    folder = _claims_in(common)
    deadline = time.monotonic() + STALE_AFTER + 1.0
    proof = _proven(path, folder)  # a killed sync's: at once, whatever its age
    if proof is not None:
        return _remove_proven(path, proof, folder)
    while True:
        held = age(path)
        if held is None:
            return True
        if held >= STALE_AFTER or time.monotonic() > deadline:
            if ours:
                return _remove_aged(path, folder)
            proof = _proven(path, folder)  # (a claim written meanwhile, its writer dead since)
            return proof is not None and _remove_proven(path, proof, folder)
        assert callable(sleep)
        sleep(0.05)


def _remove(path: str) -> bool:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def _remove_aged(path: str, folder: str | None) -> bool:
    """Remove a lock file of ours left ``STALE_AFTER`` seconds: in a remover's turn
    (``_Turn``, where the repository has a claims folder), and only while it is still that
    old (a remover before it may have removed it, and a live process taken the ref since)."""
    if folder is None:
        return _remove(path)
    with _Turn(folder) as turn:
        held = age(path)
        if held is None:
            return True
        return turn.ok and held >= STALE_AFTER and _remove(path)


def _identity(info: os.stat_result) -> list[int]:
    """A lock file as a claim names it: device, inode and change time (which only the
    kernel sets: a file made since, even on a reused inode, has another)."""
    return [info.st_dev, info.st_ino, info.st_ctime_ns]


def _host() -> str:
    uname = getattr(os, "uname", None)
    return "" if uname is None else str(uname().nodename)


_BOOT: list[str | None] = []


def _boot() -> str | None:
    """This kernel's boot id (``/proc/sys/kernel/random/boot_id``): pids, start times and
    pid namespaces are this boot's of this machine's kernel. Two machines sharing a
    repository may share a host name, and their first pid namespace has the same inode
    number on every Linux machine: the host name alone does not tell them apart. None
    where there is none (no ``/proc``)."""
    if not _BOOT:
        try:
            with open("/proc/sys/kernel/random/boot_id", "rb") as fh:
                _BOOT.append(fh.read(64).decode("ascii").strip() or None)
        except (OSError, UnicodeDecodeError):
            _BOOT.append(None)
    return _BOOT[0]


def claim(common: str, paths: Sequence[str]) -> str | None:
    """Record that this process holds the lock files ``paths`` (of the repository whose git
    common directory is ``common``), right after taking them; the claim's path, for
    ``release`` (None: not written, e.g. a read-only folder; the locks then stay unproven,
    never wrongly removed). Written with ``O_EXCL`` under a name of its own: a claim cut
    short by a kill does not parse, and proves nothing."""
    from ..fsio import this_process

    files: dict[str, list[int]] = {}
    refs: dict[str, list[int] | None] = {}
    for path in paths:
        try:
            files[path] = _identity(os.lstat(path))
        except OSError:
            continue  # (no such file: nothing to claim)
        refs[path] = _ref_identity(path)
    if not files:
        return None
    pid, start, ns = this_process()
    body: dict[str, object] = {"pid": pid, "start": start, "ns": ns, "host": _host()}
    body.update(boot=_boot(), locks=files, refs=refs)
    folder = os.path.join(common, *CLAIMS)
    name = os.path.join(folder, f"{pid}-{start}-{ns}.{os.urandom(4).hex()}.json")
    for attempt in (0, 1):
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileNotFoundError:
            if attempt:
                return None
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError:
                return None
        except OSError:
            return None
    try:
        os.write(fd, json.dumps(body).encode())
    except OSError:
        os.close(fd)
        release(name)
        return None
    os.close(fd)
    return name


def _ref_identity(lock: str) -> list[int] | None:
    """The identity of the ref file a lock file ``lock`` stands for (``NAME`` of
    ``NAME.lock``), None when there is none (a packed or a new ref). Committing the lock
    renames it onto that file: a claim's lock whose ref file is still the claimed one was
    never committed (``_proof``)."""
    try:
        return _identity(os.lstat(lock[: -len(".lock")]))
    except OSError:
        return None


def release(claimed: str | None) -> None:
    """Drop a claim (its locks were committed or let go), and the claims of killed syncs
    none of whose lock files is left (removed by a person, or committed just before the
    kill): they prove nothing any more, and no proven removal would ever sweep them
    (``_sweep``; the folder holds nothing else as a rule: one listing)."""
    if claimed is not None:
        _remove(claimed)
        _sweep(_claims(os.path.dirname(claimed)))


_Refs = dict[str, list[int] | None] | None
_Claims = list[tuple[str, dict[str, list[int]], _Refs, bool]]
"""Claims as read (``_claims``): each one's path, its lock files' identities, their ref
files' identities when it took them (None: a claim of an older version, which has none),
whether its claimant is known gone."""


def proven_stale(path: str, common: str | None) -> list[int] | None:
    """The identity of lock file ``path`` when it is proven left by a killed sync: a claim
    in its repository (git common directory ``common``) names this very file, and the
    claimant (pid, start time, pid namespace, on this boot of this machine's kernel) is
    gone — and no live claimant names it (a file made anew on a reused inode within the
    clock's tick). None otherwise (no claim, another file, a claimant that may still run)."""
    return _proven(path, _claims_in(common))


def _proven(path: str, folder: str | None) -> list[int] | None:
    if folder is None or not os.path.lexists(path):
        return None
    return _proof(path, _claims(folder))


def _proof(path: str, claims: _Claims) -> list[int] | None:
    """``proven_stale`` against the claims read already (``_claims``)."""
    try:
        now = _identity(os.lstat(path))
    except OSError:
        return None
    if any(now in held.values() for _, held, _, dead in claims if not dead):
        return None
    for _, held, refs, dead in claims:
        for lock, ident in held.items() if dead else ():
            if ident == now and _uncommitted(lock, refs):
                return now  # this very file (by identity: whatever path named it)
    return None


def _uncommitted(lock: str, refs: _Refs) -> bool:
    """Whether the claimed ``lock`` was never committed: its ref file is still the one the
    claim saw (a commit renames the lock onto it). A claimant killed after committing,
    before dropping its claim, leaves its lock's identity in the claim, and a new lock on
    the freed inode within the clock's tick would match it: its ref file does not. A claim
    without ref files (an older version's): by the lock's identity alone, as it was."""
    if refs is None:
        return True
    return lock in refs and _ref_identity(lock) == refs[lock]


_CLAIM_MAX = 1 << 20
"""The largest claim read (one holds a transaction's few lock paths): a bigger file is not
one, and is not read whole."""


def _read_claim(where: str) -> object:
    """A claim's body; ValueError when it is none (the folder is in the repository: its
    files are untrusted — a link, a named pipe, a huge file, JSON nested past the parser:
    ``fsio.read_regular``, not through a link, at most ``_CLAIM_MAX`` bytes)."""
    from ..errors import OperationalError
    from ..fsio import read_regular

    try:
        data = read_regular(where, follow=False, limit=_CLAIM_MAX)
        return json.loads(data)
    except (OperationalError, RecursionError):
        raise ValueError(where) from None


def _claims(folder: str) -> _Claims:
    """The claims in ``folder`` that parse: each claim's path, its lock files' paths and
    identities, and whether its claimant is known gone (on this boot of this machine's
    kernel, in this pid namespace; any doubt: not gone)."""
    from ..fsio import alive, pid_namespace

    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return []
    found: _Claims = []
    here = pid_namespace()
    for name in names:
        where = os.path.join(folder, name)
        try:
            body = _read_claim(where)
            if not isinstance(body, dict):
                raise TypeError(where)
            pid, start, ns, host = body["pid"], body["start"], body["ns"], body["host"]
            boot = body.get("boot")
            held = {str(k): _ident(v) for k, v in body["locks"].items()}
            refs = _refs(body.get("refs"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            # cut short by a kill, or not ours: proves nothing (no locks), swept once its
            # writer is gone (``_unreadable_gone``)
            found.append((where, {}, {}, _unreadable_gone(where, name)))
            continue
        sound = (
            host == _host()
            and boot == _boot()
            and (boot is not None or here is None)  # (/proc, but no boot id: no proof)
            and ns == here  # (null where this process reads one: another world's pid)
            and type(pid) is int
            and pid > 0
            and (start is None or type(start) is int)
        )
        dead = sound and not alive(pid, start, ns)
        found.append((where, held, refs, dead))
    return found


WRITTEN_WITHIN = 1.0
"""Seconds within which any claim is written whole (it takes microseconds)."""
_NAMED = re.compile(r"([0-9]+)-([0-9]+|None)-([0-9]+|None)\.[0-9a-f]{8}\.json")
"""A claim's name as ``claim`` makes it: its writer's pid, start time and pid namespace."""


def _unreadable_gone(where: str, name: str) -> bool:
    """Whether a claim that does not read (cut short by a kill, or no claim at all) is left
    by no live writer, so that it may go (it names no lock: its going removes none). Its
    name names its writer (``claim``): gone (``fsio.alive``) once it is a second old (a
    writer on another machine sharing the folder writes its claim whole in microseconds,
    and its pid means nothing here: ``WRITTEN_WITHIN``); a name that names no writer:
    ``STALE_AFTER`` old."""
    from ..fsio import alive

    try:
        old = time.time() - os.lstat(where).st_mtime
    except OSError:
        return False
    named = _NAMED.fullmatch(name)
    if named is None:
        return old >= STALE_AFTER
    pid, start, ns = (None if g == "None" else int(g) for g in named.groups())
    assert pid is not None
    return old >= WRITTEN_WITHIN and not alive(pid, start, ns)


def _refs(value: object) -> _Refs:
    """A claim's ref files: their identities (or null: none), else the claim is none."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(value)
    return {str(k): None if v is None else _ident(v) for k, v in value.items()}


def _ident(value: object) -> list[int]:
    """A claimed lock file's identity: three integers, else the claim is none."""
    if not (isinstance(value, list) and len(value) == 3):
        raise ValueError(value)
    if not all(type(n) is int for n in value):
        raise ValueError(value)
    return value


def _still(path: str, ident: list[int]) -> bool:
    try:
        return _identity(os.lstat(path)) == ident
    except OSError:
        return False


def _claims_in(common: str | None) -> str | None:
    """The claims folder of the repository whose git common directory is ``common``, if it
    has one (a real folder: never through a link)."""
    if common is None:
        return None
    folder = os.path.join(common, *CLAIMS)
    return folder if os.path.isdir(folder) and not os.path.islink(folder) else None


TURN_WAIT = 1.0
"""Seconds a remover waits for its turn (another remover's takes microseconds; one
stopped in its turn leaves the lock a person's)."""


class _Turn:
    """One remover at a time in a repository (``flock`` on ``remover.lock`` in its claims
    folder, which the kernel drops with its holder, whatever killed it: nothing stale):
    each re-proves a lock in its turn, so two syncs proving the same lock at once never
    both act (the late one would move a live git's new lock, made since, often on the
    inode just freed). ``ok``: the turn is had; ``alone``: no other remover can be at work
    (what is set aside in the folder is a killed remover's)."""

    def __init__(self, folder: str) -> None:
        self.fd = -1
        self.ok = self.alone = False
        try:
            import fcntl
        except ImportError:  # (no flock: turns by identity alone, as best it can)
            self.ok = True
            return
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            self.fd = os.open(os.path.join(folder, "remover.lock"), flags, 0o644)
        except OSError:
            return
        deadline = time.monotonic() + TURN_WAIT
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.ok = self.alone = True
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
            except OSError:
                return

    def __enter__(self) -> _Turn:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # (ends the turn)
            self.fd = -1


def _remove_proven(path: str, ident: list[int], folder: str | None) -> bool:
    """Remove a lock file proven stale, and only that file: in this remover's turn
    (``_Turn``) the proof is made again (a remover before it may have removed it, and a
    live git taken the ref since); then it is moved aside (into the claims folder: git
    never reads it as a ref) and checked there (a person who removed it and a process that
    made a new one in between get theirs back). ``folder``: the repository's claims."""
    if folder is None:
        return False
    with _Turn(folder) as turn:
        if not turn.ok:
            return False
        _sweep_aside(folder, turn.alone)
        claims = _claims(folder)  # (read once in the turn: the proof, then the sweep)
        if _proof(path, claims) != ident:
            return not os.path.lexists(path)  # (gone: True; another file now: not ours)
        aside = os.path.join(folder, f"{os.getpid()}.{os.urandom(4).hex()}.stale")
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        try:
            moved = os.lstat(aside)
        except OSError:
            return True
        if [moved.st_dev, moved.st_ino] != ident[:2]:
            try:
                os.link(aside, path)  # (never over a lock made meanwhile)
            except OSError:
                pass
            _remove(aside)
            return False
        _remove(aside)
        _sweep(claims)
    return True


def _sweep(claims: _Claims) -> None:
    """Drop the claims of gone processes none of whose lock files is left (one was just
    removed). ``claims``: as read in this turn (a gone claimant's claim does not change;
    one written since is a live process's, never dropped)."""
    for where, held, _, dead in claims:
        if dead and not any(_still(lock, ident) for lock, ident in held.items()):
            _remove(where)


def _sweep_aside(folder: str, alone: bool) -> None:
    """Remove the locks a remover killed in its turn had set aside: in a turn of one's own
    (``alone``) every one is; else (no turns here) those whose remover's pid is gone."""
    from ..fsio import running

    try:
        aside = [n for n in os.listdir(folder) if n.endswith(".stale")]
    except OSError:
        return
    for name in aside:
        pid = name.split(".", 1)[0]
        if alone or (pid.isdigit() and not running(int(pid))):
            _remove(os.path.join(folder, name))


def advice(path: str) -> str:
    """What to do about a lock file that stays: one clause, with the command (the path
    shell-quoted: a ref's name may hold a quote or ``$(…)``, which a pasted ``'PATH'``
    would end or run)."""
    held = age(path)
    when = "" if held is None else f", made {held:.0f} s ago"
    return (
        f"{path} is in the way (a lock file{when}, most likely left by a git process that "
        f"was killed): if no git command is running there, remove it: {removal(path)}"
    )


def said_once(lines: list[str]) -> list[str]:
    """``lines`` with each said once: a line naming a lock file (``advice``) once per file,
    whatever age each look or push gave it ("made 3609 s ago", then "3610 s")."""
    seen: set[str] = set()
    kept: list[str] = []
    for line in lines:
        key = named_lock(line) or line
        if key not in seen:
            seen.add(key)
            kept.append(line)
    return kept


def removal(path: str) -> str:
    """The command that removes a lock file, its path one single-quoted word of a command
    line (a quote in it as ``'\\''``; a control character: ``command_word``'s ``$'…'``)."""
    if path.startswith("-"):
        path = f"./{path}"
    if any(ch < " " or ch == "\x7f" for ch in path):
        from ..validation.model import command_word

        return f"rm -f {command_word(path)}"
    return "rm -f '" + path.replace("'", "'\\''") + "'"
