"""How ``sync --push`` talks to a remote over the network (PRODUCT.md, "Sync at scale").

- A transient failure — a connection refused, closed or reset (ssh's
  ``kex_exchange_identification``, curl's "Empty reply from server"), a timeout, HTTP
  429/502/503/504, git's "Could not read from remote repository" without a refusal — is
  tried again with exponential backoff and jitter until the sync's deadline
  (``vcontext.syncTimeout``); a command still running at the deadline (a server that
  accepted the connection and says nothing) is killed with the processes it started, and
  counts as a timeout (a push: one that may have landed). A real refusal —
  authentication, permissions, a repository that is not there, an unknown host — stops at
  once. Anything else is said as git said it and not retried either.
- Its fetches skip git's auto maintenance (``maintenance.auto=false``, ``gc.auto=0``
  through the environment: the user's configuration is untouched); a sync fetches a few
  refs many times a minute, and the user's own commands still run maintenance.
- Over ssh (OpenSSH, when the user's ssh configuration shares no connections itself) its
  git commands share one connection: ``ControlMaster=auto`` with a control socket in a
  folder of the sync's own, ended (``ssh -O exit`` on that socket alone) when the sync
  ends, as a killed sync's is by the next one: no process and no authenticated session
  outlives the command, as with git itself. ``vcontext.sshPersist`` N > 0 keeps it
  instead, the clone's own (in a folder of this user's), for N idle seconds (ssh's
  ``ControlPersist``): an agent's next sync reuses it instead of a new key exchange.

``Link`` holds all of it for one remote; ``gitio.remote`` runs its commands through it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import OperationalError, shown_text, shown_url
from ..fsio import private_folder
from ..record import record
from . import GitResult, git
from .operands import remote_helper

if TYPE_CHECKING:
    import socket

REFUSED = re.compile(
    r"Permission denied|Authentication failed|could not read (Username|Password)"
    r"|terminal prompts disabled|does not appear to be a git repository"
    r"|repository '[^']*' not found|Repository not found|The requested URL returned error: "
    r"(400|401|403|404|405|410|411|413|414|415)|HTTP (401|403|404)|Host key verification failed"
    r"|REMOTE HOST IDENTIFICATION HAS CHANGED|Could not resolve host|Could not resolve hostname"
    r"|Name or service not known|unsupported URL protocol|Unsupported protocol"
    r"|No such file or directory|access denied|Access denied|not allowed|Too many authentication"
    r"|SSL certificate problem|certificate verify failed|server certificate verification failed"
    r"|hostname contains invalid characters|Bad port '|Bad configuration option"
    r"|extra arguments at end of line|garbage at end of line"  # ssh refusing its command line
    r"|dubious ownership|safe\.directory",  # git refusing another user's repository
    re.IGNORECASE,
)
"""A real refusal: trying again cannot help, and hammering a server that said no is rude."""

TRANSIENT = re.compile(
    r"Connection refused|Connection reset|Connection closed|connection closed|Connection timed"
    r"|timed out|kex_exchange_identification|ssh_exchange_identification"
    r"|Connection to [^ ]+ closed by remote host|Empty reply from server|Recv failure"
    r"|Send failure|Failed to connect|Couldn't connect|Could not connect"
    r"|The requested URL returned error: (429|502|503|504)|HTTP (429|502|503|504)"
    r"|RPC failed|the remote end hung up unexpectedly|early EOF|unexpected disconnect"
    r"|Broken pipe|Network is unreachable|No route to host|Temporary failure in name resolution"
    r"|transfer closed|GnuTLS recv error|SSL_ERROR_SYSCALL|Could not read from remote repository"
    r"|protocol error: bad pack header|index-pack failed|unpack-objects abnormal exit"
    r"|not our ref 0{40}\b|not our ref 0{64}\b",  # a ref read as the null id while another
    # push deleted it (seen in a 16-agent soak over ssh): the next listing no longer has it
    re.IGNORECASE,
)
"""The network or a busy server: the same command may well work a moment later."""

ANSWERED = re.compile(
    r"couldn't find remote ref|Unable to create '[^']*\.lock'|cannot lock ref"
    r"|\[rejected\]|\[remote rejected\]|pre-receive hook declined|hook declined"
    r"|does not support --atomic"
)
"""The remote answered (a ref it lacks, a lock, a rejection): the caller reads it."""

UNSENT = re.compile(
    r"unable to access '|Failed to connect|Couldn't connect|Could not connect|Connection refused"
    r"|kex_exchange_identification|ssh_exchange_identification"
    r"|Connection (closed|reset) by [^ ]+ port [0-9]+",
)
"""A failure before git sent the remote anything (HTTP: the first request, ``unable to access``;
ssh: the connection itself): even a push may simply be tried again."""

SUMMARY = re.compile(r"From | [ *+\-t=!] \S.* -> ")
"""A line of git's fetch summary (``From URL``, `` * [new branch]  main -> origin/main``):
what moved, never why the command failed."""

ADVICE = (
    "Please make sure you have the correct access rights",
    "and the repository exists.",
    "hint: ",
)

FIRST_PAUSE = 0.25  # seconds before the first retry; doubles each time, up to
LONGEST_PAUSE = 5.0  # (each times a random factor in [0.5, 1.5): agents dropped together
# by one server do not come back together)
SHOWN = 5  # of a streak of retries, say the first and every SHOWN-th
LAST_TRY = 5.0  # seconds a command started at (or just before) the deadline may take

NO_MAINTENANCE = (("maintenance.auto", "false"), ("gc.auto", "0"))
QUIET_RECEIVE = "git -c receive.autogc=false receive-pack"
"""The receiving end of a push to a remote on this machine when git's ``gc --auto`` would
find nothing to do there (``LocalRemote.maintenance_due``): git gives a local receive-pack
none of the pusher's configuration, so it is said on its command line."""
CONTROL_PERSIST = 30  # seconds a master lives on after a killed sync's last command
PERSIST = 0.0  # seconds a clone's shared connection outlives its sync's last command
# (vcontext.sshPersist; 0: the connection ends with the sync. Kept 60 s, an agent syncing
# often spared a key exchange per sync, about 10 % of its CPU over ssh, but left a master
# process and an open session behind every sync: a session a revoked key or a hardware
# key's touch no longer guards)


def unsent(stderr: str) -> bool:
    """Whether a transient failure happened before the remote was sent anything."""
    return UNSENT.search(stderr) is not None


def transient(stderr: str) -> bool:
    """Whether git's words say the network or a busy server failed (not a refusal)."""
    if REFUSED.search(stderr) or ANSWERED.search(stderr):
        return False
    return TRANSIENT.search(stderr) is not None


def explained(stderr: str, returncode: int) -> str:
    """git's reason in one line: its ``fatal:``/``error:`` line, with the lines before it
    that say why (ssh's "Permission denied (publickey)", its ``kex_exchange_identification``,
    the remote's own), never git's advice."""
    if "dubious ownership in repository at" in stderr:  # the one message, with git's fix
        from . import repository_error

        return repository_error(".", stderr).one_line()
    raw = [ln for ln in shown_text(stderr).splitlines() if not SUMMARY.match(ln)]
    lines = [ln.strip() for ln in raw if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith(ADVICE)]
    main = next((ln for ln in lines if ln.startswith(("fatal: ", "error: "))), None)
    if main is None:
        return lines[-1] if lines else f"exit status {returncode}"
    head = main.split(": ", 1)[1]
    before = [ln for ln in lines[: lines.index(main)] if not ln.startswith("warning: ")]
    return head + (f" ({'; '.join(before)})" if before else "")


class TransportError(OperationalError):
    """A git command could not talk to the remote: ``transient`` when trying again may work;
    ``final`` when it was tried until the deadline; ``lines``: git's own words."""

    def __init__(
        self, message: str, *, transient: bool, lines: str = "", final: bool = False
    ) -> None:
        super().__init__(message)
        self.transient, self.final, self.lines = transient, final, lines


@dataclass
class Backoff:
    """Pauses between tries of one streak: exponential, jittered, capped."""

    tries: int = 0

    def next(self) -> float:
        self.tries += 1
        pause = min(LONGEST_PAUSE, FIRST_PAUSE * 2.0 ** (self.tries - 1))
        return pause * random.uniform(0.5, 1.5)


def wait_longer(key: str) -> str:
    """The advice that sets ``key``, a deadline in seconds: ``to wait longer: git config KEY
    <SECONDS>``. The number is the reader's; a shell refuses the line as printed (``<`` …
    ``>`` then nothing to write to), where ``git config KEY`` alone, pasted, printed the
    value or exited 1: a line that did not do what it said."""
    return f"to wait longer: git config {key} <SECONDS>"


class Link:
    """One sync's connection to one remote: its git commands run through ``run``, which
    retries transient failures until ``deadline`` (a ``clock()`` value; None: no retry).

    ``clock`` is the wall clock the sync compares leases with; the deadline is kept on
    ``timer`` (monotonic): a step of the wall clock (NTP, a suspended laptop's clock set
    right) neither kills a sync before its ``vcontext.syncTimeout`` nor extends it."""

    def __init__(
        self,
        cwd: str,
        remote: str,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        report: Callable[[str], None] | None = None,
        share: bool = True,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cwd, self.remote = cwd, remote
        self.clock, self.sleep, self.report, self.timer = clock, sleep, report, timer
        self._until: float | None = None  # the deadline as a timer() value
        self.timeout_setting = "vcontext.syncTimeout"
        self.retried = 0  # transient failures tried again, in all
        self.took: dict[str, float] = {}  # verb -> seconds its last command that worked took
        self._share = share
        self._ssh: SshShare | bool | None = None  # False: looked, nothing to share
        self._ran = False  # a git command ran through it (its ssh logged in, or tried)
        # set for a remote on this machine: whether its receive-pack may skip gc --auto now
        self.quiet_receive: Callable[[], bool] | None = None

    @property
    def deadline(self) -> float | None:
        """Until when transient failures are tried again, as a ``clock()`` value (None: no
        retry); set as one (``clock() + timeout``), kept as a ``timer()`` one."""
        return None if self._until is None else self.clock() + (self._until - self.timer())

    @deadline.setter
    def deadline(self, value: float | None) -> None:
        self._until = None if value is None else self.timer() + (value - self.clock())

    def run(self, verb: str, args: Sequence[str], *, again: bool = True) -> GitResult:
        """``git VERB ARGS`` against the remote. A transient failure is tried again until
        the deadline when ``again`` (fetch, ls-remote: asking twice changes nothing) or when
        it came before anything was sent (``unsent``: a push too), else raised as a
        TransportError (a push whose connection dropped: it may have landed, the caller
        looks at the remote first). Other failures are returned as they are, for the caller
        to read."""
        backoff = Backoff()
        self._ran = True
        if verb == "push" and self.quiet_receive is not None and self.quiet_receive():
            args = [f"--receive-pack={QUIET_RECEIVE}", *args]
        while True:
            env = self._env(verb)  # (over ssh, after the shared connection's login: not this
            start = time.monotonic()  # command's time, which ``took`` keeps for estimates)
            out = git([verb, *args], cwd=self.cwd, check=False, env=env, timeout=self._left())
            answered = verb == "push" and ANSWERED.search(out.stdout) is not None
            # (git's rows of a push refused before sending: an atomic push with a stale
            # lease ends with "the remote end hung up unexpectedly" all the same)
            if out.returncode == 0 or answered or not transient(out.stderr):
                if out.returncode == 0 or (verb == "push" and out.stdout):
                    self.took[verb] = time.monotonic() - start  # (a push the remote answered,
                    # whatever it took: a round trip all the same)
                return out
            why = explained(out.stderr, out.returncode)
            if not again and not unsent(out.stderr):
                raise TransportError(
                    f"git {verb} {shown_url(self.remote)}: {why}", transient=True, lines=out.stderr
                )
            self.wait(f"git {verb} {shown_url(self.remote)}: {why}", backoff, out.stderr)

    def wait(self, what: str, backoff: Backoff, lines: str = "") -> None:
        """Pause before trying again after a transient failure (``what``); past the
        deadline, raise a TransportError that says so (exit 3)."""
        pause = backoff.next()
        left = None if self._until is None else self._until - self.timer()
        if left is None or left <= 0:
            tried = f"tried {backoff.tries} times" if backoff.tries > 1 else "tried once"
            raise TransportError(
                f"{what} ({tried}, until the deadline; {wait_longer(self.timeout_setting)})",
                transient=True,
                lines=lines,
                final=True,
            )
        pause = min(pause, left)  # a last try at the deadline itself
        self.retried += 1
        if self.report is not None and (backoff.tries == 1 or backoff.tries % SHOWN == 0):
            self.report(f"{what}: trying again in {pause:.1f} s (retry {backoff.tries})")
        self.sleep(pause)

    def left(self) -> float | None:
        """How long one command may take now (``_left``)."""
        return self._left()

    def _left(self) -> float | None:
        """How long one command may take: until the deadline (a command that hangs, on a
        server that accepted the connection and says nothing, is killed then), at least
        ``LAST_TRY`` (the last try at the deadline itself gets its chance); None: no
        deadline, no limit."""
        if self._until is None:
            return None
        return max(self._until - self.timer(), LAST_TRY)

    def begin(self) -> None:
        """Over ssh, start the shared connection now, in the background: its key exchange
        and login (a quarter of a second and more, most of what the first git command over
        ssh took) overlap the sync's local work instead of holding up its first command,
        which waits for it (``SshShare.open``). Nothing to do once a command ran through it
        (its ssh logged in as the master, or git's next command logs in itself), nor for
        anything but ssh."""
        if not self._ran and isinstance(share := self._share_of(), SshShare):
            share.open()

    def ready(self) -> None:
        """Over ssh, wait for the shared connection's login ``begin`` started (what the next
        command would wait for first): for a caller that times what follows (an integration
        from its lease push on), which that login is no part of. Anything else: nothing."""
        if isinstance(share := self._share_of(), SshShare):
            share.ready(self._left())

    def close(self) -> None:
        """End the shared ssh connection, if one was opened."""
        if isinstance(self._ssh, SshShare):
            self._ssh.close()
        self._ssh = False

    def _share_of(self) -> SshShare | bool:
        if self._ssh is None:
            self._ssh = (ssh_share(self.cwd, self.remote) if self._share else None) or False
        return self._ssh

    def _env(self, verb: str) -> dict[str, str] | None:
        env: dict[str, str] = {}
        if verb == "fetch":
            env.update(config_env(NO_MAINTENANCE))
        if isinstance(share := self._share_of(), SshShare):
            share.ready(self._left())
            env["GIT_SSH_COMMAND"] = share.command
        return env or None


def config_env(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """git configuration for one command through the environment (``GIT_CONFIG_COUNT``,
    after any the user set that way): argv and the user's files stay as they are."""
    count = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)
    env = {}
    for i, (key, value) in enumerate(pairs, start=count):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(count + len(pairs))
    return env


# -- one ssh connection per sync -------------------------------------------------------------


@record
class SshTarget:
    """Where an ssh URL points: what ssh needs to reach it."""

    host: str
    user: str | None = None
    port: str | None = None

    def args(self) -> list[str]:
        """ssh's arguments for this destination (options before the host)."""
        out = ["-p", self.port] if self.port else []
        out += ["-l", self.user] if self.user else []
        return [*out, "--", self.host]


def ssh_target(url: str) -> SshTarget | None:
    """The destination of an ssh URL (``ssh://[user@]host[:port]/path``, ``git+ssh://``,
    scp-like ``[user@]host:path``); None for any other URL or a path, for a remote
    helper's address (``ext::…``, ``fd::…``: git runs no ssh for it), and for a
    destination git would refuse or read otherwise (a user or host that starts with '-',
    "strange hostname blocked"; a port that is not a number; ``%`` escapes, which git
    decodes): the early login then runs nothing git would not."""
    if remote_helper(url):
        return None
    for scheme in ("ssh://", "git+ssh://", "ssh+git://"):
        if url.startswith(scheme):
            rest = url[len(scheme) :].split("/", 1)[0]
            user, _, hostport = rest.rpartition("@")
            if hostport.startswith("["):  # [v6::address]:port
                host, _, tail = hostport[1:].partition("]")
                port = tail[1:] if tail.startswith(":") else None
            else:
                host, _, port = hostport.partition(":")
            return _target(host, user, port, rest)
    if "://" in url or url.startswith(("/", "./", "../", "[")):
        return None
    head, colon, _ = url.partition(":")
    if not colon or "/" in head or not head:
        return None  # a path (git treats "a/b:c" as a local path)
    user, _, host = head.rpartition("@")
    return _target(host, user, None, head)


def _target(host: str, user: str, port: str | None, said: str) -> SshTarget | None:
    if not host or said.startswith("-") or host.startswith("-") or "%" in said:
        return None
    if port and not re.fullmatch(r"[0-9]+", port):
        return None
    if any(c.isspace() or not c.isprintable() for c in said):
        return None  # (ssh would not find such a host; an -o value of ssh -G's answer)
    return SshTarget(host, user or None, port or None)


class SshShare:
    """A control socket for this sync's git commands: ``command`` is the user's ssh command
    with ``ControlMaster=auto`` on it.

    ``persist`` > 0: the socket is the clone's own (``key``: the clone and its ssh
    settings) in this user's folder, and its master outlives the sync for ``persist``
    idle seconds (``close()`` leaves it: the clone's next sync reuses it). Else the
    socket is in a folder of this sync's own, which ``close()`` removes after ending the
    master."""

    def __init__(
        self, base: str, targets: list[SshTarget], *, persist: float = 0.0, key: str = ""
    ) -> None:
        self.base, self.targets = base, targets
        root = tempfile.gettempdir()
        if len(root) > 40:  # a unix socket's path is short (104 bytes): "%C" alone is 40
            root = "/tmp"
        if not re.fullmatch(r"[A-Za-z0-9/._-]+", root):  # ssh splits an -o value at spaces
            root = "/tmp"  # and expands its % tokens: TMPDIR is not ours to pass to it
        clean_stale(root, base)
        kept = user_folder("/tmp" if len(root) > 16 else root) if persist > 0 else None
        self.kept = kept is not None
        if kept is not None:
            self.folder = kept
            self.path = os.path.join(kept, f"{key[:8]}-%C")
            seconds = max(1, round(persist))
        else:
            self.folder = tempfile.mkdtemp(prefix=f"{SHARE_PREFIX}{os.getpid()}-", dir=root)
            self.path = os.path.join(self.folder, "%C")
            seconds = CONTROL_PERSIST
        self.options = [
            "-o", "ControlMaster=auto",
            "-o", f"ControlPath={self.path}",
            "-o", f"ControlPersist={seconds}",
        ]  # fmt: skip
        self.command = f"{base} {shlex.join(self.options)}"
        self._opening: list[subprocess.Popen[bytes]] = []
        self._prefix = f"{key[:8]}-" if self.kept else ""

    def open(self) -> None:
        """Start the master now, in the background (``ssh -f -N``: it logs in, listens on
        the control socket, then leaves the foreground, which ``ready`` waits for), so the
        key exchange overlaps what the sync does before its first git command. Never a
        prompt (``BatchMode``): a login that needs one fails here, and git's first command
        logs in itself as it would have, asking as usual; so does one that failed for any
        other reason (git's own command then says why, and a transient failure is tried
        again as any). Not when a kept connection of the clone's may be listening
        already, nor for someone at a terminal without an ssh agent (a key's passphrase
        to type: a login that cannot work without a prompt is not tried for nothing,
        which a server may count as a failed login)."""
        if self._opening or self.closed or _may_prompt():
            return
        if self.kept and any(n.startswith(self._prefix) for n in _listing(self.folder)):
            return  # (its own master, still there or gone: git's ssh finds out itself)
        for target in self.targets[:1]:  # the fetch URL's host (a push URL on another host,
            # rare, logs in with its own first command, as before)
            line = [*self.options, "-o", "BatchMode=yes", "-f", "-N", *target.args()]
            quiet = subprocess.DEVNULL
            try:
                proc = subprocess.Popen(
                    ["sh", "-c", f'{self.base} "$@"', "ssh", *line],
                    stdin=quiet, stdout=quiet, stderr=quiet,
                )  # fmt: skip
            except OSError:
                return
            self._opening.append(proc)

    def ready(self, timeout: float | None) -> None:
        """Wait for a master ``open`` started (at most ``timeout`` seconds: then it is
        killed with its processes, and git's command connects by itself)."""
        opening, self._opening = self._opening, []
        for proc in opening:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                from .proctree import kill_tree

                kill_tree(proc.pid)
                proc.wait()

    closed = False

    def close(self) -> None:
        """End this sync's master (``ssh -O exit`` on its own control socket: nobody
        else's; said in process, ``mux_exit``, else by ssh itself) and remove its folder;
        a kept one ends by itself once idle. A master ``open`` started that is still
        logging in (the sync ended before its first git command) is killed first: once it
        listens, it has left the foreground."""
        self.closed = True
        self.ready(0.0)
        if self.kept:
            return  # it ends by itself once idle for its ControlPersist seconds
        opened = _listing(self.folder)  # (no socket: no command used it, no master to end)
        if not all(mux_exit(os.path.join(self.folder, name)) for name in opened):
            for target in self.targets:
                _ssh(self.base, [*self.options, "-O", "exit", *target.args()])
        shutil.rmtree(self.folder, ignore_errors=True)


MUX_PATIENCE = 2.0  # seconds mux_exit waits for a master's answers, in all
MUX_HELLO, MUX_TERMINATE, MUX_OK = 0x00000001, 0x10000005, 0x80000001
"""OpenSSH's connection multiplexing protocol (its PROTOCOL.mux, version 4): the messages
``ssh -O exit`` sends and the master's answer."""


def mux_exit(path: str) -> bool:
    """Tell the ssh master listening on the control socket ``path`` to exit, as ``ssh -O
    exit`` does (hello, then a terminate request), without starting ssh for it (a process
    less at the end of every sync over ssh). False when it could not be said or was not
    accepted: the caller asks ssh itself."""
    import socket
    import struct

    def send(*words: int) -> None:
        body = struct.pack(f">{len(words)}I", *words)
        sock.sendall(struct.pack(">I", len(body)) + body)

    def first_word() -> int:
        (size,) = struct.unpack(">I", _read(sock, 4, end))
        body = _read(sock, size, end)
        return int(struct.unpack(">I", body[:4])[0])

    end = time.monotonic() + MUX_PATIENCE  # all of it (a master that answers a byte at a
    # time, or garbage, never holds up the sync's end for more)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(MUX_PATIENCE)
            sock.connect(path)
            send(MUX_HELLO, 4)
            if first_word() != MUX_HELLO:
                return False
            send(MUX_TERMINATE, 1)
            try:
                return first_word() == MUX_OK
            except TimeoutError:
                return False
            except OSError:  # it may exit before its answer goes out (as ssh -O exit
                return True  # knows: the socket closed after the request is a yes)
    except (OSError, struct.error):
        return False


def _read(sock: socket.socket, size: int, end: float) -> bytes:
    """Exactly ``size`` bytes from ``sock`` before ``end`` (a ``time.monotonic`` value): an
    OSError when it ends before, a TimeoutError when the time is up."""
    if size > 1 << 16:
        raise OSError("an ssh mux message too long")
    data = b""
    while len(data) < size:
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the ssh master took too long to answer")
        sock.settimeout(left)
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise OSError("the ssh master closed the socket")
        data += chunk
    return data


def _may_prompt() -> bool:
    """Whether ssh's login may need to ask (a terminal, no ssh agent to sign with)."""
    try:
        terminal = os.isatty(0)
    except OSError:
        terminal = False
    return terminal and not os.environ.get("SSH_AUTH_SOCK")


def _listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def user_folder(root: str) -> str | None:
    """This user's folder for the control sockets that outlive a sync (``SHARE_PREFIX``
    ``u<uid>`` in ``root``), made private; None when that name is taken by anything else
    than a private folder of this user's (a sync then shares its connection only with its
    own commands)."""
    path = os.path.join(root, f"{SHARE_PREFIX}u{os.getuid()}")
    return path if private_folder(path) else None


@record
class RemoteConfig:
    """What git's configuration says about reaching one remote, read from one ``git config``:
    its URLs (fetch and push, ``insteadOf``/``pushInsteadOf`` applied as git applies them),
    ``core.sshCommand`` and ``ssh.variant``."""

    urls: tuple[str, ...]
    push_urls: tuple[str, ...]
    ssh_command: str | None = None
    ssh_variant: str | None = None
    ssh_persist: str | None = None  # vcontext.sshPersist, as said


REMOTE_KEYS = (
    r"^(remote\..+\.(url|pushurl|vcs)|url\..+\.(insteadof|pushinsteadof)"
    r"|core\.sshcommand|ssh\.variant|vcontext\.sshpersist)$"
)
"""The config keys a sync's remote is read from (one ``git config --get-regexp``)."""


def remote_config(cwd: str, remote: str) -> RemoteConfig:
    """``remote``'s configuration (a remote's name, or a URL or path given as is)."""
    from .configread import matching

    urls: list[str] = []
    pushes: list[str] = []
    rewrites: dict[str, list[tuple[str, str]]] = {"insteadof": [], "pushinsteadof": []}
    command = variant = persist = None
    helper = False  # remote.<name>.vcs: git reaches it through git-remote-<vcs>, not ssh
    for key, said in matching(cwd, REMOTE_KEYS):  # (one listing of git's, shared: configread)
        value = said or ""
        head, _, rest = key.partition(".")
        sub, _, name = rest.rpartition(".")
        if head == "remote" and sub == remote and name == "vcs":
            helper = True
        elif head == "remote" and sub == remote:
            (urls if name == "url" else pushes).append(value)
        elif head == "url" and name in rewrites:
            rewrites[name].append((value, sub))
        elif key == "core.sshcommand":
            command = value
        elif key == "ssh.variant":
            variant = value
        elif key == "vcontext.sshpersist":
            persist = value
    if not urls:  # not a configured remote: a URL or a path itself
        urls.append(remote)
    push_urls = [_rewrite(u, rewrites["insteadof"]) for u in pushes] or [
        _rewrite(u, rewrites["pushinsteadof"], or_else=rewrites["insteadof"]) for u in urls
    ]
    fetch_urls = [_rewrite(u, rewrites["insteadof"]) for u in urls]
    if helper:
        fetch_urls = push_urls = []
    return RemoteConfig(tuple(fetch_urls), tuple(push_urls), command, variant, persist)


def _rewrite(
    url: str, rules: list[tuple[str, str]], or_else: list[tuple[str, str]] | None = None
) -> str:
    """``url`` with the longest matching prefix of ``rules`` (prefix, replacement) replaced,
    as git's ``url.<base>.insteadOf`` does; no match: by ``or_else`` rules, if given."""
    match = max((p for p in rules if url.startswith(p[0])), key=lambda p: len(p[0]), default=None)
    if match is None:
        return url if or_else is None else _rewrite(url, or_else)
    return match[1] + url[len(match[0]) :]


SHARE_PREFIX = "vcontext-ssh-"  # then the pid of the sync that made it, "-", random letters


def clean_stale(root: str, base: str = "ssh") -> list[str]:
    """Remove the control folders a killed sync left in ``root``: ours (this user's), whose
    sync is gone (its pid in the name; a folder without one once no master has used it for
    twice ``ControlPersist``), holding nothing but sockets (a folder of that name with
    anything else in it is not one of ours: left alone). A master still running there (a
    killed sync's lives on for ``ControlPersist`` seconds) is told to exit first. Returns
    the folders removed."""
    removed: list[str] = []
    try:
        names = [n for n in os.listdir(root) if n.startswith(SHARE_PREFIX)]
    except OSError:
        return removed
    for name in names:
        if name == f"{SHARE_PREFIX}u{os.getuid()}":
            continue  # the clones' connections that outlive their syncs: they end by themselves
        folder = os.path.join(root, name)
        sockets = _stale_sockets(folder, name[len(SHARE_PREFIX) :])
        if sockets is None:
            continue
        for path in sockets:  # a master still listening: end it (its sync is gone)
            if not mux_exit(path):
                _ssh(base, ["-o", f"ControlPath={path}", "-O", "exit", "--", "stale"], quiet=True)
            with contextlib.suppress(OSError):
                os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(folder)
            removed.append(folder)
    return removed


def _stale_sockets(folder: str, tail: str) -> list[str] | None:
    """The sockets in ``folder`` when it is a control folder of ours whose sync is gone
    (``tail``: its name after the prefix); None when it is not one to remove."""
    try:
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None
        pid = tail.split("-", 1)[0]
        if pid.isdigit() and _alive(int(pid)):
            return None
        if not pid.isdigit() and time.time() - info.st_mtime < 2 * CONTROL_PERSIST:
            return None  # (an older version's folder: by its age)
        sockets = [os.path.join(folder, n) for n in os.listdir(folder)]
        if not all(stat.S_ISSOCK(os.lstat(path).st_mode) for path in sockets):
            return None
    except OSError:
        return None
    return sockets


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


def ssh_share(cwd: str, remote: str) -> SshShare | None:
    """A shared connection for the remote's ssh URLs, when git would run OpenSSH and the
    user's ssh configuration does not share connections itself; None otherwise."""
    config = remote_config(cwd, remote)
    urls = dict.fromkeys([*config.urls, *config.push_urls])
    targets = [t for t in (ssh_target(u) for u in urls if u) if t is not None]
    if not targets:
        return None
    base = _ssh_command(config)
    if base is None:
        return None
    key = hashlib.sha1(f"{os.path.realpath(cwd)}\0{base}".encode())
    for target in targets:
        said = _ssh(base, ["-G", *target.args()])
        if said is None:
            return None
        settings = dict(ln.split(" ", 1) for ln in said.splitlines() if " " in ln)
        if settings.get("controlmaster", "false") != "false":
            return None  # the user's own sharing: use it as it is
        if settings.get("controlpath", "none") != "none":
            return None
        key.update(said.encode())  # (another identity, host or option: another connection)
    persist = _seconds(config.ssh_persist, PERSIST)
    return SshShare(base, list(dict.fromkeys(targets)), persist=persist, key=key.hexdigest())


def _seconds(said: str | None, default: float) -> float:
    """A number of seconds as git config said it (a bad or negative one: ``default``)."""
    if said is None:
        return default
    try:
        value = float(said)
    except ValueError:
        return default
    return value if 0 <= value < float("inf") else default


def _ssh_command(config: RemoteConfig) -> str | None:
    """The ssh command line git would run (GIT_SSH_COMMAND, core.sshCommand, else ssh), when
    it is OpenSSH; None for GIT_SSH (a program of its own) or another variant."""
    command = os.environ.get("GIT_SSH_COMMAND")
    if not command:
        if os.environ.get("GIT_SSH"):
            return None
        command = (config.ssh_command or "").strip() or "ssh"
    variant = (os.environ.get("GIT_SSH_VARIANT") or config.ssh_variant or "").strip()
    if variant and variant not in ("ssh", "auto"):
        return None
    try:
        first = shlex.split(command)[0]
    except (ValueError, IndexError):
        return None
    if os.path.basename(first) not in ("ssh", "ssh.exe"):
        return None
    if any(_shares_itself(word) for word in shlex.split(command)[1:]):
        return None  # (its own -o ControlMaster=no wins over ours: ssh -f -N would be a
    return command  # lone background session no control socket can end)


def _shares_itself(word: str) -> bool:
    """Whether a word of the user's ssh command line says how it shares connections
    (``-o ControlMaster=…``/``ControlPath``/``ControlPersist``, ``-M``, ``-S path``):
    ssh takes the first value it is given, so ours would not apply."""
    lowered = word.lower()
    if any(key in lowered for key in ("controlmaster", "controlpath", "controlpersist")):
        return True
    return (
        word.startswith("-")
        and not word.startswith(("--", "-o"))
        and bool(set(word[1:]) & {"M", "S"})
    )


def _ssh(base: str, args: list[str], *, quiet: bool = False) -> str | None:
    """Run the user's ssh command line (through the shell, as git does) with ``args``:
    its output, or None when it failed (``quiet``: within a second, or not at all)."""
    try:
        out = subprocess.run(
            ["sh", "-c", f'{base} "$@"', "ssh", *args],
            capture_output=True, text=True, timeout=1 if quiet else 30, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None
