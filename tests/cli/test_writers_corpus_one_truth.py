"""The command line's writers over every document of ../shared/corpus (PRODUCT.md, "One
truth": whatever ``playbook add|update|deprecate``, ``ace apply`` and ``fork`` write,
``validate`` accepts; the write path: "an invalid result is refused, nothing written").

Each playbook (at the root or embedded in a plan) gets an ``add``, an ``update`` and a
``deprecate`` of its first target; each ACE playbook an ``ace apply``; every document
``fork``'s metadata. A write either lands and the file validates, or is refused in one
line (exit 1) with the file untouched. The MCP tools' share: ``test_mcp_corpus``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.errors import ParseError, Refused
from git_vcontext.playbook.log import find_playbooks, log_kind, log_of
from git_vcontext.sync.fork import fork_bytes
from git_vcontext.validation import validate
from git_vcontext.validation.files import check_bytes
from helpers.run import run_cli

pytestmark = pytest.mark.corpus

EPOCH = {"SOURCE_DATE_EPOCH": "1772600767"}
SUFFIXES = (".json", ".tron")


def _documents(shared: Path) -> list[tuple[Path, Any]]:
    """The corpus files that parse, with their data."""
    out = []
    for path in sorted((shared / "corpus").rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file():
            continue
        try:
            out.append((path, parse(path.read_bytes(), path=path.name).data))
        except (ParseError, RecursionError):
            continue
    return out


def _first_target(playbook: dict[str, Any]) -> str | None:
    _, log = log_of(playbook)
    return next(
        (e["targetId"] for e in log if isinstance(e, dict) and isinstance(e.get("targetId"), str)),
        None,
    )


def _judged(copy: Path, before: bytes, done: Any, counts: dict[str, int], what: str) -> None:
    """Written: the file validates as ``validate`` judges it; refused: one line, exit 1,
    the file untouched."""
    said = done.stderr.decode()
    if done.returncode == 0:
        counts["written"] += 1
        report = check_bytes(copy.read_bytes(), copy.name)
        assert report.valid, (what, [f.message for f in report.findings])
        return
    counts["refused"] += 1
    assert done.returncode == 1, (what, said)
    assert said.count("\n") == 1, (what, said)
    assert copy.read_bytes() == before, what


def test_cli_writers_write_only_what_validate_accepts_in_every_corpus_document(
    shared_dir: Path, tmp_path: Path
) -> None:
    counts = {"written": 0, "refused": 0}
    playbooks = aces = 0
    for n, (path, data) in enumerate(_documents(shared_dir)):
        found = find_playbooks(data)
        if not found:
            continue
        _, playbook = found[0]
        kind = log_kind(log_of(playbook)[1])
        copy = tmp_path / f"{n:04d}{''.join(path.suffixes[-2:])}"
        raw = path.read_bytes()
        what = str(path.relative_to(shared_dir))
        if kind == "ace":
            aces += 1
            entry = next(
                (e["id"] for e in log_of(playbook)[1] if isinstance(e, dict) and "id" in e), None
            )
            ops = [{"op": "incrementCounter", "entryId": entry, "delta": {"helpfulCount": 1}}]
            (tmp_path / "patch.json").write_text(json.dumps({"operations": ops}))
            copy.write_bytes(raw)
            done = run_cli("ace", "apply", str(tmp_path / "patch.json"), str(copy), env=EPOCH)
            _judged(copy, raw, done, counts, what)
            continue
        playbooks += 1
        target = _first_target(playbook)
        actions: list[tuple[str, ...]] = [
            ("add", "--target", "corpus-probe", "--kind", "note", "--text", "probe")
        ]
        if target is not None:
            actions.append(("update", "--target", target, "--delta", "helpfulCount=+1"))
            actions.append(("deprecate", "--target", target, "--deprecated-reason", "probe"))
        for action, *args in actions:
            copy.write_bytes(raw)
            done = run_cli("playbook", action, str(copy), *args, env=EPOCH)
            _judged(copy, raw, done, counts, f"{what} {action}")
    print(f"CLI playbook writers on {playbooks} playbooks, ace apply on {aces}: {counts}")
    assert playbooks >= 40
    assert counts["written"] >= 60


def test_fork_metadata_written_only_where_validate_accepts_it_in_every_corpus_document(
    shared_dir: Path,
) -> None:
    forked = 0
    refused: list[tuple[str, str, str]] = []
    for path, _ in _documents(shared_dir):
        rel = path.name
        try:
            new = fork_bytes(path.read_bytes(), rel, forked_at="2026-01-01T00:00:00Z", reason="r")
        except ParseError:
            continue
        except Refused as exc:
            refused.append((str(path), exc.kind, exc.one_line()))
            continue
        if new is None:
            continue
        forked += 1
        assert validate(parse(new, path=rel), path=rel).valid, path
    print(f"fork metadata: {forked} written, {len(refused)} left alone")
    assert forked >= 10
    for where, kind, said in refused:
        assert kind in ("rejected", "invalid-result"), (where, kind)
        assert "\n" not in said
