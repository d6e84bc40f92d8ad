"""Schema checks from several threads at once (the MCP server validates in worker threads):
the first compilation of a schema is never seen half done (it raised IndexError in 7 of 20
fresh processes before the compile lock)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys, threading
sys.setswitchinterval(1e-6)
from git_vcontext.validation import schemas
import jsonschema, referencing
refs = ["vcontext-core", "vcontext-playbooks", "vagenda-ace", "vbrief-0.5", "vermas",
        "vcontext-extensions"]
doc = {"vContextInfo": {"version": "0.4"},
       "todoList": {"items": [{"id": "t1", "title": "x", "status": "bogus"}]}}
errors = []
def work(ref):
    try:
        list(schemas.schema_errors(ref, doc))
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=work, args=(refs[i % len(refs)],)) for i in range(12)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors[:2] if errors else "ok")
"""


def test_first_schema_checks_from_many_threads_at_once_all_answer() -> None:
    runs = [
        subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
        for _ in range(12)
    ]
    said = [r.stdout.strip() or r.stderr.strip()[-300:] for r in runs]
    assert said == ["ok"] * len(runs), said
