"""Soak harness: agent processes loop edit → commit → `sync --push` against one bare remote.

Used by tests/git/test_soak.py (small) and tests/bench/bench_soak.py (16 × 25). Each
agent has its own clone, its own `fork`ed branch checked out there, and writes down
every item, plan item, playbook event and changeLog entry it creates, so the final
check can prove that nothing any agent wrote was lost on the remote's base branch.

Run one agent (what the harness starts per process):
    python tests/soak.py agent CLONE AGENT ROUNDS LOGFILE
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TODO = "memory/todo.vcontext.json"
PLAN = "memory/plan.vcontext.tron"
PLAYBOOK = "memory/playbook.vcontext.json"
DOCUMENTS = (TODO, PLAN, PLAYBOOK)
BASE = "main"
CloneConfig = dict[str, str] | Callable[[str], dict[str, str]]  # see setup()

PLAN_TRON = """\
class vContextInfo: version, created
class Plan: id, uid, title, status, narratives, sequence, items
class PlanItem: id, title, status

vContextInfo: vContextInfo("0.4", "2026-01-01T00:00:00Z")
plan: Plan("soak-plan", "soak-plan-uid", "Soak plan", "inProgress",
  {"proposal": "Every agent's rounds land on the base."}, 1, [
  PlanItem("p0", "Start", "completed")
])
"""


def _todo() -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4", "created": "2026-01-01T00:00:00Z"},
        "todoList": {
            "id": "soak-todo",
            "uid": "soak-todo-uid",
            "title": "Soak todo list",
            "sequence": 1,
            "updated": "2026-01-01T00:00:00Z",
            "changeLog": [
                {
                    "sequence": 1,
                    "timestamp": "2026-01-01T00:00:00Z",
                    "agent": {"id": "seed", "type": "human"},
                    "operation": "create",
                    "reason": "seed",
                }
            ],
            "items": [{"id": "t0", "title": "Start", "status": "completed"}],
        },
    }


def _playbook() -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4", "created": "2026-01-01T00:00:00Z"},
        "playbook": {
            "uid": "soak-playbook-uid",
            "version": 1,
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
            "items": [
                {
                    "eventId": "evt-seed",
                    "targetId": "seed-rule",
                    "operation": "append",
                    "kind": "rule",
                    "title": "Seed rule",
                    "text": "Keep the soak honest.",
                    "status": "active",
                    "createdAt": "2026-01-01T00:00:00Z",
                }
            ],
        },
    }


# -- processes ----------------------------------------------------------------------------


def cli() -> list[str]:
    """The installed console script next to this Python (else ``python -m git_vcontext``)."""
    script = Path(sys.executable).with_name("git-vcontext")
    return [str(script)] if script.exists() else [sys.executable, "-m", "git_vcontext"]


def run(args: Sequence[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} in {cwd}: exit {proc.returncode}: {proc.stderr}")
    return proc


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run(["git", *args], cwd, check)


def vcontext(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run([*cli(), *args], cwd, check)


def identity(repo: Path, name: str) -> None:
    git(repo, "config", "user.name", name)
    git(repo, "config", "user.email", f"{name}@example.com")
    git(repo, "config", "commit.gpgsign", "false")


# -- setting up ---------------------------------------------------------------------------


def setup(
    root: Path,
    agents: int,
    hooks: bool = True,
    server: bool = False,
    config: dict[str, str] | None = None,
    guard: bool = False,
    *,
    remote: Path | None = None,
    url: str | None = None,
    clone_config: CloneConfig | None = None,
    seeded: Callable[[Path], None] | None = None,
    install_late: bool = False,
    remote_config: Mapping[str, str] | None = None,
    server_cli: Sequence[str] | None = None,
) -> tuple[Path, list[Path]]:
    """A bare remote with the seed documents on main, and one clone per forked agent
    (with the pre-push hook installed, as a user's clone has it, unless ``hooks`` is off;
    ``server``: the remote merges requests itself, ``git vcontext install --server``, which
    also installs the guard; ``guard``: the guard alone, ``install --server --guard``).

    ``remote``: where the bare repository goes (default ``root/remote.git``); ``url``: how
    the agents reach it (a git server's URL; default its path); ``clone_config``: git
    config the clones are made with (``git clone -c``: e.g. ``core.sshCommand``), or a
    function of the agent's name that says it; ``seeded``: called with the remote once the
    seed is on it, before the clones are made (e.g. to give it to a server's user);
    ``install_late``: ``install --server`` after that, in the repository as that user's;
    ``remote_config``: git config set in the bare remote once it is made, as its owner
    would (e.g. ``receive.unpackLimit``, which ``doctor`` notes); ``server_cli``: the
    command that runs ``install --server`` (default ``cli()``: a git server's user may not
    be able to run this Python, one under root's home)."""
    remote = remote or root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", BASE, str(remote))
    for key, said in (remote_config or {}).items():
        git(remote, "config", "--", key, said)
    installed = ["install", "--server"] if server else ["install", "--server", "--guard"]
    if (server or guard) and not install_late:
        run([*(server_cli or cli()), *installed], remote)
    seed = root / "seed"
    git(root, "init", "-q", "-b", BASE, str(seed))
    identity(seed, "seed")
    vcontext(seed, "install", "--no-hooks")
    (seed / "memory").mkdir()
    (seed / TODO).write_text(json.dumps(_todo(), indent=2) + "\n")
    (seed / PLAN).write_text(PLAN_TRON)
    (seed / PLAYBOOK).write_text(json.dumps(_playbook(), indent=2) + "\n")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "seed documents")
    git(seed, "push", "-q", str(remote), BASE)
    if seeded is not None:
        seeded(remote)
    if (server or guard) and install_late:  # as the owner would: install --server refuses in
        run([*(server_cli or cli()), *installed], remote)  # one line when that user cannot
        # run this installation
    source = url or str(remote)
    clones = []
    for i in range(agents):
        agent = f"agent-{i}"
        made = clone_config(agent) if callable(clone_config) else clone_config or {}
        options = [f"-c{k}={v}" for k, v in made.items()]
        clones.append(_clone_agent(root, source, agent, hooks, options))
    for clone in clones:
        for key, value in (config or {}).items():
            git(clone, "config", key, value)
    return remote, clones


def _clone_agent(
    root: Path, remote: str, agent: str, hooks: bool, options: Sequence[str] = ()
) -> Path:
    clone = root / agent
    git(root, "clone", "-q", *options, remote, str(clone))
    identity(clone, agent)
    vcontext(clone, "install", *([] if hooks else ["--no-hooks"]))
    vcontext(clone, "fork", agent, "--reason", f"soak agent {agent}")
    git(clone, "switch", "-q", f"agents/{agent}")
    return clone


# -- one agent ----------------------------------------------------------------------------


@dataclass
class AgentLog:
    """Everything one agent wrote, and how its syncs went."""

    agent: str
    items: list[str] = field(default_factory=list)
    plan_items: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)  # changeLog reasons (unique per agent)
    syncs: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.__dict__


def agent_loop(clone: Path, agent: str, rounds: int) -> AgentLog:
    """``rounds`` times: edit the three documents, commit, sync with the remote."""
    log = AgentLog(agent)
    for r in range(rounds):
        work(clone, agent, r, log)
        log.syncs.append(sync(clone, agent))
    return log


def work(clone: Path, agent: str, r: int, log: AgentLog, *, playbook: bool = True) -> None:
    """One round's edits of the documents (noted in ``log``), committed."""
    _edit_todo(clone, agent, r, log)
    _edit_plan(clone, agent, r, log)
    if playbook:
        _edit_playbook(clone, agent, r, log)
    git(clone, "commit", "-q", "-am", f"{agent}: round {r}")


def sync(clone: Path, agent: str, env: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """One `git vcontext sync AGENT --push origin`: exit code, time, retries it reported.

    sync says "push to REMOTE rejected (…): fetching and merging, retry N" per retry.
    """
    import os
    import resource

    full = environment(env)
    traces = _trace_folder(full, agent)
    if traces is not None:
        full["GIT_TRACE2_EVENT"] = str(traces)
        full["SOAK_SLEEP_PARENT"] = str(os.getpid())  # (timeline_site logs this sync's sleeps)
    start, started = time.perf_counter(), time.time()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [*cli(), "sync", agent, "--push", "origin"], cwd=clone, capture_output=True, text=True,
        env=full, stdin=subprocess.DEVNULL,  # an agent's: no terminal (whoever runs the tests)
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    said = proc.stdout + proc.stderr
    commands = [] if traces is None else network_commands(traces)
    spans = [] if traces is None else timeline(traces)
    return {
        "commands": commands,  # (start time, name) of each git command that talked to it
        "started": started,  # (seconds since the epoch)
        "spans": spans,  # (what, start, end): see timeline()
        "ops": {} if traces is None else network_operations(traces, remove=True),
        "exit": proc.returncode,
        "seconds": time.perf_counter() - start,
        # the sync and everything it waited for (git, the pre-push hook, ...)
        "cpu": after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime,
        "retries": len(re.findall(r"rejected .*retry \d+", said)),
        "integrated": bool(re.search(rf"pushed( after .*)? to origin: {BASE}\b", said)),
        "elsewhere": f"merged into {BASE} on the remote" in said,
        "waited": "waiting" in said,
        "output": said[-2000:],
    }


def environment(env: Mapping[str, str | None] | None) -> dict[str, str]:
    """This process's environment with ``env`` on top (a value None: that variable removed)."""
    import os

    full = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return full


TRACE_ROOT = "SOAK_TRACE_DIR"  # set: each sync's git processes write trace2 events there


def _trace_folder(env: dict[str, str], agent: str) -> Path | None:
    """A fresh folder for one sync's trace2 event files (None: tracing is off)."""
    import tempfile

    root = env.get(TRACE_ROOT)
    if not root:
        return None
    Path(root).mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{agent}-", dir=root))


NETWORK = ("fetch", "push", "ls-remote", "clone", "pull")


def _events(path: Path) -> Iterator[Any]:
    """The events of one trace2 event file (a JSON object a line), its torn lines skipped."""
    for line in path.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        yield event


def network_operations(folder: Path, *, remove: bool = False) -> dict[str, int]:
    """What git did over the network in one folder of trace2 event files (one file per git
    process, ``GIT_TRACE2_EVENT=FOLDER``): the git commands started directly (not by another
    git: its own children, the hook's) that talk to a remote, by name (``fetch``, ``push``,
    ``ls-remote``); ``ssh``: ssh connections git opened; ``maintenance``: ``git maintenance``
    or ``gc`` runs (git's auto maintenance after a fetch); ``total``: the network commands."""
    import shutil

    counts = dict.fromkeys((*NETWORK[:3], "ssh", "maintenance"), 0)
    for path in sorted(folder.iterdir()):
        argv: list[str] = []  # (git and the command's name)
        nested = True
        for event in _events(path):
            kind = event.get("event")
            if kind == "start":
                nested = "/" in str(event.get("sid", ""))
            elif kind == "cmd_name":
                argv = ["git", str(event.get("name", ""))]
            elif kind == "child_start" and event.get("child_class") == "transport/ssh":
                counts["ssh"] += 1
        verb = argv[1] if len(argv) > 1 else ""
        if verb in ("maintenance", "gc"):
            counts["maintenance"] += 1
        elif verb in NETWORK and not nested:
            counts[verb] = counts.get(verb, 0) + 1
    counts["total"] = sum(counts.get(v, 0) for v in NETWORK)
    if remove:
        shutil.rmtree(folder, ignore_errors=True)
    return counts


def network_commands(folder: Path) -> list[tuple[str, str]]:
    """The git commands that talked to the remote in one folder of trace2 event files (as
    ``network_operations`` counts them), as (start time, ISO 8601 UTC; name), in order."""
    found = []
    for path in sorted(folder.iterdir()):
        start, name, nested = "", "", True
        for event in _events(path):
            if event.get("event") == "start":
                start, nested = str(event.get("time", "")), "/" in str(event.get("sid", ""))
            elif event.get("event") == "cmd_name":
                name = str(event.get("name", ""))
        if name in NETWORK and not nested:
            found.append((start, name))
    return sorted(found)


SLEEPS = "sleeps.jsonl"  # in a sync's trace folder: its sleeps (tests/bench/timeline_site)


def timeline(folder: Path) -> list[tuple[str, float, float]]:
    """What one sync did when, from its trace folder: (what, start, end) in seconds since the
    epoch, sorted by start, for each git command the sync started itself (network commands
    by name, any other ``git``: local), each of its sleeps (``sleep``) and its wait for its
    early ssh login (``ssh-ready``; ``ssh-ready failed`` when that login failed and git's
    first command logged in itself; ``ssh-login``: from that login's start to the end of
    that wait), these logged where ``tests/bench/timeline_site`` is on
    the sync's ``PYTHONPATH``."""
    from datetime import datetime

    def at(stamp: str) -> float:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()

    spans: list[tuple[str, float, float]] = []
    for path in sorted(folder.iterdir()):
        start, end, name, nested = 0.0, 0.0, "", True
        for event in _events(path):
            kind = event.get("event")
            if kind in ("sleep", "ssh-ready"):
                spans += _logged(event)
            elif kind == "start":
                start, nested = at(str(event["time"])), "/" in str(event.get("sid", ""))
            elif kind == "cmd_name":
                name = str(event.get("name", ""))
            elif kind in ("exit", "atexit"):
                end = max(end, at(str(event["time"])))
        if start and not nested:
            spans.append((name if name in NETWORK else "git", start, end or start))
    return sorted(spans, key=lambda s: s[1])


def _logged(event: dict[str, Any]) -> list[tuple[str, float, float]]:
    """The spans of one event ``timeline_site`` logged: a sleep, or the wait for the early
    ssh login (and that login, from its start)."""
    kind, start, end = str(event["event"]), float(event["start"]), float(event["end"])
    if event.get("rc"):  # the early ssh login failed (git's ssh logs in itself)
        kind = "ssh-ready failed"
    spans = [(kind, start, end)]
    if event.get("born"):  # from the login's start until the sync had waited for it
        spans.append(("ssh-login", float(event["born"]), end))
    return spans


def _load(path: Path) -> Any:
    from git_vcontext.codecs import parse

    return parse(path.read_bytes(), path=str(path))


def _save(path: Path, parsed: Any, data: Any) -> None:
    path.write_text(parsed.render(data))


def _now() -> str:
    from git_vcontext.clock import now_rfc3339

    return now_rfc3339()


def _edit_todo(clone: Path, agent: str, r: int, log: AgentLog) -> None:
    """Add an item, complete the previous one, advance sequence and changeLog (Ext 10)."""
    path = clone / TODO
    parsed = _load(path)
    data = json.loads(json.dumps(parsed.data))
    todo = data["todoList"]
    item = f"{agent}-t{r}"
    for it in todo["items"]:
        if it["id"] == f"{agent}-t{r - 1}":
            it["status"] = "completed"
    todo["items"].append({"id": item, "title": f"{agent} task {r}", "status": "pending"})
    todo["sequence"] += 1
    todo["updated"] = _now()
    reason = f"{agent} adds {item}"
    todo["changeLog"].append(
        {
            "sequence": todo["sequence"],
            "timestamp": todo["updated"],
            "agent": {"id": agent, "type": "aiAgent"},
            "operation": "update",
            "reason": reason,
        }
    )
    _save(path, parsed, data)
    log.items.append(item)
    log.changes.append(reason)


def _edit_plan(clone: Path, agent: str, r: int, log: AgentLog) -> None:
    path = clone / PLAN
    parsed = _load(path)
    data = json.loads(json.dumps(parsed.data))
    item = f"{agent}-p{r}"
    data["plan"]["items"].append({"id": item, "title": f"{agent} step {r}", "status": "pending"})
    data["plan"]["sequence"] += 1
    _save(path, parsed, data)
    log.plan_items.append(item)


def _edit_playbook(clone: Path, agent: str, r: int, log: AgentLog) -> None:
    """A new learning each round; every other round also an update of the previous one."""
    target = f"{agent}-learning-{r}"
    added = vcontext(
        clone, "playbook", "add", PLAYBOOK, "--target", target, "--kind", "learning",
        "--title", f"{agent} learned {r}", "--text", f"Round {r} of {agent}.",
    )  # fmt: skip
    log.events.append(added.stdout.split(":", 1)[0].strip())
    if r % 2 == 1:
        updated = vcontext(
            clone, "playbook", "update", PLAYBOOK, "--target", f"{agent}-learning-{r - 1}",
            "--delta", "helpfulCount=+1", "--reason", f"{agent} confirms round {r - 1}",
        )  # fmt: skip
        log.events.append(updated.stdout.split(":", 1)[0].strip())


# -- running many agents ------------------------------------------------------------------


@dataclass
class SoakRun:
    """What a soak produced: the remote, the clones, the agents' logs and the timings.

    ``loop_seconds``: until the last agent process ended, which is when the remote's
    base holds every agent's last round (a sync exits 0 only then); ``at_end``: the
    base's documents at that moment, before the final syncs bring the agents along.
    """

    remote: Path
    clones: list[Path]
    logs: list[AgentLog]
    final_syncs: list[dict[str, Any]]
    seconds: float
    loop_seconds: float = 0.0
    at_end: dict[str, Any] = field(default_factory=dict)
    cpu_seconds: float = 0.0  # user + system time of every process the soak started
    # of which the orphans reaped at the end, by name (adopt_orphans): the syncs' ssh masters
    # ("ssh") and the server's side of their connections ("sshd": the server's CPU)
    orphan_seconds: dict[str, float] = field(default_factory=dict)


def soak(
    root: Path,
    agents: int,
    rounds: int,
    hooks: bool = True,
    server: bool = False,
    config: dict[str, str] | None = None,
    guard: bool = False,
    *,
    remote: Path | None = None,
    url: str | None = None,
    clone_config: CloneConfig | None = None,
    env: Mapping[str, str | None] | None = None,
    ready: Callable[[list[Path]], None] | None = None,
    seeded: Callable[[Path], None] | None = None,
    install_late: bool = False,
    remote_config: Mapping[str, str] | None = None,
    server_cli: Sequence[str] | None = None,
) -> SoakRun:
    """Set up, run ``agents`` processes concurrently, then let every agent sync once more
    (``config``: git config for every clone; ``guard``: the remote runs the guard;
    ``remote``, ``url``, ``clone_config``: see ``setup``; ``env``: added to the agent
    processes' environment (None: a variable removed from it); ``ready``: called with the
    clones once they are made, before the agents start; ``seeded``, ``install_late``,
    ``remote_config``, ``server_cli``: see ``setup``)."""
    import resource

    remote, clones = setup(
        root, agents, hooks, server, config, guard, remote=remote, url=url,
        clone_config=clone_config, seeded=seeded, install_late=install_late,
        remote_config=remote_config, server_cli=server_cli,
    )  # fmt: skip
    if ready is not None:
        ready(clones)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    procs = []
    for i, clone in enumerate(clones):
        log_file = root / f"agent-{i}.log.json"
        cmd = [sys.executable, __file__, "agent", str(clone), f"agent-{i}", str(rounds)]
        started = subprocess.Popen(
            [*cmd, str(log_file)], stderr=subprocess.PIPE, env=environment(env)
        )
        procs.append((started, log_file))
    logs = []
    for proc, log_file in procs:
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"agent process failed: {err.decode(errors='replace')[-3000:]}")
        logs.append(AgentLog(**json.loads(log_file.read_text())))
    loop_seconds = time.perf_counter() - start
    at_end = base_documents(remote, root / "at-end")
    final = [sync(clone, f"agent-{i}", env) for i, clone in enumerate(clones)]
    orphans = reap_orphans() if _ADOPTED else {}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
    seconds = time.perf_counter() - start
    return SoakRun(remote, clones, logs, final, seconds, loop_seconds, at_end, cpu, orphans)


_ADOPTED: list[bool] = []  # adopt_orphans() was called: soak() reaps them before its CPU count


def adopt_orphans() -> bool:
    """Make this process the child subreaper of everything it starts (Linux), so that the
    processes its descendants leave behind when they exit — a sync's ``ssh -f -N`` master,
    which leaves the foreground once logged in and ends with the sync — become its own
    children; ``soak`` reaps them before it reads its children's CPU time, which then
    counts theirs (their parent gone, nobody else would: uncounted, each sync's ssh master
    made SSH look cheaper than it is) — and sshd's process for each connection, which its
    monitor leaves behind as it ends: outside the server's tree, its CPU was in no count
    either. For the benchmarks only: the orphans of everything else this process runs are
    its zombies until reaped. False where it cannot be done."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False
    if done:
        _ADOPTED.append(True)
    return bool(done)


ORPHANS = ("ssh", "sshd")  # the processes reap_orphans waits for: a sync's ssh master, and
# the server's side of its connection (sshd's process for it, left by its monitor)


def reap_orphans(patience: float = 3.0) -> dict[str, float]:
    """Reap the orphans this process adopted (``adopt_orphans``) that are ssh's or sshd's
    (``ORPHANS``; no ``Popen`` waits for them), waiting up to ``patience`` seconds for ssh
    masters still running (told to exit a moment ago), then a moment for the server's side
    of their connections: the CPU each kind used (``os.wait4``), by process name."""
    import os

    from helpers.git_servers import proc_stats

    used: dict[str, float] = {}
    end = time.monotonic() + patience
    settled = False
    while True:
        running = 0
        for pid, name, fields in proc_stats():
            if int(fields[1]) != os.getpid() or name not in ORPHANS:
                continue
            if fields[0] != "Z":
                running += name == "ssh"  # (sshd: the server itself is one of these)
                continue
            try:
                _, _, usage = os.wait4(pid, 0)
            except ChildProcessError:
                continue
            used[name] = used.get(name, 0.0) + usage.ru_utime + usage.ru_stime
        if (not running and settled) or time.monotonic() > end:
            return used
        settled = not running  # (once more after a moment: their sshd sides end after them)
        time.sleep(0.2 if settled else 0.05)


def base_documents(remote: Path, where: Path) -> dict[str, Any]:
    """The documents on the remote's base now (read from a fresh clone at ``where``)."""
    git(where.parent, "clone", "-q", "-b", BASE, str(remote), str(where))
    return documents(where)


# -- checking -----------------------------------------------------------------------------


def documents(where: Path) -> dict[str, Any]:
    """The parsed data of the soak's documents in a work tree."""
    return {rel: _load(where / rel).data for rel in DOCUMENTS}


def without_fork(data: Any) -> Any:
    """A document's data with the branch-local ``fork`` blocks removed (M11)."""
    out = dict(data)
    for key in ("todoList", "plan", "playbook"):
        if isinstance(out.get(key), dict):
            out[key] = {k: v for k, v in out[key].items() if k != "fork"}
    return out


def lost(run: SoakRun, docs: dict[str, Any]) -> dict[str, list[str]]:
    """What some agent wrote that the documents do not hold (empty lists: nothing lost)."""
    have_items = [i["id"] for i in docs[TODO]["todoList"]["items"]]
    have_plan = [i["id"] for i in docs[PLAN]["plan"]["items"]]
    have_events = [e["eventId"] for e in docs[PLAYBOOK]["playbook"]["items"]]
    have_changes = [c.get("reason") for c in docs[TODO]["todoList"]["changeLog"]]
    out: dict[str, list[str]] = {"items": [], "plan_items": [], "events": [], "changes": []}
    for log in run.logs:
        out["items"] += [i for i in log.items if i not in have_items]
        out["plan_items"] += [i for i in log.plan_items if i not in have_plan]
        out["events"] += [e for e in log.events if e not in have_events]
        out["changes"] += [c for c in log.changes if c not in have_changes]
    return out


def duplicates(docs: dict[str, Any]) -> list[str]:
    """Ids that occur more than once (a merge that duplicated instead of matching)."""
    ids = [i["id"] for i in docs[TODO]["todoList"]["items"]]
    ids += [i["id"] for i in docs[PLAN]["plan"]["items"]]
    ids += [e["eventId"] for e in docs[PLAYBOOK]["playbook"]["items"]]
    return sorted({i for i in ids if ids.count(i) > 1})


def fresh_clone(run: SoakRun, root: Path) -> Path:
    target = root / "fresh"
    git(root, "clone", "-q", "-b", BASE, str(run.remote), str(target))
    return target


def last_rounds_missing(run: SoakRun, docs: dict[str, Any]) -> list[str]:
    """Agents whose last round (its todo item) is not in ``docs``."""
    have = {i["id"] for i in docs[TODO]["todoList"]["items"]}
    return [log.agent for log in run.logs if log.items and log.items[-1] not in have]


def merges_into_base(remote: Path) -> int:
    """Agents' work merged into the base: a merge commit on the base per integration, whose
    ``Vcontext-Sync`` trailers name each agent it merged."""
    out = git(remote, "log", "--first-parent", "--merges", "--format=%B%x00", BASE).stdout
    merged = 0
    for message in out.split("\0"):
        if message.strip().startswith("vcontext sync: merge agents/"):
            merged += sum(1 for line in message.splitlines() if line.startswith("Vcontext-Sync: "))
    return merged


def integrations(remote: Path) -> int:
    """Merge commits on the base that brought agents' work in (one per integration)."""
    out = git(remote, "log", "--first-parent", "--merges", "--format=%s", BASE).stdout
    return sum(1 for line in out.splitlines() if line.startswith("vcontext sync: merge agents/"))


def merge_entries(docs: dict[str, Any]) -> int:
    """M8 ``merge`` entries in the todo list's changeLog."""
    log = docs[TODO]["todoList"].get("changeLog", [])
    return sum(1 for c in log if c.get("operation") == "merge")


def forks_on_base(docs: dict[str, Any]) -> list[str]:
    """Documents of the base that hold a ``fork`` block (M11: none may)."""
    return [rel for rel, data in docs.items() if without_fork(data) != data]


def total_retries(run: SoakRun) -> int:
    retries = [s["retries"] for log in run.logs for s in log.syncs]
    return sum(int(n) for n in [*retries, *(s["retries"] for s in run.final_syncs)])


def _agent_main(argv: Sequence[str]) -> int:
    clone, agent, rounds, log_file = Path(argv[0]), argv[1], int(argv[2]), Path(argv[3])
    log = agent_loop(clone, agent, rounds)
    log_file.write_text(json.dumps(log.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "agent":
        sys.exit(_agent_main(sys.argv[2:]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
