"""Playbooks written in TRON (the seeds' own examples): view, playbook update, ace apply."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest

from helpers.run import run_cli

pytest.importorskip("git_vcontext.codecs.tron", reason="the TRON codec is not on this branch yet")

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _tron_block(shared: Path, seed: str, needle: str) -> str:
    path = next((shared / "seeds").glob(f"{seed}_*.txt"))
    blocks = re.findall(r"```tron\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    return str(next(b for b in blocks if needle in b))


def test_update_of_the_seed_000_a3_playbook_reuses_its_class(
    shared_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "reliability.vcontext.tron"
    path.write_text(_tron_block(shared_dir, "000", "pb-rollback-drill"))
    proc = run_cli(
        "playbook",
        "update",
        str(path),
        "--target",
        "pb-rollback-drill",
        "--delta",
        "helpfulCount=+1",
        "--reason",
        "drill found a gap",
        env=EPOCH,
    )
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    assert "class PlaybookItem2" not in text
    assert text.count("PlaybookItem(") == 5
    assert 'Metrics(3, 0.9, "2026-01-01T00:00:00Z")' in text
    view = json.loads(run_cli("view", str(path), "--format", "json").stdout)
    drill = next(e for e in view["entries"] if e["targetId"] == "pb-rollback-drill")
    assert drill["helpfulCount"] == 1
    assert view["metrics"]["agree"] is True


def test_ace_apply_to_the_seed_002_tron_plan(shared_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "patterns.vcontext.tron"
    doc.write_text(_tron_block(shared_dir, "002", "PlaybookEntry"))
    patch = {
        "operations": [
            {"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 1}}
        ]
    }
    (tmp_path / "patch.json").write_text(json.dumps(patch))
    proc = run_cli("ace", "apply", str(tmp_path / "patch.json"), str(doc), env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    assert doc.read_text().startswith("class vAgendaInfo: version")
    view = json.loads(run_cli("view", str(doc), "--format", "json").stdout)
    assert view["entries"][0]["helpfulCount"] == 13


COMMENTED_PLAYBOOK = """\
# Our team playbook (hand-edited; keep the comments)
class vBRIEFInfo: version
class Playbook: version, created, updated, items
class PlaybookItem: eventId, targetId, operation, kind, narrative, createdAt, status

vBRIEFInfo: vBRIEFInfo("0.4")
playbook: Playbook(
  1,
  "2025-12-28T00:00:00Z",
  "2025-12-28T00:00:00Z",  # bumped by tools
  [
    # the first rule we learnt
    PlaybookItem(
      "evt-0001",
      "entry-migrations-staging",
      "append",
      "rule",
      {"Overview": "Always run database migrations in staging first."},
      "2025-12-28T00:00:00Z",
      "active"
    )
  ]
)
"""


def _edit(path: Path, *args: str) -> tuple[str, str]:
    before = path.read_text()
    proc = run_cli("playbook", *args, str(path), env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    return before, path.read_text()


def test_playbook_add_update_deprecate_append_to_ours_text(tmp_path: Path) -> None:
    """PRODUCT.md Formats: playbook add/update/deprecate write minimal edits: the version and
    updated values change, the new event goes after the last one as a class row (its class
    declared with the others); all else stays."""
    path = tmp_path / "team.vbrief.tron"
    path.write_text(COMMENTED_PLAYBOOK)
    steps = [
        ("add", "--target", "entry-tests", "--kind", "rule", "--text", "Test first"),
        ("update", "--target", "entry-migrations-staging", "--delta", "helpfulCount=+1"),
        ("deprecate", "--target", "entry-tests", "--reason", "superseded"),
    ]
    for version, step in enumerate(steps, start=2):
        before, after = _edit(path, *step)
        before = before.replace(f"\n  {version - 1},\n", f"\n  {version},\n")
        before = re.sub(r'"20\d\d-[^"]+",  # bumped', '"2026-01-01T00:00:00Z",  # bumped', before)
        matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines())
        changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
        assert all(op[0] == "insert" for op in changes), (step, changes)  # nothing rewritten
        added = [line for op in changes for line in after.splitlines()[op[3] : op[4]]]
        # the new event is a row of a class (issue 27: no object among class rows)
        assert any(line.startswith("class PlaybookItem") for line in added), added
        assert not any(line.strip() == "{" for line in added), added
        assert after.endswith("\n    )\n  ]\n)\n")
        assert "# the first rule we learnt" in after
        events = json.loads(run_cli("convert", str(path), "--to", "json").stdout)
        assert len(events["playbook"]["items"]) == version


def test_ace_apply_edits_ours_text_in_place(shared_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "patterns.vcontext.tron"
    text = _tron_block(shared_dir, "002", "PlaybookEntry").replace(
        "        12,\n", "        12,  # counted by hand until December\n"
    )
    doc.write_text(text)
    patch = {
        "operations": [
            {"op": "incrementCounter", "entryId": "entry-1", "delta": {"helpfulCount": 1}},
            {
                "op": "appendEntry",
                "entry": {
                    "id": "entry-3",
                    "kind": "rule",
                    "title": "Lint",
                    "text": "Lint first",
                    "confidence": 0.8,
                    "helpfulCount": 0,
                    "harmfulCount": 0,
                    "status": "active",
                },
            },
        ]
    }
    (tmp_path / "patch.json").write_text(json.dumps(patch))
    proc = run_cli("ace", "apply", str(tmp_path / "patch.json"), str(doc), env=EPOCH)
    assert proc.returncode == 0, proc.stderr
    new_entry = (
        '      ),\n      PlaybookEntry(\n        "entry-3",\n        "rule",\n        "Lint",\n'
        '        "Lint first",\n        0.8,\n        0,\n        0,\n        "active"\n      )\n'
        "    ]\n"
    )
    expected = (
        text.replace("        12,  # counted", "        13,  # counted")
        .replace("  Playbook(\n    1,\n", "  Playbook(\n    2,\n")
        .replace('"2024-12-27T15:00:00Z"', '"2026-01-01T00:00:00Z"')
        .replace("      )\n    ]\n", new_entry)
    )
    assert doc.read_text() == expected
