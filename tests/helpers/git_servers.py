"""Real git servers on loopback, started and stopped by the tests and benchmarks that use them.

- ``HttpFront``: ``git http-backend`` (git's own smart-HTTP CGI) behind a small HTTP/1.1
  server of Python's standard library (keep-alive, chunked request bodies). It can answer
  every Nth request with an error status (429, 502, 503: what a busy forge or proxy says),
  ask for credentials, and run the backend as another user (a repository owned by the web
  server's user).
- ``NginxFront``: the same backend behind nginx + fcgiwrap, where both are installed (the
  set-up of many self-hosted git servers); ``http_front()`` picks it when it can.
- ``SshServer``: OpenSSH's sshd on a high loopback port, with a throwaway host key and a
  throwaway client key, configured as Debian ships it (``MaxStartups 10:30:100``), and an
  ssh client configuration (a ``Host`` alias) for git: ``core.sshCommand = ssh -F FILE``.
- ``DroppingProxy``: a TCP proxy that closes (or resets) every Nth connection it accepts
  and forwards the others, counting them: a flaky network, or a server shedding load.

Every server listens on 127.0.0.1 only. Each ``start()`` waits (bounded) until the port
answers; ``stop()`` ends exactly the processes it started. Where a server cannot be
installed or run, ``Unavailable`` says why (tests skip with that reason).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote

LOOPBACK = "127.0.0.1"
START_TIMEOUT = 15.0  # seconds a server may take to answer on its port


class Unavailable(Exception):
    """A server that cannot run here (not installed, not root, …): the reason, for a skip."""


def git_exec_path() -> Path:
    out = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def free_port() -> int:
    """A TCP port on loopback nobody listens on right now (for servers that need a number)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[Any] | None = None, what: str = "") -> None:
    """Until something accepts connections on ``port`` (bounded; the process must not die)."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise Unavailable(f"{what or 'server'} exited at start with {proc.returncode}")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise Unavailable(f"{what or 'server'} did not answer on port {port} in {START_TIMEOUT} s")


def stop_process(proc: subprocess.Popen[Any] | None, sig: int = signal.SIGTERM) -> None:
    """End one process this module started (its id, never a name) and reap it."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@dataclass(frozen=True)
class RunAs:
    """Another user to run a server's git processes as."""

    name: str
    uid: int
    gid: int


GIT_SHELL_USER = "vcontext-gitshell"
"""A git server's account whose login shell is ``git-shell`` (``other_user(GIT_SHELL_USER,
shell=git_shell())``): each ssh session runs the git command it asks for, nothing else,
as a forge's does."""


def git_shell() -> str:
    """Where git's restricted login shell is (Unavailable when git has none here)."""
    found = shutil.which("git-shell") or str(git_exec_path() / "git-shell")
    if not Path(found).exists():
        raise Unavailable("git-shell is not installed")
    return found


def other_user(name: str = "vcontext-git", shell: str = "/bin/sh") -> RunAs:
    """An unprivileged user for the tests, as a git server's account is: a plain shell (no
    rc files to run at each ssh session; ``shell``: another, such as ``git_shell()``), a
    home of its own, no password, logins by key (created with useradd when missing; kept
    for the next run: tests running in parallel may use it). Unavailable when not root."""
    import pwd

    home = Path("/var/lib") / name
    if os.geteuid() != 0:
        raise Unavailable("creating a user and acting as another user needs root")
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        made = subprocess.run(
            [useradd, "--system", "--shell", shell, "--home-dir", str(home),
             "--create-home", "--user-group", "--password", "*", name],
            capture_output=True, text=True,
        )  # fmt: skip
        if made.returncode not in (0, 9):  # 9: made meanwhile by a parallel test
            raise Unavailable(f"useradd {name} failed: {made.stderr.strip()}") from None
        entry = pwd.getpwnam(name)
    shadow = [ln.split(":") for ln in Path("/etc/shadow").read_text().splitlines()]
    if any(f[0] == name and f[1].startswith("!") for f in shadow if len(f) > 1):
        usermod = shutil.which("usermod") or "/usr/sbin/usermod"  # locked: sshd refuses a key
        subprocess.run([usermod, "--password", "*", name], capture_output=True, check=False)
    if not Path(entry.pw_dir).is_dir():
        Path(entry.pw_dir).mkdir(mode=0o755, parents=True, exist_ok=True)
        os.chown(entry.pw_dir, entry.pw_uid, entry.pw_gid)
    return RunAs(name, entry.pw_uid, entry.pw_gid)


def can_run(user: RunAs, argv: list[str]) -> bool:
    """Whether ``user`` can run ``argv`` (exit 0): a server's user must run what its hooks
    start."""
    try:
        out = subprocess.run(
            argv, user=user.uid, group=user.gid, extra_groups=[], capture_output=True,
            cwd="/", timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0


def shared_python(user: RunAs, folder: Path) -> Path:
    """A Python in ``folder`` that ``user`` can run, with this installation of git-vcontext
    (its packages read where they are): what an administrator installs system-wide. The
    tests' own Python may be in a folder only root enters (pyenv under /root). Unavailable
    when the system has no Python of the same version."""
    import sys
    import sysconfig

    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    system = shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")
    if system is None:
        raise Unavailable(f"no system {version} for the server's user")
    made = subprocess.run(
        [system, "-m", "venv", "--without-pip", str(folder)], capture_output=True, text=True
    )
    if made.returncode != 0:
        raise Unavailable(f"{system} -m venv: {made.stderr.strip()[-300:]}")
    ours = sysconfig.get_paths()["purelib"]
    for site in folder.glob("lib/python*/site-packages"):
        (site / "vcontext_tests.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    python = folder / "bin" / "python"
    subprocess.run(["chmod", "-R", "a+rX", "--", str(folder)], check=True)
    if not can_run(user, [str(python), "-c", "import git_vcontext, pygit2"]):
        raise Unavailable(f"{user.name} cannot import git_vcontext with {system}")
    return python


def own(path: Path, user: RunAs) -> None:
    """Give ``path`` and everything under it to ``user`` (a repository a server serves)."""
    subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", "--", str(path)], check=True)


def shared_tmp(prefix: str) -> Path:
    """A temporary folder every user may enter (pytest's tmp_path is root's alone): for
    repositories another user serves."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


# -- HTTP: git http-backend behind Python's standard library -------------------------------


@dataclass
class Faults:
    """What an ``HttpFront`` does wrong on purpose: one request in ``every`` (counting all
    requests, drawn by a seeded generator: the same faults each run) is answered with
    ``status`` instead of reaching git. Not a fixed cycle: a git fetch is three requests
    (protocol v2: capabilities, ls-refs, fetch), and "every third request" would fail the
    same one of each fetch forever, whatever the client did; a busy server is not in step
    with its clients."""

    every: int = 0
    status: int = 503
    seed: int = 30
    _draw: random.Random | None = None

    def hit(self) -> bool:
        """Whether this request is answered with ``status``."""
        if not self.every:
            return False
        if self._draw is None:
            self._draw = random.Random(self.seed)
        return self._draw.randrange(self.every) == 0


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    front: HttpFront


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as git's libcurl expects of a real server
    server: _HttpServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the tests read git's words, not the server's log

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        front = self.server.front
        body = self._body()
        front.count_request()
        faults = front.faults
        if faults.hit():
            self._answer(faults.status, {"Retry-After": "0"}, b"busy, try again\n")
            return
        if front.password is not None and not self._authorized(front.password):
            self._answer(401, {"WWW-Authenticate": 'Basic realm="git"'}, b"who are you?\n")
            return
        status, headers, out = front.backend(self, body)
        self._answer(status, headers, out)

    def _authorized(self, password: str) -> bool:
        given = self.headers.get("Authorization", "")
        wanted = base64.b64encode(f"agent:{password}".encode()).decode()
        return given == f"Basic {wanted}"

    def _body(self) -> bytes:
        if self.command != "POST":
            return b""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()  # the CRLF after each chunk
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _answer(self, status: int, headers: dict[str, str], out: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


class HttpFront:
    """``git http-backend`` serving the bare repositories under ``root`` at
    ``http://127.0.0.1:PORT/<path under root>``; pushes allowed (a fixed REMOTE_USER)."""

    def __init__(
        self,
        root: Path,
        *,
        faults: Faults | None = None,
        password: str | None = None,
        run_as: RunAs | None = None,
        home: Path | None = None,
        port: int = 0,
    ) -> None:
        self.root, self.faults = Path(root), faults or Faults()
        self.wanted_port = port  # 0: any free one
        self.password, self.run_as = password, run_as
        self.home = home  # HOME of the git processes (the server's own git config)
        self.requests = 0
        self.backend_cpu = 0.0  # seconds of CPU the backend processes used
        self._lock = threading.Lock()
        self._server: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        self._backend = str(git_exec_path() / "git-http-backend")

    @property
    def port(self) -> int:
        """The port it listens on (stopped: the one it listened on, which a restart reuses)."""
        if self._server is None:
            assert self.wanted_port, "never started"
            return self.wanted_port
        return int(self._server.server_address[1])

    def url(self, repo: Path) -> str:
        return f"http://{LOOPBACK}:{self.port}/{Path(repo).relative_to(self.root).as_posix()}"

    def start(self) -> HttpFront:
        server = _HttpServer((LOOPBACK, self.wanted_port), _Handler)
        server.front = self
        self._server = server
        self.wanted_port = int(server.server_address[1])
        self._thread = threading.Thread(target=server.serve_forever, args=(0.1,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> HttpFront:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def count_request(self) -> int:
        with self._lock:
            self.requests += 1
            return self.requests

    def backend(self, request: _Handler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        """Run the CGI for one request: (status, headers, body)."""
        path, _, query = request.path.partition("?")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "PATH_INFO": unquote(path),
            "QUERY_STRING": query,
            "REQUEST_METHOD": request.command,
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": "agent",
            "REMOTE_ADDR": LOOPBACK,
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        if self.home is not None:
            env["HOME"] = str(self.home)
        for header in ("Content-Encoding", "Git-Protocol"):
            if value := request.headers.get(header):
                env["HTTP_" + header.upper().replace("-", "_")] = value
        if env.get("HTTP_GIT_PROTOCOL"):
            env["GIT_PROTOCOL"] = env["HTTP_GIT_PROTOCOL"]
        code, stdout, stderr, cpu = _run_measured([self._backend], body, env, self.run_as)
        with self._lock:
            self.backend_cpu += cpu
        head, found, out = stdout.partition(b"\r\n\r\n")
        if not found or b"\n\n" in head:
            head, _, out = stdout.partition(b"\n\n")
        status, headers = 200, {}
        for line in head.decode("latin-1").splitlines():
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers[key] = value.strip()
        if code != 0 and not head:
            return 500, {}, stderr
        return status, headers, out

    def cpu_seconds(self) -> float:
        """CPU the git processes of the requests used so far (the front's own Python threads
        are not counted)."""
        with self._lock:
            return self.backend_cpu


def _run_measured(
    command: list[str], data: bytes, env: dict[str, str], run_as: RunAs | None
) -> tuple[int, bytes, bytes, float]:
    """Run ``command`` with ``data`` on stdin: (exit code, stdout, stderr, CPU seconds it and
    its children used; from wait4, so other threads' processes do not count)."""
    user: dict[str, Any] = {}
    if run_as is not None:
        user = {"user": run_as.uid, "group": run_as.gid, "extra_groups": []}
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, **user,
    )  # fmt: skip
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream: Any) -> None:
        chunks[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=("out", proc.stdout)),
        threading.Thread(target=drain, args=("err", proc.stderr)),
    ]
    for reader in readers:
        reader.start()
    try:
        proc.stdin.write(data)
    except BrokenPipeError:
        pass
    proc.stdin.close()
    for reader in readers:
        reader.join()
    _, status, used = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # (reaped here: Popen must not wait)
    return proc.returncode, chunks["out"], chunks["err"], used.ru_utime + used.ru_stime


def proc_stats() -> Iterator[tuple[int, str, list[str]]]:
    """Each process running now, from /proc: its pid, its name and the fields of its
    ``stat`` after the name (state first, then the parent's pid, …)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        name = text[text.index("(") + 1 : text.rindex(")")]
        yield int(entry.name), name, text[text.rindex(")") + 2 :].split()


def tree_cpu(pids: list[int]) -> float:
    """CPU seconds used so far by the processes ``pids`` and all their descendants (their own,
    and what their children that ended used), read from /proc: a server's share of a run."""
    ticks = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    used: dict[int, int] = {}
    for pid, _, fields in proc_stats():
        parent[pid] = int(fields[1])
        used[pid] = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    wanted = {p for p in pids if p in used}
    grew = True
    while grew:
        more = {p for p, pp in parent.items() if pp in wanted and p not in wanted}
        wanted |= more
        grew = bool(more)
    return sum(used[p] for p in wanted) / ticks


# -- HTTP: nginx + fcgiwrap -------------------------------------------------------------------


NGINX_CONF = """\
daemon off;
master_process on;
worker_processes 2;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
{user}
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    keepalive_requests 1000;
    server {{
        listen {host}:{port}{tls};
        {certificate}
        client_max_body_size 0;
        location / {{
            fastcgi_pass unix:{dir}/fcgiwrap.sock;
            fastcgi_param SCRIPT_FILENAME {script};
            fastcgi_param GIT_PROJECT_ROOT {root};
            fastcgi_param GIT_HTTP_EXPORT_ALL 1;
            fastcgi_param GIT_CONFIG_NOSYSTEM 1;
            fastcgi_param HOME {home};
            fastcgi_param PATH {path};
            fastcgi_param PATH_INFO $uri;
            fastcgi_param QUERY_STRING $query_string;
            fastcgi_param REQUEST_METHOD $request_method;
            fastcgi_param CONTENT_TYPE $content_type;
            fastcgi_param CONTENT_LENGTH $content_length;
            fastcgi_param REMOTE_USER agent;
            fastcgi_param REMOTE_ADDR $remote_addr;
            fastcgi_param GIT_PROTOCOL $http_git_protocol;
            fastcgi_param SERVER_PROTOCOL $server_protocol;
            fastcgi_param GATEWAY_INTERFACE CGI/1.1;
        }}
    }}
}}
"""


MEASURED_C = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    (void)argc;
    struct timeval began, ended;
    gettimeofday(&began, NULL);
    signal(SIGCHLD, SIG_DFL);
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        argv[0] = "@BACKEND@";
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage used;
    if (wait4(pid, &status, 0, &used) < 0) return 127;
    gettimeofday(&ended, NULL);
    long us = used.ru_utime.tv_sec * 1000000L + used.ru_utime.tv_usec
        + used.ru_stime.tv_sec * 1000000L + used.ru_stime.tv_usec;
    const char *method = getenv("REQUEST_METHOD"), *path = getenv("PATH_INFO");
    const char *query = getenv("QUERY_STRING");
    const char *slash = path != NULL ? strstr(path, "/info/refs") : NULL;
    if (slash == NULL && path != NULL) slash = strrchr(path, '/');
    FILE *log = fopen("@LOG@", "a");
    if (log != NULL) {  /* the CPU, then what was asked: GET info/refs?service=… / POST git-… */
        fprintf(log, "vcontext-cpu-us %ld %s %s%s%s\n", us, method ? method : "-",
                slash ? slash + 1 : "-", query && *query ? "?" : "", query ? query : "");
        fprintf(log, "vcontext-wall %ld.%06ld %ld.%06ld %s\n", (long)began.tv_sec,
                (long)began.tv_usec, (long)ended.tv_sec, (long)ended.tv_usec,
                method ? method : "-");  /* when the backend ran (seconds since the epoch) */
        fclose(log);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
"""


class NginxFront:
    """``git http-backend`` behind nginx and fcgiwrap (both run from a private folder)."""

    def __init__(
        self,
        root: Path,
        work: Path,
        *,
        home: Path | None = None,
        workers: int = 32,
        tls: bool = False,
    ):
        """``workers``: fcgiwrap's processes (requests served at once). ``tls``: HTTPS with
        a self-signed certificate made at ``start`` (``certificate``: its PEM file, which
        a client trusts by naming it), for ``127.0.0.1`` and ``localhost``."""
        self.tls = tls
        self.certificate = Path(work) / "server.crt"
        self.root, self.dir = Path(root), Path(work)
        self.home = home or self.dir
        self.workers = workers
        self.port = 0
        self._nginx: subprocess.Popen[bytes] | None = None
        self._fcgi: subprocess.Popen[bytes] | None = None
        self.faults = Faults()  # (none: nginx answers as configured)

    @staticmethod
    def available(*, tls: bool = False) -> str | None:
        """Why this front cannot run here (None: it can)."""
        for tool in ("nginx", "fcgiwrap"):
            if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
                return f"{tool} is not installed (apt-get install nginx fcgiwrap)"
        if tls and shutil.which("openssl") is None:
            return "openssl is not installed (apt-get install openssl)"
        return None

    def url(self, repo: Path, host: str = LOOPBACK) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{host}:{self.port}/{Path(repo).relative_to(self.root).as_posix()}"

    def _make_certificate(self) -> str:
        """A self-signed certificate and its key (nginx's ``ssl_*`` lines), made here."""
        key = self.dir / "server.key"
        made = subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-subj", "/CN=vcontext test server", "-keyout", str(key),
             "-out", str(self.certificate),
             "-addext", f"subjectAltName=IP:{LOOPBACK},DNS:localhost"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if made.returncode != 0:
            raise Unavailable(f"openssl req -x509 failed: {made.stderr.strip()}")
        return f"ssl_certificate {self.certificate}; ssl_certificate_key {key};"

    def start(self) -> NginxFront:
        if why := self.available(tls=self.tls):
            raise Unavailable(why)
        self.dir.mkdir(parents=True, exist_ok=True)
        certificate = self._make_certificate() if self.tls else ""
        sock = self.dir / "fcgiwrap.sock"
        fcgiwrap = shutil.which("fcgiwrap") or "/usr/sbin/fcgiwrap"
        self._fcgi = subprocess.Popen(
            [fcgiwrap, "-c", str(self.workers), "-s", f"unix:{sock}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "fcgiwrap.log", "wb"),  # noqa: SIM115 (the process keeps it)
            start_new_session=True,  # its workers outlive it: stop() ends the whole group
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT
        while not sock.exists():
            if self._fcgi.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise Unavailable("fcgiwrap did not start")
            time.sleep(0.02)
        self.port = free_port()
        conf = self.dir / "nginx.conf"
        conf.write_text(
            NGINX_CONF.format(
                dir=self.dir, host=LOOPBACK, port=self.port, root=self.root, home=self.home,
                script=self._script(), tls=" ssl" if self.tls else "", certificate=certificate,
                path=os.environ.get("PATH", "/usr/bin:/bin"),
                user="user root root;" if os.geteuid() == 0 else "",
            )
        )  # fmt: skip
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self._nginx = subprocess.Popen(
            [nginx, "-c", str(conf), "-p", str(self.dir), "-e", str(self.dir / "error.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            wait_for_port(self.port, self._nginx, "nginx")
        except Unavailable:
            self.stop()
            raise
        return self

    def _script(self) -> Path:
        """What fcgiwrap runs per request: git http-backend, measured where it can be.

        fcgiwrap ignores SIGCHLD, so the processes it starts are reaped by the kernel and
        their CPU time is lost to the tree (and ``times`` counts whole clock ticks, 10 ms: a
        request takes less). Where a C compiler is installed, a wrapper compiled for the run
        restores the default, waits for the backend with wait4 and appends the microseconds
        it and its children used to a log (a few microseconds a request)."""
        backend = git_exec_path() / "git-http-backend"
        compiler = shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            return backend  # unmeasured: cpu_seconds() counts nginx and fcgiwrap only
        source, wrapper = self.dir / "measured.c", self.dir / "measured"
        source.write_text(MEASURED_C.replace("@BACKEND@", str(backend)).replace(
            "@LOG@", str(self.dir / "cpu.log")
        ))  # fmt: skip
        built = subprocess.run(
            [compiler, "-O2", "-o", str(wrapper), str(source)], capture_output=True, check=False
        )
        return wrapper if built.returncode == 0 else backend

    def cpu_seconds(self) -> float:
        """CPU nginx, fcgiwrap and the git processes of the requests used so far."""
        total = tree_cpu(self.pids())
        log = self.dir / "cpu.log"
        if log.exists():
            for line in log.read_text(errors="replace").splitlines():
                words = line.split()
                if len(words) >= 2 and words[0] == "vcontext-cpu-us":
                    total += int(words[1]) / 1e6
        return total

    def requests(self) -> int:
        """The requests that reached git so far (CGI runs the measuring wrapper logged)."""
        return sum(n for n, _ in self.by_request().values())

    def by_request(self) -> dict[str, tuple[int, float]]:
        """What the requests so far asked (``GET info/refs?service=git-upload-pack``, ``POST
        git-receive-pack``, …): how many, and the CPU seconds they used (measured: see
        ``_script``)."""
        log = self.dir / "cpu.log"
        out: dict[str, tuple[int, float]] = {}
        if not log.exists():
            return out
        for line in log.read_text(errors="replace").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "vcontext-cpu-us":
                kind = " ".join(words[2:]) or "?"
                n, cpu = out.get(kind, (0, 0.0))
                out[kind] = (n + 1, cpu + int(words[1]) / 1e6)
        return out

    def ran(self) -> list[tuple[float, float, float, str]]:
        """Each request git answered so far: (start, end: seconds since the epoch; CPU
        seconds; what was asked, as ``by_request``), in the order they ended."""
        log = self.dir / "cpu.log"
        out: list[tuple[float, float, float, str]] = []
        if not log.exists():
            return out
        cpu, kind = 0.0, "?"
        for line in log.read_text(errors="replace").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "vcontext-cpu-us":
                cpu, kind = int(words[1]) / 1e6, " ".join(words[2:]) or "?"
            elif len(words) >= 3 and words[0] == "vcontext-wall":
                out.append((float(words[1]), float(words[2]), cpu, kind))
        return out

    def pids(self) -> list[int]:
        return [p.pid for p in (self._nginx, self._fcgi) if p is not None]

    def stop(self) -> None:
        stop_process(self._nginx, signal.SIGQUIT)  # graceful: finish the requests running
        fcgi = self._fcgi
        stop_process(fcgi)
        if fcgi is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(fcgi.pid, signal.SIGTERM)  # the workers fcgiwrap -c forked
        self._nginx = self._fcgi = None

    def __enter__(self) -> NginxFront:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def http_front(root: Path, work: Path, kind: str = "auto", **kwargs: Any) -> HttpFront | NginxFront:
    """An HTTP front for ``root``: ``nginx`` (nginx + fcgiwrap), ``python`` (the standard
    library), or ``auto`` (nginx where installed)."""
    if kind == "nginx" or (kind == "auto" and NginxFront.available() is None and not kwargs):
        return NginxFront(root, work)
    return HttpFront(root, **kwargs)


# -- SSH: OpenSSH's sshd ----------------------------------------------------------------------


SSHD_CONFIG = """\
# A stock Debian sshd (its sshd_config's own lines, the defaults spelled out), on loopback.
ListenAddress {host}:{port}
HostKey {dir}/host_ed25519
PidFile {dir}/sshd.pid
AuthorizedKeysFile {dir}/authorized_keys
StrictModes no
UsePAM no
KbdInteractiveAuthentication no
PasswordAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
MaxStartups {max_startups}
MaxSessions 10
PrintMotd no
AcceptEnv {accept_env}
LogLevel {log_level}
{extra}"""

SSH_ALIAS = "vcontext-git-server"


class SshServer:
    """sshd on a high loopback port, its keys made for this run, logins by key only (root and
    any other user: one authorized key file for all)."""

    def __init__(
        self,
        work: Path,
        *,
        max_startups: str = "10:30:100",
        accept_env: str = "LANG LC_*",
        log_level: str = "ERROR",
        login: str = "root",
        set_env: dict[str, str] | None = None,
    ) -> None:
        """``login``: the account clients log in as (``client_config``): a git server's
        own user (``other_user()``), or root. ``set_env``: variables sshd sets in every
        session (its ``SetEnv``: a benchmark's process logger, ``helpers.cpulog``; no
        stock server says any)."""
        self.dir = Path(work)
        self.login = login
        self.max_startups, self.accept_env, self.log_level = max_startups, accept_env, log_level
        self.set_env = dict(set_env or {})
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self.key = self.dir / "client_ed25519"
        self.known_hosts = self.dir / "known_hosts"

    @staticmethod
    def available() -> str | None:
        if shutil.which("sshd") is None and not Path("/usr/sbin/sshd").exists():
            return "sshd is not installed (apt-get install openssh-server)"
        if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
            return "the OpenSSH client (ssh, ssh-keygen) is not installed"
        if os.geteuid() != 0:
            return "sshd needs root here (privilege separation, logins as other users)"
        return None

    def start(self) -> SshServer:
        if why := self.available():
            raise Unavailable(why)
        self.dir.mkdir(parents=True, exist_ok=True)
        for name in ("host_ed25519", "client_ed25519"):
            if not (self.dir / name).exists():
                subprocess.run(
                    ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name,
                     "-f", str(self.dir / name)],
                    check=True, capture_output=True,
                )  # fmt: skip
        (self.dir / "authorized_keys").write_text((self.dir / "client_ed25519.pub").read_text())
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation folder
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        for _ in range(3):  # a port taken meanwhile: another one
            self.port = free_port()
            conf = self.dir / "sshd_config"
            conf.write_text(
                SSHD_CONFIG.format(
                    host=LOOPBACK, port=self.port, dir=self.dir, max_startups=self.max_startups,
                    accept_env=self.accept_env, log_level=self.log_level,
                    extra=(  # (one line: sshd takes a keyword's first line only)
                        "SetEnv " + " ".join(f"{k}={v}" for k, v in self.set_env.items()) + "\n"
                        if self.set_env
                        else ""
                    ),
                )
            )  # fmt: skip
            check = subprocess.run([sshd, "-t", "-f", str(conf)], capture_output=True, text=True)
            if check.returncode != 0:
                raise Unavailable(f"sshd refuses its configuration: {check.stderr.strip()}")
            self._proc = subprocess.Popen(
                [sshd, "-D", "-e", "-f", str(conf)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=open(self.dir / "sshd.log", "ab"),  # noqa: SIM115 (the process keeps it)
            )  # fmt: skip
            try:
                wait_for_port(self.port, self._proc, "sshd")
                break
            except Unavailable:
                stop_process(self._proc)
                self._proc = None
        else:
            raise Unavailable(f"sshd did not start: {(self.dir / 'sshd.log').read_text()[-500:]}")
        host_key = (self.dir / "host_ed25519.pub").read_text().split()
        self.known_hosts.write_text(f"{host_key[0]} {host_key[1]}\n")
        return self

    def pids(self) -> list[int]:
        return [] if self._proc is None else [self._proc.pid]

    def cpu_seconds(self) -> float:
        """CPU sshd, its sessions and the git processes they ran used so far."""
        return tree_cpu(self.pids())

    def stop(self) -> None:
        stop_process(self._proc)
        self._proc = None

    def __enter__(self) -> SshServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def client_config(
        self, path: Path, *, port: int | None = None, user: str | None = None, extra: str = ""
    ) -> Path:
        """An ssh client configuration with the ``Host`` alias ``SSH_ALIAS`` for this server
        (``port``: another port to reach it through, a proxy's). Returns ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"Host {SSH_ALIAS}\n"
            f"    HostName {LOOPBACK}\n"
            f"    Port {port or self.port}\n"
            f"    User {user or self.login}\n"
            f"    IdentityFile {self.key}\n"
            "    IdentitiesOnly yes\n"
            f"    UserKnownHostsFile {self.known_hosts}\n"
            "    StrictHostKeyChecking yes\n"
            "    CheckHostIP no\n"
            "    HostKeyAlias vcontext-git-server\n"
            "    BatchMode yes\n"
            "    LogLevel ERROR\n" + extra
        )
        # the host key is recorded under the alias (ports change between runs)
        key = (self.dir / "host_ed25519.pub").read_text().split()
        self.known_hosts.write_text(f"{SSH_ALIAS} {key[0]} {key[1]}\n")
        return path

    @staticmethod
    def url(repo: Path) -> str:
        return f"{SSH_ALIAS}:{Path(repo).as_posix()}"

    @staticmethod
    def ssh_command(config: Path) -> str:
        """What ``core.sshCommand`` says for a client using ``config``."""
        return f"ssh -F {config}"


# -- a network that drops connections ---------------------------------------------------------


class DroppingProxy:
    """Forwards TCP connections from its own loopback port to ``target``; closes every
    ``every``-th connection it accepts right away (``how``: ``close``, an orderly end the
    client reads as "connection closed"; ``reset``, an RST; ``cycle``: each in turn), before
    a byte reaches the server. ``connections``: how many it accepted, ``dropped``: how many
    of them it closed."""

    def __init__(
        self,
        target: int,
        every: int = 3,
        how: str = "cycle",
        *,
        delay: float = 0.0,
        most: int | None = None,
    ) -> None:
        """``delay``: seconds each chunk waits before it is passed on, either way (a network
        whose round trip is twice that, as a remote server's). ``most``: how many it drops
        in all (None: no limit; ``every=1, most=1``: the first connection only)."""
        self.target, self.every, self.how, self.delay = target, every, how, delay
        self.most = most
        self.connections = 0
        self.dropped = 0
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._open: set[socket.socket] = set()
        self._ways = itertools.cycle(("close", "reset"))

    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.getsockname()[1])

    @property
    def open_connections(self) -> int:
        """Connections forwarded now (a client that keeps one open: an ssh master)."""
        with self._lock:
            return len(self._open) // 2

    def start(self) -> DroppingProxy:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((LOOPBACK, 0))
        listener.listen(128)
        listener.settimeout(0.1)
        self._listener = listener
        thread = threading.Thread(target=self._accept_loop, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in list(self._threads):
            thread.join(timeout=5)
        with self._lock:
            for sock in list(self._open):
                _close(sock)
            self._open.clear()
        if self._listener is not None:
            self._listener.close()

    def __enter__(self) -> DroppingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
                drop = self.every > 0 and self.connections % self.every == 0
                drop = drop and (self.most is None or self.dropped < self.most)
                if drop:
                    self.dropped += 1
            if drop:
                how = next(self._ways) if self.how == "cycle" else self.how
                if how == "reset":  # an RST instead of a FIN
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()
                continue
            try:
                upstream = socket.create_connection((LOOPBACK, self.target), timeout=10)
            except OSError:
                conn.close()
                continue
            upstream.settimeout(None)
            conn.settimeout(None)
            with self._lock:
                self._open.update((conn, upstream))
            ends = [0]  # pumps of this connection that ended
            for a, b in ((conn, upstream), (upstream, conn)):
                pump = threading.Thread(target=self._pump, args=(a, b, ends), daemon=True)
                pump.start()

    def _pump(self, source: socket.socket, sink: socket.socket, ends: list[int]) -> None:
        """Copy one direction until its end; the second pump to end closes both sockets."""
        try:
            while not self._stop.is_set():
                data = source.recv(65536)
                if not data:
                    break
                if self.delay:
                    time.sleep(self.delay)
                sink.sendall(data)
        except OSError:
            pass
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        with self._lock:
            ends[0] += 1
            last = ends[0] == 2
            if last:
                self._open.difference_update((source, sink))
        if last:
            _close(source)
            _close(sink)


def _close(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass
