"""The CPU of every process a benchmark starts, by what it is: a tiny shared library,
compiled for the run where a C compiler is installed, that each process loads
(``LD_PRELOAD``) and that appends, as the process exits, its pid, its parent's, the
microseconds it used (user + system, its own: not its children's) and its command line
to one log. For where a sync's CPU goes per git process, client and server (nginx +
fcgiwrap pass the environment they were started with to git http-backend): ``git
fetch``, ``git-remote-http``, ``pack-objects`` under ``upload-pack``, … A process that
ends by ``exec`` is logged as what it became; one killed by a signal is not logged, nor
one in a seccomp sandbox (sshd's pre-authentication child: its CPU is in no line).
"""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

SOURCE = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static void __attribute__((destructor)) vcontext_cpulog(void) {
    const char *path = getenv("VCONTEXT_CPULOG");
    if (path == NULL) return;
    char cmd[256];
    ssize_t n = 0;
    /* open first: in a seccomp sandbox (sshd's pre-authentication child) open fails with
       EACCES, and getrusage would kill the process (and sshd drops the connection) */
    int fd = open("/proc/self/cmdline", O_RDONLY);
    if (fd < 0) return;
    n = read(fd, cmd, sizeof cmd - 1);
    close(fd);
    if (n < 0) n = 0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    for (ssize_t i = 0; i < n; i++) if (cmd[i] == 0 || cmd[i] == '\n') cmd[i] = ' ';
    cmd[n] = 0;
    long us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L
        + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    FILE *log = fopen(path, "a");
    if (log != NULL) { fprintf(log, "%d %d %ld %s\n", getpid(), getppid(), us, cmd); fclose(log); }
}
"""

VARIABLE = "VCONTEXT_CPULOG"
NESTED = ("pack-objects", "unpack-objects", "index-pack", "rev-list")
"""Processes told apart by their parent (``pack-objects`` under ``upload-pack`` serves a
fetch; under ``send-pack`` it makes a push's pack)."""


def build(folder: Path) -> Path | None:
    """The library, compiled in ``folder``; None without a C compiler (or when it fails)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source, library = folder / "cpulog.c", folder / "cpulog.so"
    source.write_text(SOURCE)
    built = subprocess.run(
        [compiler, "-O2", "-shared", "-fPIC", "-o", str(library), str(source)],
        capture_output=True, check=False,
    )  # fmt: skip
    return library if built.returncode == 0 else None


def environment(library: Path, log: Path) -> dict[str, str]:
    """What to add to a process's environment for it and its children to be logged."""
    return {"LD_PRELOAD": str(library), VARIABLE: str(log)}


def by_process(log: Path) -> dict[str, tuple[int, float]]:
    """The log's processes by kind (``git fetch``, ``git-remote-http``, ``python3
    git-vcontext sync``, ``pack-objects under upload-pack``): (how many, CPU seconds)."""
    rows = []
    for line in log.read_text(errors="replace").splitlines():
        words = line.split(" ", 3)
        if len(words) == 4 and words[2].isdigit():
            rows.append((words[0], words[1], int(words[2]), words[3]))
    names = {pid: _kind(cmd) for pid, _, _, cmd in rows}
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for _, parent, us, cmd in rows:
        kind = _kind(cmd)
        if kind.split(" ")[-1] in NESTED and parent in names:
            kind += f" under {names[parent].split(' ')[-1]}"
        out[kind][0] += 1
        out[kind][1] += us / 1e6
    return {k: (int(n), cpu) for k, (n, cpu) in out.items()}


def _kind(cmd: str) -> str:
    """What a command line is: git's command (its options skipped), a dashed git program,
    a Python script and the git-vcontext command it runs, or the program's name."""
    words = cmd.split()
    if not words:
        return "?"
    program = words[0].rsplit("/", 1)[-1]
    rest = words[1:]
    if program == "git":
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-C", "-c") else rest[1:]
        return f"git {rest[0]}" if rest else "git"
    if program.startswith("python"):
        if "-c" in rest:
            return "python -c"  # (the merge driver's shim: its words cut at 255 bytes)
        scripts = [w.rsplit("/", 1)[-1] for w in rest if not w.startswith("-")]
        if scripts[:1] == ["git-vcontext"] and len(scripts) > 1:
            return f"git-vcontext {scripts[1]}"
        return f"python {scripts[0]}" if scripts else "python"
    return program
