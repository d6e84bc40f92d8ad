"""VerMAS from the command line: ``validate`` of a ``.work/`` directory, ``vermas project``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_cli

SEED = REPO_ROOT / "tests" / "examples" / "vermas" / ".work"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A copy of the seed's .work directory (in a folder whose name has a space)."""
    target = tmp_path / "my project" / ".work"
    shutil.copytree(SEED, target)
    return target


def _json(out: bytes) -> dict[str, dict[str, object]]:
    return {f["path"]: f for f in json.loads(out)["files"]}


def test_validate_of_a_work_directory_checks_every_vermas_file_kind(work: Path) -> None:
    proc = run_cli("validate", "--format", "json", ".work", cwd=work.parent)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    assert set(_json(proc.stdout)) == {
        ".work/events.jsonl",
        ".work/feed.jsonl",
        ".work/messages.jsonl",
        ".work/routes.jsonl",
        ".work/work_orders.jsonl",
        ".work/templates/worker-execute.toml",
        ".work/processes/proc-abc123.json",
        ".work/evidence/wo-abc123-verdict.json",
    }


def test_validate_reports_projection_drift_against_the_events_beside_it(work: Path) -> None:
    orders = work / "work_orders.jsonl"
    orders.write_text(orders.read_text().replace('"status": "closed"', '"status": "open"'))
    proc = run_cli("validate", str(orders), cwd=work.parent)
    out = proc.stdout.decode()
    assert proc.returncode == 1
    assert out.startswith(f"{orders}:1:48: [wo-dep456].status: status is \"open\" but event")
    assert out.rstrip().endswith("[projection-drift]") and len(out.splitlines()) == 1
