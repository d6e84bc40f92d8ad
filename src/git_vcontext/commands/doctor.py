"""``git vcontext doctor``: check the setup and say what is missing; exit 1 if anything is."""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .. import hookinstall, installer
from ..codecs import parse
from ..errors import ExitCode, OperationalError, ParseError
from ..fsio import open_regular, read_regular
from ..gitio import git, open_repo
from ..gitio.fileset import work_tree_files
from ..validation.checks import is_document
from ..vermas.kinds import document_kind

VCONTEXT_ROOTS = (
    b'"vContextInfo"',
    b'"vBRIEFInfo"',
    b'"vAgendaInfo"',
    b"vContextInfo:",
    b"vBRIEFInfo:",
    b"vAgendaInfo:",
)


@dataclass
class Report:
    """What doctor found: ok lines, notes, problems."""

    oks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def run(*, cwd: str | None = None) -> int:
    """Print one line per check; problems say how to fix them."""
    where = Path(cwd or ".")
    top = installer.repo_top(where)
    report = Report()
    for check in (_driver, _virtual_base, _textconv, _mergetool, _attributes, _hook):
        check(top, report)
    for kind, lines in (("ok", report.oks), ("note", report.notes), ("problem", report.problems)):
        for line in lines:
            print(f"{kind}: {line}")
    if report.problems:
        print(f"{len(report.problems)} problem(s); 'git vcontext install' fixes most of them")
        return int(ExitCode.FOUND)
    print("everything is in place")
    return int(ExitCode.OK)


def _config(top: Path, key: str) -> str | None:
    out = git(["config", "--get", "--", key], cwd=top, check=False)
    return out.stdout.strip() if out.returncode == 0 else None


def _runs(command: str) -> bool:
    """Whether the configured command starts (``--version`` exits 0)."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    exe = argv[0]
    if not os.path.isabs(exe) or not os.access(exe, os.X_OK):
        return False
    head = argv[: argv.index("merge-driver")] if "merge-driver" in argv else argv[:1]
    try:
        proc = subprocess.run([*head, "--version"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _ours(top: Path, key: str, report: Report, hint: str = "") -> str | None:
    """The value of ``key`` when git-vcontext wrote it; else None, with the problem noted."""
    value = _config(top, key)
    if value is None:
        report.problems.append(f"{key} is not configured{hint}")
    elif not installer.is_ours(value):
        report.problems.append(f"{key} belongs to another tool: {value}")
    else:
        return value
    return None


def _driver(top: Path, report: Report) -> None:
    value = _ours(top, "merge.vcontext.driver", report)
    if value is None:
        return
    if not _runs(value):
        report.problems.append(
            f"the merge driver does not run: {value.split(' merge-driver')[0]} "
            "(moved or uninstalled? run install again)"
        )
    else:
        report.oks.append("merge driver configured and runs")


def _mergetool(top: Path, report: Report) -> None:
    hint = " (git mergetool -t vcontext)"
    if _ours(top, "mergetool.vcontext.cmd", report, hint) is not None:
        report.oks.append(f"mergetool configured{hint}")


def _virtual_base(top: Path, report: Report) -> None:
    """The driver for the inner merges of criss-cross histories (M16)."""
    name = installer.BASE_DRIVER
    recursive = _config(top, "merge.vcontext.recursive")
    driver = _config(top, f"merge.{name}.driver")
    if recursive != name:
        now = f"set to {recursive!r}" if recursive else "not set"
        report.problems.append(
            f"merge.vcontext.recursive is {now}: criss-cross merges would start from a "
            f"virtual base with conflict markers and fall back to lines (install sets {name})"
        )
    elif driver is None or not installer.is_ours(driver):
        shown = "not configured" if driver is None else driver
        report.problems.append(f"merge.{name}.driver is {shown}")
    elif not _runs(driver):
        report.problems.append(f"the virtual-base merge driver does not run: {driver}")
    else:
        report.oks.append("criss-cross merges keep a structural virtual base")


def _textconv(top: Path, report: Report) -> None:
    oks, problems = report.oks, report.problems
    value = _config(top, "diff.vcontext.textconv")
    cached = _config(top, "diff.vcontext.cachetextconv")
    if value is None:
        problems.append("diff.vcontext.textconv is not configured (git diff shows raw text)")
    elif cached != "true":
        problems.append(
            "diff.vcontext.cachetextconv is not true: git log -p converts every "
            "version of every document again, each time"
        )
    else:
        oks.append("diff textconv configured (cached)")


def _attributes(top: Path, report: Report) -> None:
    """The vContext files (the file set, and documents outside it) and whether git sends
    them to the driver; configs among them are noted (validate and the hook skip them)."""
    files, configs = _vcontext_files(top)
    if configs:
        report.notes.append(
            f"{len(configs)} file(s) among the vContext files are not vContext documents "
            f"(configs?): {_few(configs)}; validate and the pre-push hook skip them"
        )
    if not files:
        report.oks.append("no vContext files tracked yet")
        return
    out = git(["check-attr", "-z", "merge", "--stdin"], cwd=top, input="\0".join(files) + "\0")
    fields = out.stdout.split("\0")
    uncovered = [fields[i] for i in range(0, len(fields) - 2, 3) if fields[i + 2] != "vcontext"]
    if uncovered:
        report.problems.append(
            f"{len(uncovered)} vContext file(s) not covered by .gitattributes "
            f"(merge=vcontext diff=vcontext): {_few(uncovered)}"
        )
    else:
        report.oks.append(f"{len(files)} vContext file(s) covered by the attributes")


def _vcontext_files(top: Path) -> tuple[list[str], list[str]]:
    """Tracked vContext files (the file set, and documents outside it by their root key),
    and the files of the set that are not vContext documents."""
    in_set = work_tree_files(open_repo(top))
    out = git(["ls-files", "-z"], cwd=top)
    files: list[str] = []
    configs: list[str] = []
    for name in dict.fromkeys(filter(None, out.stdout.split("\0"))):  # once, even mid-merge
        if in_set(name) and _not_a_document(top, name):
            configs.append(name)
        elif in_set(name) or _looks_vcontext(top / name):
            files.append(name)
    return files, configs


def _few(names: list[str]) -> str:
    return ", ".join(names[:5]) + (" …" if len(names) > 5 else "")


def _not_a_document(top: Path, name: str) -> bool:
    """A JSON/TRON file that parses and is neither a vContext document nor a VerMAS one
    (a process, evidence): a config."""
    path = top / name
    if path.suffix not in (".json", ".tron") or _looks_vcontext(path):
        return False

    try:
        doc = parse(read_regular(str(path)), path=str(path))  # never a FIFO: it would block
    except (OperationalError, ParseError, RecursionError):
        return False
    return not is_document(doc.data) and document_kind(name, doc.data, doc.format) is None


def _looks_vcontext(path: Path) -> bool:
    if path.suffix not in (".json", ".tron", ".jsonl"):
        return False
    try:
        with os.fdopen(open_regular(str(path)), "rb") as fh:
            head = fh.read(4096)
    except (OSError, OperationalError):
        return False
    return any(root in head for root in VCONTEXT_ROOTS)


def _hook(top: Path, report: Report) -> None:
    hook = hookinstall.hooks_dir(top) / "pre-push"
    text = hook.read_text(errors="replace") if hook.is_file() else ""
    if hookinstall.HOOK_MARKER in text:
        _our_hook(top, hook, text, report)
        return
    managed = hookinstall.managed_call(top)
    if managed is not None:
        report.oks.append(f"the pre-push check is called from {managed}")
        return
    hooks_path = hookinstall.hooks_path(top)
    hint = f" (core.hooksPath is {hooks_path}: 'git vcontext install' says what to add)"
    report.problems.append("pre-push hook not installed" + (hint if hooks_path else ""))


def _our_hook(top: Path, hook: Path, text: str, report: Report) -> None:
    if not os.access(hook, os.X_OK):
        report.problems.append(f"{hook} is not executable")
    elif not _hook_runs(hookinstall.hook_command(text), top):
        report.problems.append(
            f"the pre-push hook's command does not run (see {hook}; moved or uninstalled? "
            "run install again)"
        )
    else:
        report.oks.append("pre-push hook installed and runs")


def _hook_runs(command: str | None, top: Path) -> bool:
    """Whether the hook's command answers an empty push (nothing to check) with exit 0."""
    if not command:
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    try:
        proc = subprocess.run(
            [*argv, "hook", "pre-push", "doctor", "doctor"],
            cwd=top,
            input=b"",
            capture_output=True,
            env={k: v for k, v in os.environ.items() if not k.startswith("PRE_COMMIT_")},
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0
