"""A command on a pseudo-terminal, as a person runs it (``git mergetool -t vcontext``)."""

from __future__ import annotations

import os
import pty
import re
import select
import time
from pathlib import Path


class Terminal:
    """A command on a pseudo-terminal: wait for text on the screen, type answers."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the command, with the pty as its terminal
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd, self.screen = pid, fd, ""

    def expect(self, pattern: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.screen):
            left = deadline - time.monotonic()
            assert left > 0, f"waited for {pattern!r}; the screen shows:\n{self.screen}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the command ended
                    chunk = b""
                assert chunk, f"ended before {pattern!r}; the screen shows:\n{self.screen}"
                self.screen += chunk.decode("utf-8", "replace")

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if ready:
                    self.screen += os.read(self.fd, 4096).decode("utf-8", "replace")
            except OSError:
                pass
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, 9)
        raise AssertionError(f"still running; the screen shows:\n{self.screen}")
