"""``git vcontext doctor``: check the setup and say what is missing; exit 1 if anything is."""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..codecs import parse
from ..errors import ExitCode, OperationalError, ParseError
from ..fsio import open_regular, read_regular
from ..gitio import git, open_repo
from ..gitio.fileset import work_tree_files
from ..setup import config as installer
from ..setup import hooks as hookinstall
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
    for check in (_driver, _virtual_base, _diff, _mergetool, _attributes, _hook, _octopus):
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


def _runs(value: str) -> bool:
    """Whether the git-vcontext a configured value starts runs (``--version`` exits 0)."""
    argv = installer.command_words(value)
    if argv is None:
        return False
    exe = argv[0]
    if not os.path.isabs(exe) or not os.access(exe, os.X_OK):
        return False
    try:
        proc = subprocess.run([*argv, "--version"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _stale(value: str) -> str:
    """The program a value runs, as said in a problem line."""
    argv = installer.command_words(value)
    return argv[0] if argv else value


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
            f"the merge driver's program does not run: {_stale(value)} (moved or "
            "uninstalled? git merges these files by lines meanwhile; fix: git vcontext install)"
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
        report.problems.append(
            f"the virtual-base merge driver's program does not run: {_stale(driver)} "
            "(fix: git vcontext install)"
        )
    else:
        report.oks.append("criss-cross merges keep a structural virtual base")


def _diff(top: Path, report: Report) -> None:
    """The external diff ``git diff`` runs, an earlier install's textconv, and a textconv
    cache (git writes it as commits: it needs an identity)."""
    if installer.old_textconv(lambda key: _config(top, key)):
        report.problems.append(
            "diff.vcontext.textconv with cachetextconv=true (an earlier install): blame and "
            "'git diff > patch' see the rendering, and without an identity git diff, show, "
            "log -p and blame fail; fix: git vcontext install"
        )
    elif _config(top, "diff.vcontext.cachetextconv") == "true" and not _identity(top):
        report.problems.append(
            "diff.vcontext.cachetextconv is true and git has no identity here: git diff, "
            "show, log -p and blame fail writing the cache; fix: git config --unset "
            "diff.vcontext.cachetextconv (or set user.name and user.email)"
        )
    elif _config(top, "diff.vcontext.textconv") is not None:
        report.notes.append(
            "diff.vcontext.textconv is set (your choice): git blame, git log -p and "
            "git show print its rendering, not the raw file"
        )
    value = _ours(top, "diff.vcontext.command", report, " (git diff shows raw lines)")
    if value is None:
        return
    if not _runs(value):
        report.problems.append(
            f"the external diff's program does not run: {_stale(value)} (git diff shows "
            "plain patches meanwhile; fix: git vcontext install)"
        )
    else:
        report.oks.append(
            "git diff shows the structural view on a terminal, git's patch into files and pipes"
        )


def _identity(top: Path) -> bool:
    return git(["var", "GIT_COMMITTER_IDENT"], cwd=top, check=False).returncode == 0


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
    """The chain of pre-push hooks a push runs, walked dry: a loop, an earlier install's
    shim, pre-commit in migration mode, or our check out of reach are problems."""
    folder = hookinstall.hooks_dir(top)
    chain = hookinstall.walk(folder)
    fix = "fix: git vcontext install"
    if chain.problem is not None:
        report.problems.append(f"{chain.problem}: {chain.shown()}; {fix}")
        return
    ours = chain.ours
    if ours is not None:
        text = ours.read_text(errors="replace")
        if hookinstall.runs_legacy(text):
            report.problems.append(
                f"{ours} is an earlier install's hook: it runs pre-push.legacy, pre-commit's "
                f"name (after 'pre-commit install' a push never ends); {fix}"
            )
            return
        if len(chain.steps) > 1:
            report.oks.append(f"pre-push hooks run in turn: {chain.shown()}")
        _our_hook(top, ours, text, report)
        return
    managed = hookinstall.managed_call(top)
    if managed is not None:
        report.oks.append(f"the pre-push check is called from {managed}")
        return
    left = [p for p in sorted(folder.glob("pre-push*")) if hookinstall.HOOK_MARKER in _read(p)]
    if left:
        manager = chain.steps[0][1] if chain.steps else "nothing"
        report.problems.append(
            f"our pre-push hook is kept as {left[0].name}, which no hook runs (pre-push is "
            f"{manager}'s); {fix} says what to add where"
        )
        return
    hooks_path = hookinstall.hooks_path(top)
    hint = f" (core.hooksPath is {hooks_path}: 'git vcontext install' says what to add)"
    report.problems.append("pre-push hook not installed" + (hint if hooks_path else ""))


def _octopus(top: Path, report: Report) -> None:
    """Several agent branches: git's octopus merge (``git merge a b c``) never runs a merge
    driver and stops ('Should not be doing an octopus') where two touch one document."""
    # lazy: only doctor lists the agents
    from ..branches.agents import list_agents

    agents = list_agents(open_repo(top))
    if len(agents) > 1:
        report.notes.append(
            f"{len(agents)} agent branches: merge them one at a time (git merge agents/A, "
            "then agents/B) or with git vcontext sync --all; git merge of several at once "
            "(an octopus) never runs the driver and stops on a shared document"
        )


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


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
