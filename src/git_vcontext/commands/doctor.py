"""``git vcontext doctor``: check the setup and say what is missing; exit 1 if anything is."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from .. import installer
from ..errors import ExitCode
from ..gitio import git

VCONTEXT_ROOTS = (
    b'"vContextInfo"',
    b'"vBRIEFInfo"',
    b'"vAgendaInfo"',
    b"vContextInfo:",
    b"vBRIEFInfo:",
    b"vAgendaInfo:",
)


def run(*, cwd: str | None = None) -> int:
    """Print one line per check; problems say how to fix them."""
    where = Path(cwd or ".")
    top = installer.repo_top(where)
    problems: list[str] = []
    oks: list[str] = []
    for check in (_driver, _textconv, _mergetool, _attributes, _hook):
        check(top, oks, problems)
    for line in oks:
        print(f"ok: {line}")
    for line in problems:
        print(f"problem: {line}")
    if problems:
        print(f"{len(problems)} problem(s); 'git vcontext install' fixes most of them")
        return int(ExitCode.FOUND)
    print("everything is in place")
    return int(ExitCode.OK)


def _config(top: Path, key: str) -> str | None:
    out = git(["config", "--get", key], cwd=top, check=False)
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


def _ours(top: Path, key: str, problems: list[str], hint: str = "") -> str | None:
    """The value of ``key`` when git-vcontext wrote it; else None, with the problem noted."""
    value = _config(top, key)
    if value is None:
        problems.append(f"{key} is not configured{hint}")
    elif not installer.is_ours(value):
        problems.append(f"{key} belongs to another tool: {value}")
    else:
        return value
    return None


def _driver(top: Path, oks: list[str], problems: list[str]) -> None:
    value = _ours(top, "merge.vcontext.driver", problems)
    if value is None:
        return
    if not _runs(value):
        problems.append(
            f"the merge driver does not run: {value.split(' merge-driver')[0]} "
            "(moved or uninstalled? run install again)"
        )
    else:
        oks.append("merge driver configured and runs")


def _textconv(top: Path, oks: list[str], problems: list[str]) -> None:
    value = _config(top, "diff.vcontext.textconv")
    if value is None:
        problems.append("diff.vcontext.textconv is not configured (git diff shows raw text)")
    else:
        oks.append("diff textconv configured")


def _mergetool(top: Path, oks: list[str], problems: list[str]) -> None:
    hint = " (git mergetool -t vcontext)"
    if _ours(top, "mergetool.vcontext.cmd", problems, hint) is not None:
        oks.append(f"mergetool configured{hint}")


def _attributes(top: Path, oks: list[str], problems: list[str]) -> None:
    files = _vcontext_files(top)
    if not files:
        oks.append("no vContext files tracked yet")
        return
    out = git(["check-attr", "-z", "merge", "--stdin"], cwd=top, input="\0".join(files) + "\0")
    fields = out.stdout.split("\0")
    uncovered = [fields[i] for i in range(0, len(fields) - 2, 3) if fields[i + 2] != "vcontext"]
    if uncovered:
        shown = ", ".join(uncovered[:5]) + (" …" if len(uncovered) > 5 else "")
        problems.append(
            f"{len(uncovered)} vContext file(s) not covered by .gitattributes "
            f"(merge=vcontext diff=vcontext): {shown}"
        )
    else:
        oks.append(f"{len(files)} vContext file(s) covered by the attributes")


def _vcontext_files(top: Path) -> list[str]:
    """Tracked files that are vContext documents by name or by their root key."""
    out = git(["ls-files", "-z"], cwd=top)
    found = []
    for name in filter(None, out.stdout.split("\0")):
        if installer.is_vcontext_path(name) or _looks_vcontext(top / name):
            found.append(name)
    return found


def _looks_vcontext(path: Path) -> bool:
    if path.suffix not in (".json", ".tron", ".jsonl"):
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return any(root in head for root in VCONTEXT_ROOTS)


def _hook(top: Path, oks: list[str], problems: list[str]) -> None:
    hooks_path = _config(top, "core.hooksPath")
    hook = installer.hooks_dir(top) / "pre-push"
    if not hook.exists() or installer.HOOK_MARKER not in hook.read_text(errors="replace"):
        hint = f" (core.hooksPath is {hooks_path}: chain it from that hook)" if hooks_path else ""
        problems.append(f"pre-push hook not installed{hint}")
    elif not os.access(hook, os.X_OK):
        problems.append(f"{hook} is not executable")
    elif not _hook_runs(installer.hook_command(hook.read_text(errors="replace")), top):
        problems.append(
            f"the pre-push hook's command does not run (see {hook}; moved or uninstalled? "
            "run install again)"
        )
    else:
        oks.append("pre-push hook installed and runs")


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
