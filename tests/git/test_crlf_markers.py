"""Conflict markers in a document with CRLF line endings are markers, for every part.

git writes the markers of a CRLF file with CRLF (``=======\\r\\n``). PRODUCT.md, Validation:
"no leftover conflict markers" (rule ``conflict-markers``); Resolving conflicts: ``conflicts``
and ``resolve`` read markers; M19 one truth: what validate calls markers, ``conflicts``,
``resolve``, the hook and the merge driver call markers, whatever the line endings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_vcontext.codecs.text import find_conflict_marker, marker_line
from git_vcontext.merging.textmerge import base_sections
from git_vcontext.resolution.markers import split_markers
from helpers.conflict_repos import diverge
from helpers.pre_push import bare_remote, push
from helpers.run import run_cli, run_git

TODO = "todo.vcontext.json"


def _crlf(title: str) -> str:
    items = [{"id": "t1", "title": title, "status": "pending"}]
    items.append({"id": "t2", "title": "b", "status": "pending"})
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"id": "l", "items": items}}
    return (json.dumps(data, indent=2) + "\n").replace("\n", "\r\n")


@pytest.fixture(params=["driver", "git"])
def stopped(git_repo: Path, request: pytest.FixtureRequest) -> Path:
    """A CRLF document committed as CRLF (core.autocrlf unset), both branches retitle t1:
    the merge stops with diff3 markers written by our driver, or by git's line merge."""
    run_git(git_repo, "config", "--unset", "core.autocrlf", check=False)
    run_git(git_repo, "config", "merge.conflictStyle", "diff3")
    if request.param == "driver":
        assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    diverge(git_repo, _crlf("a"), _crlf("ours"), _crlf("theirs"), TODO)  # (CRLF kept: POSIX)
    assert run_git(git_repo, "merge", "--no-edit", "feat", check=False).returncode == 1
    raw = (git_repo / TODO).read_bytes()
    assert b"\n=======\r\n" in raw
    assert b"\n||||||| " in raw
    assert raw.count(b"\n") == raw.count(b"\r\n")
    return git_repo


def test_crlf_markers_are_listed_resolved_and_validated(stopped: Path) -> None:
    proc = run_cli("validate", "--format", "json", TODO, cwd=stopped)
    (report,) = json.loads(proc.stdout)["files"]
    assert [e["rule"] for e in report["errors"]] == ["conflict-markers"], report
    listed = run_cli("conflicts", "--format", "json", cwd=stopped)
    assert listed.returncode == 1
    (conflict,) = json.loads(listed.stdout)["files"][0]["conflicts"]
    assert (conflict["ours"], conflict["theirs"]) == ("ours", "theirs")
    # the same file outside the merge: its markers are read from the text
    (stopped / "copy.vcontext.json").write_bytes((stopped / TODO).read_bytes())
    copy = run_cli("conflicts", "--format", "json", "copy.vcontext.json", cwd=stopped)
    assert copy.returncode == 1, copy.stderr
    (conflict,) = json.loads(copy.stdout)["files"][0]["conflicts"]
    assert (conflict["base"], conflict["ours"], conflict["theirs"]) == ("a", "ours", "theirs")
    (stopped / "copy.vcontext.json").unlink()

    done = run_cli("resolve", TODO, "--take", "theirs", cwd=stopped)
    assert done.returncode == 0, done.stderr
    assert (stopped / TODO).read_bytes() == _crlf("theirs").encode()  # ours' line endings kept
    assert run_git(stopped, "ls-files", "-u").stdout == ""  # staged
    assert run_cli("validate", TODO, cwd=stopped).returncode == 0


def _leave_the_separator(repo: Path) -> bytes:
    """A hand edit that kept ours' line and dropped every marker but ``=======``."""
    lines = (repo / TODO).read_bytes().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith(b"<<<<<<<"))
    end = next(i for i, ln in enumerate(lines) if ln.startswith(b">>>>>>>"))
    sep = next(i for i, ln in enumerate(lines) if ln.startswith(b"======="))
    kept = [*lines[:at], lines[at + 1], lines[sep], *lines[end + 1 :]]
    return b"".join(kept)


def test_a_lone_crlf_separator_is_a_marker_to_validate_conflicts_and_the_hook(
    stopped: Path, tmp_path: Path
) -> None:
    edited = _leave_the_separator(stopped)
    assert b"\r\n=======\r\n" in edited
    (stopped / TODO).write_bytes(edited)
    (stopped / "lf.vcontext.json").write_bytes(edited.replace(b"\r\n", b"\n"))
    proc = run_cli("validate", "--format", "json", TODO, "lf.vcontext.json", cwd=stopped)
    found = {
        f["path"]: [(e["rule"], e["pointer"]) for e in f["errors"]]
        for f in json.loads(proc.stdout)["files"]
    }
    assert found[TODO] == found["lf.vcontext.json"]  # the line endings change nothing
    assert [rule for rule, _ in found[TODO]] == ["conflict-markers"]
    text = run_cli("validate", TODO, cwd=stopped).stdout.decode()
    line = edited.splitlines().index(b"=======") + 1
    assert f"{TODO}:{line}:1: holds git conflict markers" in text

    # outside a stopped merge, conflicts and resolve name the stray marker (no dead end)
    for rel, raw in (
        ("lf.vcontext.json", edited.replace(b"\r", b"")),
        ("crlf.vcontext.json", edited),
    ):
        (stopped / rel).write_bytes(raw)
        listed = run_cli("conflicts", rel, cwd=stopped)
        assert listed.returncode == 1, (rel, listed.stderr)
        assert b"is a conflict marker outside a complete" in listed.stderr + listed.stdout, rel
        resolved = run_cli("resolve", rel, "--take", "ours", cwd=stopped)
        assert b"is a conflict marker outside a complete" in resolved.stderr, rel
        (stopped / rel).unlink()

    # the hook refuses the commit for its markers (not as a mere parse error)
    run_git(stopped, "add", TODO)
    run_git(stopped, "commit", "-q", "--no-edit")
    remote = bare_remote(tmp_path)
    run_git(stopped, "remote", "add", "origin", str(remote))
    assert run_cli("install", cwd=stopped).returncode == 0
    refused = push(stopped, "origin", "main")
    assert refused.returncode != 0
    assert f"{TODO}:{line}:1:" in refused.stderr
    assert "[conflict-markers]" in refused.stderr


@pytest.mark.parametrize("nl", ["\n", "\r\n"])
@pytest.mark.parametrize("labels", [("", "", ""), (" ours", " base", " theirs")])
def test_every_marker_line_is_one_with_either_line_ending(
    nl: str, labels: tuple[str, str, str]
) -> None:
    """One judgement (codecs.text.marker_line) for the codecs, resolve's reader and the
    driver's virtual base: the four markers, with or without labels, LF or CRLF."""
    ours, base, theirs = labels
    lines = ["{", f"<<<<<<<{ours}", '"a": 1', f"|||||||{base}", '"a": 0', "=======", '"a": 2']
    lines += [f">>>>>>>{theirs}", "}", ""]
    text = nl.join(lines)
    for marker in lines[1], lines[3], lines[5], lines[7]:
        assert marker_line(marker + nl) == (marker[0], marker[8:])
        assert find_conflict_marker("x" + nl + marker + nl) == 1 + len(nl)
        assert find_conflict_marker("x" + nl + marker) == 1 + len(nl)
    marked = split_markers(text)
    assert marked is not None
    assert marked.blocks == 1
    assert (marked.ours, marked.base, marked.theirs) == tuple(
        nl.join(["{", f'"a": {n}', "}", ""]) for n in (1, 0, 2)
    )
    assert marked.markers.newline == nl
    assert base_sections(text) == nl.join(["{", '"a": 0', "}", ""])


@pytest.mark.parametrize(
    "line", ["=======x", "======= x", "======", "<<<<<<<x", "<<<<<<", "<<<<<<<\rx", " ======="]
)
def test_what_is_not_a_marker_line(line: str) -> None:
    assert marker_line(line) is None
    assert marker_line(line + "\r\n") is None
    assert find_conflict_marker("{\r\n" + line + "\r\n}") is None
