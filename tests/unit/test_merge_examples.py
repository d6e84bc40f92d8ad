"""Merge example folders: tests/examples/merge/<case>/{base,ours,theirs,expected}.* + case.json.

Each folder is a specification a reader can open: the rule number leads the
folder name, ``case.json`` says the expected status, conflicts, notes and the
options (diff3, marker size, labels, structured conflicts, favor) and, when the rule
depends on where the file lives (VerMAS templates and processes), its ``path``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.merging.files import FileMerge
from git_vcontext.merging.result import MergeOptions
from git_vcontext.merging.textmerge import Markers
from helpers.merging import merge_files

ROOT = Path(__file__).resolve().parents[1] / "examples" / "merge"
CASES = sorted(p.name for p in ROOT.iterdir() if (p / "case.json").exists())
NOW = "2026-01-01T00:00:00Z"


def side(folder: Path, name: str) -> tuple[bytes, str]:
    found = [p for p in folder.iterdir() if p.stem == name]
    assert len(found) == 1, f"{folder.name}: one {name}.* file"
    return found[0].read_bytes(), found[0].suffix


def run_case(folder: Path, *, swap: bool = False) -> tuple[FileMerge, dict[str, Any], str]:
    meta = json.loads((folder / "case.json").read_text())
    base, ext = side(folder, "base")
    ours, _ = side(folder, "ours")
    theirs, _ = side(folder, "theirs")
    favor = meta.get("favor")
    if swap:
        ours, theirs = theirs, ours
        favor = {"ours": "theirs", "theirs": "ours"}.get(favor) if favor else None
    labels = meta.get("labels", ["ours", "base", "theirs"])
    markers = Markers(
        meta.get("marker_size", 7), labels[0], labels[1], labels[2], meta.get("diff3", False)
    )
    default = ".work/events.jsonl" if ext == ".jsonl" else f"doc.vcontext{ext}"
    path = meta.get("path", default)
    outcome = merge_files(
        base,
        ours,
        theirs,
        path=path,
        options=MergeOptions(now=NOW),
        markers=markers,
        structured=meta.get("structured", False),
        favor=favor,
    )
    return outcome, meta, ext


@pytest.mark.parametrize("name", CASES)
def test_merge_example(name: str) -> None:
    folder = ROOT / name
    outcome, meta, ext = run_case(folder)
    expected = (folder / f"expected{ext}").read_bytes()
    assert outcome.output.decode() == expected.decode()
    assert outcome.status == meta["status"]
    assert outcome.clean == (meta["status"] == "clean")
    if outcome.result is not None:
        paths = [c.path for c in outcome.result.conflicts]
        assert paths == meta.get("conflicts", paths)
        kinds = {n.kind for n in outcome.result.notes}
        assert set(meta.get("notes", [])) <= kinds


@pytest.mark.parametrize(
    "name",
    [c for c in CASES if json.loads((ROOT / c / "case.json").read_text())["status"] == "clean"],
)
def test_m17_swapping_sides_keeps_the_data_of_clean_examples(name: str) -> None:
    from git_vcontext.codecs import parse

    outcome, _, ext = run_case(ROOT / name)
    swapped, _, _ = run_case(ROOT / name, swap=True)
    fmt = {".json": "json", ".tron": "tron", ".jsonl": "jsonl", ".toml": "toml"}[ext]
    a = parse(outcome.output, format=fmt).data  # type: ignore[arg-type]
    b = parse(swapped.output, format=fmt).data  # type: ignore[arg-type]
    assert _unordered(a) == _unordered(b)


def _unordered(value: Any) -> Any:
    """Data with array order ignored (M17 lets ties and concurrent insertions favour ours)."""
    if isinstance(value, dict):
        return {k: _unordered(v) for k, v in value.items() if k != "fork"}
    if isinstance(value, list):
        return sorted(json.dumps(_unordered(v), sort_keys=True) for v in value)
    return value
