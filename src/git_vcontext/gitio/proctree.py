"""Killing a process with every process it started: a git command past its deadline.

git runs its transport in processes of its own (``git-remote-https``, ssh, a local
``upload-pack``), and it is those that hang on a silent server: killing git alone leaves
them holding the connection (and git's stderr) until the server lets go. They are not
put in a process group of their own (``setsid``/``setpgid``): a git in another group
than the terminal's cannot ask for a password there (it would be stopped by SIGTTIN).
The tree is read from ``/proc`` (else ``ps``); each process is stopped before its
children are read, so none starts another unseen, then all are killed.
"""

from __future__ import annotations

import os
import signal

MAX_PROCESSES = 256
"""Descendants looked for at most (a git command starts a handful)."""


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and its descendants (as far as they can be read); quietly, whatever
    of them is gone already."""
    stop = getattr(signal, "SIGSTOP", None)
    kill = getattr(signal, "SIGKILL", signal.SIGTERM)
    found: list[int] = []
    todo = [pid]
    while todo and len(found) < MAX_PROCESSES:
        current = todo.pop()
        if stop is not None:
            _signal(current, stop)  # it starts no child while its own are read
        found.append(current)
        todo.extend(c for c in children(current) if c not in found)
    for each in found:
        _signal(each, kill)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (OSError, ValueError):
        pass


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (empty when none can be read)."""
    if os.path.isdir("/proc/self"):
        return _from_proc(pid)
    return _from_ps(pid)


def _from_proc(pid: int) -> list[int]:
    try:  # each thread's own children (Linux >= 3.5: CONFIG_PROC_CHILDREN)
        found = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                found += [int(c) for c in fh.read().split()]
        return found
    except (OSError, ValueError):
        pass
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # "pid (comm) state ppid ..."
        if len(fields) > 1 and fields[1] == str(pid).encode():
            found.append(int(name))
    return found


def _from_ps(pid: int) -> list[int]:
    import subprocess

    try:
        out = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid="],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1] == str(pid) and parts[0].isdigit():
            found.append(int(parts[0]))
    return found
