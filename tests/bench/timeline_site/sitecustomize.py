"""Loaded by Python at start where this folder is on ``PYTHONPATH`` (``bench_timeline``): a
sync's own process (its parent the agent process named by ``SOAK_SLEEP_PARENT``) logs each
``time.sleep`` to ``sleeps.jsonl`` in its trace2 folder (``GIT_TRACE2_EVENT``), one JSON
line each (``{"event": "sleep", "start": ..., "end": ...}``, seconds since the epoch), and
its wait for its early ssh login (``SshShare.ready``: ``{"event": "ssh-ready", ..., "rc":
ssh's exit status, "born": when that login started}``; the polls of that wait are not
logged as sleeps), for
``helpers.soak.timeline``. Any other process is left alone."""

import json
import os
import time

_folder = os.environ.get("GIT_TRACE2_EVENT", "")
if os.environ.get("SOAK_SLEEP_PARENT") == str(os.getppid()) and os.path.isdir(_folder):
    _sleep = time.sleep

    _quiet: list[int] = []  # set while waiting for the early ssh login (its polls are not sleeps)

    def _logged(seconds: float) -> None:
        if _quiet:
            return _sleep(seconds)
        start = time.time()
        try:
            _sleep(seconds)
        finally:
            line = json.dumps({"event": "sleep", "start": start, "end": time.time()})
            with open(os.path.join(_folder, "sleeps.jsonl"), "a") as out:
                out.write(line + "\n")

    time.sleep = _logged  # type: ignore[assignment]

    import subprocess

    _wait = subprocess.Popen.wait

    def _logged_wait(self, timeout=None):  # type: ignore[no-untyped-def]
        # a sync's wait for its early ssh login (``ssh -f -N``: SshShare.ready), logged as
        # "ssh-ready" (any other process's wait is not)
        args = self.args if isinstance(self.args, list) else []
        if "-N" not in args or "-f" not in args:
            return _wait(self, timeout)
        start = time.time()
        _quiet.append(1)
        try:
            return _wait(self, timeout)
        finally:
            _quiet.pop()
            said = {
                "event": "ssh-ready",
                "start": start,
                "end": time.time(),
                "rc": self.returncode,
                "born": getattr(self, "_soak_born", None),
            }
            line = json.dumps(said)
            with open(os.path.join(_folder, "sleeps.jsonl"), "a") as out:
                out.write(line + "\n")

    subprocess.Popen.wait = _logged_wait  # type: ignore[method-assign]

    _init = subprocess.Popen.__init__

    def _noted_init(self, args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        # when the early ssh login started ("born" in its "ssh-ready" event)
        _init(self, args, *rest, **kwargs)
        if isinstance(args, list) and "-N" in args and "-f" in args:
            self._soak_born = time.time()

    subprocess.Popen.__init__ = _noted_init  # type: ignore[method-assign]
