"""Loaded by Python at start where this folder is on ``PYTHONPATH`` (``bench_timeline``): a
sync's own process (its parent the agent process named by ``SOAK_SLEEP_PARENT``) logs each
``time.sleep`` to ``sleeps.jsonl`` in its trace2 folder (``GIT_TRACE2_EVENT``), one JSON
line each (``{"event": "sleep", "start": ..., "end": ...}``, seconds since the epoch), for
``helpers.soak.timeline``. Any other process is left alone."""

import json
import os
import time

_folder = os.environ.get("GIT_TRACE2_EVENT", "")
if os.environ.get("SOAK_SLEEP_PARENT") == str(os.getppid()) and os.path.isdir(_folder):
    _sleep = time.sleep

    def _logged(seconds: float) -> None:
        start = time.time()
        try:
            _sleep(seconds)
        finally:
            line = json.dumps({"event": "sleep", "start": start, "end": time.time()})
            with open(os.path.join(_folder, "sleeps.jsonl"), "a") as out:
                out.write(line + "\n")

    time.sleep = _logged  # type: ignore[assignment]
