"""``git vcontext validate [PATHS…] [--untracked]``: schema and semantic checks of vContext files.

No paths: the vContext files tracked in the repository, work-tree content, each once
(also while a merge is stopped and the index holds three stages of a file);
``--untracked`` adds the untracked ones, which are otherwise counted in a note. The
vContext files are one set for validate, doctor and the pre-push hook
(``gitio.fileset``: install's patterns plus what .gitattributes routes to the driver).
A directory: the files of that set under it (outside a repository: install's patterns,
or an info key near the top). A file named explicitly is always checked; one in the
set that is not a vContext document (a config next to the documents) is skipped with a
note, as the hook does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..document import checked_file, may_hold_fork
from ..errors import ExitCode, OperationalError, UsageError
from ..fsio import read_bytes, read_regular, sniffed_vcontext, write_output
from ..gitio import git, open_repo, repository_error
from ..gitio.fileset import work_tree_files
from ..validation.files import check_bytes
from ..validation.model import FileReport, quoted_path, symlink_report, with_case_notes
from ..values import json_report

if TYPE_CHECKING:
    from ..gitio.fileset import FileSet

SNIFFED_SUFFIXES = (".json", ".tron", ".jsonl")
"""Files with these suffixes are vContext files when an info key is near their start."""
SHOWN = 5  # file names listed in a note before "…"


def run(*, paths: Sequence[str] = (), fmt: str = "text", untracked: bool = False) -> int:
    """Validate; exit 0 all valid, 1 any invalid, 3 when a path could not be read."""
    if untracked and paths:
        raise UsageError("--untracked adds untracked files to the default list: give no paths")
    repo = Repo.around(os.getcwd(), required=not paths)
    listing = _listing(repo, untracked) if not paths else Listing(list(_expand(paths, repo)))
    reports: list[FileReport] = []
    problems: list[str] = []
    forked: list[tuple[str, bytes]] = []  # (repository path, content) holding a fork block
    for name in listing.files:
        # the file as the repository names it (once): a VerMAS file is known by its place,
        # as the hook knows it, and the file set is the repository's
        place = repo.rel(name)
        covered = place is not None and repo.in_set(place)
        if covered and os.path.islink(name):
            reports.append(symlink_report(name))  # as the hook and the guard judge it
            continue
        try:  # a file found by a scan is read only if regular (a FIFO would block)
            raw = read_bytes(name) if name in paths else read_regular(name)
        except OperationalError as err:
            problems.append(err.one_line())
            continue
        beside = None if name == "-" else _beside(name)
        reports.append(check_bytes(raw, name, covered=covered, sibling=beside, place=place))
        if place is not None and may_hold_fork(raw):
            forked.append((place, raw))
    problems.extend(f"{p}: no such file" for p in paths if p != "-" and not os.path.lexists(p))
    reports = _case_notes(repo, reports)
    if forked and repo.top is not None:
        # lazy: only a document holding a fork block
        from ..branches.arrived import work_tree_notes

        listing.notes += work_tree_notes(open_repo(repo.top), forked)
    write_output(None, _render(reports, fmt))
    for line in problems:
        print(f"git-vcontext: error: {line}", file=sys.stderr)
    if reports or not problems:  # a lone unreadable path: its error line says it all
        _summary(reports, listing.notes)
    if problems:
        return int(ExitCode.OPERATIONAL)
    return int(ExitCode.OK if all(r.valid for r in reports) else ExitCode.FOUND)


def _case_notes(repo: Repo, reports: list[FileReport]) -> list[FileReport]:
    """A note on each file another tracked path differs from only in case (the hook, the
    guard and check say it of a commit adding such a path): on a case-insensitive file
    system the two are one file, read here twice."""
    if repo.top is None or not reports:
        return reports
    tracked = _names(git(["ls-files", "-z"], cwd=repo.top).stdout)
    return with_case_notes(
        reports, tracked, lambda p: None if p == "-" else repo.rel(p), repo.shown
    )


def _beside(name: str) -> Callable[[str], bytes | None]:
    """Reads a file next to ``name`` (a projection's ``events.jsonl``), None when absent."""

    def read(other: str) -> bytes | None:
        path = os.path.join(os.path.dirname(name), other)
        if not os.path.isfile(path):
            return None
        try:
            return read_regular(path)
        except OperationalError:
            return None

    return read


def _render(reports: list[FileReport], fmt: str) -> str:
    if fmt == "json":
        return json_report({"files": [r.to_json() for r in reports]})
    lines: list[str] = []
    for r in reports:
        lines.extend(r.lines())
        lines.extend(f"{r.path}: skipped: {s}" for s in r.skipped)
    return "".join(line + "\n" for line in lines)


def _summary(reports: list[FileReport], notes: list[str]) -> None:
    for note in notes:
        print(f"git-vcontext: note: {note}", file=sys.stderr)
    if not reports:
        print("no vContext files to validate", file=sys.stderr)
        return
    invalid = [r for r in reports if not r.valid]
    findings = sum(len(r.findings) for r in invalid)
    if invalid:
        print(
            f"{len(invalid)} of {len(reports)} file(s) invalid ({findings} finding(s))",
            file=sys.stderr,
        )


@dataclass
class Listing:
    """The files to check, and notes about the ones left out."""

    files: list[str]
    notes: list[str] = field(default_factory=list)


def place_of(name: str) -> str | None:
    """``name`` (a file given on the command line) as the repository around it names it:
    what a writer's judge knows a VerMAS file by, as the pre-push hook does (None: ``-``,
    or outside any repository)."""
    if name == "-":
        return None
    full = os.path.abspath(name)
    folder = os.path.dirname(full)
    if ".work" not in os.path.join(os.path.realpath(folder), os.path.basename(full)).split(os.sep):
        return None  # no VerMAS place whatever the repository calls it: no git to ask
    while not os.path.isdir(folder):  # a new playbook's folder is made when it is written
        folder = os.path.dirname(folder)
    return Repo.around(folder, required=False).rel(name)


@dataclass
class Repo:
    """The repository around the current directory (``top`` None outside one)."""

    top: Path | None
    here: Path
    _files: FileSet | None = None

    @classmethod
    def around(cls, cwd: str, *, required: bool) -> Repo:
        out = git(["rev-parse", "--show-toplevel"], cwd=cwd, check=False)
        if out.returncode != 0 and required:
            raise repository_error(cwd, out.stderr)
        top = Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None
        return cls(top, Path(cwd))

    def rel(self, name: str) -> str | None:
        """A path as the repository names it ('/'-separated), None when outside."""
        if self.top is None or name == "-":
            return None
        full = os.path.abspath(name)  # the folder resolved (as git's top is), not a link's target
        where = Path(os.path.realpath(os.path.dirname(full))) / os.path.basename(full)
        try:
            return where.relative_to(self.top).as_posix()
        except ValueError:
            return None

    def in_set(self, rel: str) -> bool:
        """Whether a repo path is a vContext file (install's patterns, .gitattributes)."""
        if checked_file(rel):
            return True
        if self._files is None:
            assert self.top is not None
            self._files = work_tree_files(open_repo(self.top))
        return bool(self._files.routed(rel))

    def covers(self, name: str) -> bool:
        rel = self.rel(name)
        return rel is not None and self.in_set(rel)

    def shown(self, rel: str) -> str:
        assert self.top is not None
        return os.path.relpath(self.top / rel, self.here)


def _listing(repo: Repo, untracked: bool) -> Listing:
    """The tracked vContext files (and the untracked ones, with ``untracked``)."""
    assert repo.top is not None
    tracked = _names(git(["ls-files", "-z"], cwd=repo.top).stdout)
    others = _names(git(["ls-files", "-z", "--others", "--exclude-standard"], cwd=repo.top).stdout)
    listing = Listing([repo.shown(r) for r in tracked if repo.in_set(r) and _present(repo, r)])
    new = [r for r in others if repo.in_set(r)]
    if untracked:
        listing.files += [repo.shown(r) for r in new]
    elif new:
        listing.notes.append(
            f"{len(new)} untracked vContext file(s) not checked: {_few(repo, new)} "
            "(git add them, or validate --untracked)"
        )
    outside = [r for r in tracked if not repo.in_set(r) and _sniffed(repo.top / r)]
    if outside:
        listing.notes.append(
            f"{len(outside)} tracked file(s) look like vContext documents but .gitattributes "
            f"does not send them to the driver: {_few(repo, outside)} (not checked; see "
            "git vcontext doctor)"
        )
    return listing


def _names(listing: str) -> list[str]:
    """``git ls-files -z`` names, each once (a conflicted file is listed per index stage)."""
    return list(dict.fromkeys(filter(None, listing.split("\0"))))


def _present(repo: Repo, rel: str) -> bool:
    assert repo.top is not None
    full = repo.top / rel  # deleted in the work tree: nothing to read; a symbolic link,
    return full.is_file() or full.is_symlink()  # dangling too: the hook's symlink finding


def _few(repo: Repo, rels: list[str]) -> str:
    shown = ", ".join(quoted_path(repo.shown(r)) for r in rels[:SHOWN])
    return shown + (", …" if len(rels) > SHOWN else "")


def _expand(paths: Sequence[str], repo: Repo) -> Iterator[str]:
    """Files as given; directories walked for vContext files (``.git`` skipped)."""
    for path in paths:
        if os.path.islink(path) and repo.covers(path):
            yield path  # judged as a link (to a folder, dangling too), never walked or read
        elif os.path.isdir(path):
            yield from _walk(path, repo)
        elif os.path.lexists(path) or path == "-":
            yield path


def _walk(top: str, repo: Repo) -> Iterator[str]:
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        linked = [d for d in dirs if os.path.islink(os.path.join(folder, d))]  # (not walked)
        for name in sorted(files + linked):
            full = os.path.join(folder, name)
            if os.path.islink(full) and repo.covers(full):
                yield full  # judged as a link (dangling too), never read
                continue
            if not os.path.isfile(full):
                continue  # a FIFO, a device, a dangling link: reading it could block forever
            if _wanted(full, repo):
                yield full


def _wanted(full: str, repo: Repo) -> bool:
    """In the file set (inside a repository), else by install's patterns or an info key."""
    rel = repo.rel(full)
    if rel is not None:
        return repo.in_set(rel)
    parts = Path(full).parts  # the end of the path: .work/templates/x.toml, .work/x.jsonl, …
    tails = ("/".join(parts[-n:]) for n in range(1, 4))
    return any(checked_file(t) for t in tails) or _sniffed(Path(full))


def _sniffed(path: Path) -> bool:
    return path.is_file() and sniffed_vcontext(str(path), SNIFFED_SUFFIXES)
