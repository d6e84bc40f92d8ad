"""``git vcontext doctor``: check the setup and say what is missing; exit 1 if anything is."""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..document import matches_file_patterns
from ..errors import ExitCode, UsageError
from ..fsio import permitted
from ..gitio import git, open_repo
from ..gitio.places import EMPTY_HOOKS_PATH, configured_hooks, nowhere
from ..gitio.submodules import checked_out, not_checked_out
from ..setup import config as installer
from ..setup import coverage
from ..setup import hooks as hookinstall
from ..setup import server as setup
from ..validation.model import command_path, command_word, quoted_path


@dataclass
class Report:
    """What doctor found: ok lines, notes, problems."""

    oks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    manual: int = 0  # problems install does not fix (each says what does)
    recurse: bool = False  # install fixes some only with --recurse-submodules
    server: bool = False  # a bare repository: ``install --server`` fixes what install does
    unstartable: Path | None = None  # the console script, when 'git vcontext' cannot start
    details: dict[str, list[str]] = field(default_factory=dict)  # problem -> lines under it


def run(*, cwd: str | None = None) -> int:
    """Print one line per check; problems say how to fix them."""
    where = Path(cwd or ".")
    report = Report(server=_bare(where))
    _console_script(report)  # (one installation, whatever repository: read once)
    if report.server:  # the remote agents push to: what its server needs
        return _server(where, report)
    top = installer.repo_top(where)
    for check in CHECKS:
        check(top, report)
    _submodules(top, report)
    return _print(report)


def _print(report: Report) -> int:
    for kind, lines in (("ok", report.oks), ("note", report.notes), ("problem", report.problems)):
        for line in lines:
            print(f"{kind}: {line}")
            for detail in report.details.get(line, ()):
                print(f"  {detail}")
    if report.problems:
        print(_summary(report))
        return int(ExitCode.FOUND)
    print("everything is in place")
    return int(ExitCode.OK)


def _bare(where: Path) -> bool:
    out = git(["rev-parse", "--is-bare-repository"], cwd=where, check=False)
    return out.returncode == 0 and out.stdout.strip() == "true"


def _server_ownership(where: Path, report: Report) -> None:
    """A bare repository: its owner (whose pushes write there) can write all of it."""
    from ..setup.server import Owner, git_dir, not_the_owners

    problems = not_the_owners(where)
    report.problems += problems
    report.manual += len(problems)  # each says its chown
    if not problems:
        owner = Owner.of(git_dir(where)).name
        report.oks.append(f"bare repository: its refs, objects and hooks are {owner}'s (its owner)")


def _install(report: Report) -> str:
    """The install that fixes what doctor finds here: ``--server`` in a bare repository, and
    where 'git vcontext' cannot start, as ``python -m git_vcontext`` (the way that runs)."""
    name = "python -m git_vcontext" if report.unstartable else "git vcontext"
    return f"{name} install" + (" --server" if report.server else "")


def _summary(report: Report) -> str:
    """The last line: how many problems, and which install fixes them."""
    count = len(report.problems)
    install = _install(report) + (" --recurse-submodules" if report.recurse else "")
    fixable = count - report.manual
    if not report.manual:
        return f"{count} problem(s); '{install}' fixes most of them"
    if not fixable:
        return f"{count} problem(s); each says what to do"
    return f"{count} problem(s); '{install}' fixes {fixable}, the others say what to do"


def _config(top: Path, key: str) -> str | None:
    """``git config --get KEY`` in ``top`` (stripped), from git's one listing there
    (``configread``: one git process for all of doctor's reads, not one per key)."""
    from ..gitio.configread import value

    found = value(str(top), key)
    return None if found is None else found.strip()


def _runs(value: str) -> bool:
    """Whether the git-vcontext a configured value starts runs (``--version`` exits 0)."""
    argv = installer.command_words(value)
    if argv is None:
        return False
    exe = argv[0]
    if not os.path.isabs(exe) or not permitted(exe, os.X_OK):
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
    elif not _starts(value):
        report.problems.append(
            "the merge driver's Python does not start git-vcontext from the folders install "
            f"recorded ({_stale(value)} runs; git merges these files by lines meanwhile; "
            "fix: git vcontext install)"
        )
    else:
        report.oks.append("merge driver configured and runs")
    if installer.DRIVER_FORM not in value:
        report.notes.append(
            "merge.vcontext.driver is an older form (the console script: its Python loads "
            "site for every file git merges, some 1.5 ms of CPU each); git vcontext install "
            "writes the current one"
        )


def _starts(value: str) -> bool:
    """Whether a driver started without ``site`` (``installer.DRIVER_FORM``) imports this
    installation from the folders install recorded (``--version`` exits 0); an older
    form: True (``_runs`` tried it)."""
    argv = installer.driver_start(value)
    if argv is None:
        return installer.DRIVER_FORM not in value
    try:
        proc = subprocess.run([*argv, "--version"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _mergetool(top: Path, report: Report) -> None:
    hint = f" ({installer.MERGETOOL})"
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
    elif not _runs(driver) or not _starts(driver):
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
    them to the driver; configs among them are noted (validate and the hook skip them).
    Files the patterns miss (install writes only those) get the line that routes each."""
    if conflicted := installer.conflict_markers(top / ".gitattributes"):
        report.problems.append(
            f"{conflicted}, which git reads as patterns: resolve the conflict, then run "
            "git vcontext install"
        )
    files, configs = coverage.vcontext_files(top)
    if configs:
        report.notes.append(
            f"{len(configs)} file(s) among the vContext files are not vContext documents "
            f"(configs?): {_few(configs)}; validate and the pre-push hook skip them"
        )
    if not files:
        report.oks.append("no vContext files tracked yet")
        return
    missed = coverage.uncovered(top, files)
    if not missed:
        report.oks.append(f"{len(files)} vContext file(s) covered by the attributes")
        return
    patterned = [f for f in missed if matches_file_patterns(f)]  # install writes those
    outside = [f for f in missed if not matches_file_patterns(f)]
    if patterned:
        report.problems.append(
            f"{len(patterned)} vContext file(s) not covered by .gitattributes "
            f"(merge=vcontext diff=vcontext): {_few(patterned)}"
        )
    if outside:
        problem = (
            f"{len(outside)} vContext file(s) outside the attribute patterns, which git "
            f"merges by lines: {_few(outside)}; add to .gitattributes (and commit it):"
        )
        report.problems.append(problem)
        report.details[problem] = coverage.attribute_lines(outside)
        report.manual += 1


def _submodules(top: Path, report: Report, prefix: str = "") -> None:
    """Each checked-out submodule holding vContext files is a repository of its own: set up
    there, or the problem says so (``install --recurse-submodules``); nested ones too."""
    for path in checked_out(top):
        where, shown = top / path, prefix + path
        named = quoted_path(shown)  # on one line, as git shows a name
        files = coverage.vcontext_files(where)[0]
        if files and not installer.is_ours(_config(where, "merge.vcontext.driver") or ""):
            report.problems.append(
                f"submodule {named} holds {len(files)} vContext file(s) ({_few(files)}) and is "
                f"not set up: git merges them by lines there (git vcontext install "
                f"--recurse-submodules, or git -C {command_word(shown)} vcontext install)"
            )
            report.recurse = True
        elif files:
            inner = Report()
            for check in CHECKS:
                check(where, inner)
            for problem in inner.problems:
                label = f"submodule {named}: {problem}"
                report.problems.append(label)
                if problem in inner.details:
                    report.details[label] = inner.details[problem]
            report.manual += inner.manual
            report.recurse = report.recurse or len(inner.problems) > inner.manual
            if not inner.problems:
                report.oks.append(f"submodule {named} is set up")
        _submodules(where, report, prefix=shown + "/")
    for path in not_checked_out(top):
        shown = prefix + path
        report.notes.append(
            f"submodule {quoted_path(shown)} is not checked out: nothing there to set up (after "
            f"git submodule update --init {command_path(shown)}, run git vcontext install "
            f"--recurse-submodules if it holds vContext files)"
        )


def _few(names: list[str]) -> str:
    """Up to five file names, each as git shows it (C-quoted when a newline or another
    control character is in it: one line per problem)."""
    return ", ".join(quoted_path(n) for n in names[:5]) + (" …" if len(names) > 5 else "")


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
        _managed(top, folder, managed, report)
        return
    left = [p for p in sorted(folder.glob("pre-push*")) if hookinstall.HOOK_MARKER in _read(p)]
    if left:
        manager = chain.steps[0][1] if chain.steps else "nothing"
        report.problems.append(
            f"our pre-push hook is kept as {left[0].name}, which no hook runs (pre-push is "
            f"{manager}'s); {fix} says what to add where"
        )
        return
    hooks_path = configured_hooks(open_repo(top))
    hint = f" (core.hooksPath is {hooks_path}: 'git vcontext install' says what to add)"
    if hooks_path is not None and nowhere(hooks_path):
        hint = f" ({EMPTY_HOOKS_PATH})"  # install refuses it: the person's fix, here too
    report.problems.append("pre-push hook not installed" + (hint if hooks_path else ""))


def _managed(top: Path, folder: Path, call: Path, report: Report) -> None:
    """The check called from a hook manager's file: that the manager's own pre-push hook is
    where git runs it, and that ``git vcontext`` runs here; what doctor cannot see (the
    manager running the call on a push, its PATH) is said in one line."""
    owner = hookinstall.call_owner(top, call)
    hook = folder / "pre-push"
    if _same_file(call, hook):  # the hook git runs itself (core.hooksPath set by hand)
        owner = None
        if not os.access(hook, os.X_OK):
            report.problems.append(
                f"{call} calls the pre-push check, but it is not executable: git skips it on "
                f"a push; fix: chmod +x {command_path(str(hook))}"
            )
            report.manual += 1
            return
    if owner is not None and hookinstall.hook_manager(folder) != owner:
        found = hookinstall.hook_manager(folder)
        what = "missing" if not hook.exists() else f"{found}'s" if found else f"not {owner}'s"
        report.problems.append(
            f"{call} calls the pre-push check, but git's pre-push hook ({hook}) is {what}: "
            f"nothing runs that call on a push; fix: {hookinstall.MANAGER_INSTALLS[owner]}"
        )
        report.manual += 1
        return
    runner = f", which {owner}'s pre-push hook runs" if owner else ""
    report.oks.append(f"the pre-push check is called from {call}{runner}")
    if owner == "pre-commit":
        report.notes.append(
            "doctor does not run pre-commit's own environment of the vcontext-history hook: "
            "git push --dry-run runs the hook and shows what it checks"
        )
        return
    ran = _hook_runs("git vcontext", top)
    if not ran:
        said = f" ({ran.why})" if ran.why else ""
        report.problems.append(
            f"{call} calls git vcontext, which does not run here{said}: install git-vcontext "
            "where that hook's PATH finds it"
        )
        report.manual += 1
        return
    if owner is not None:
        report.notes.append(
            f"doctor ran git vcontext's dry run on this PATH, not {owner}: that {owner} calls "
            "the check on a push, with this PATH, is not verified (git push --dry-run shows it)"
        )


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


def _same_file(one: Path, other: Path) -> bool:
    """Whether two paths name one existing file (a hooks folder reached through a link)."""
    try:
        return one.samefile(other)
    except OSError:
        return False


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _our_hook(top: Path, hook: Path, text: str, report: Report) -> None:
    if not permitted(hook, os.X_OK):
        report.problems.append(f"{hook} is not executable")
    elif not (runs := _hook_runs(hookinstall.hook_command(text), top)):
        said = f" ({runs.why})" if runs.why else ""
        report.problems.append(
            f"the pre-push hook's command does not run{said} (see {hook}; moved or "
            "uninstalled? run install again)"
        )
    else:
        report.oks.append("pre-push hook installed and runs")


def _hook_runs(command: str | None, top: Path) -> Ran:
    """Whether the hook's command runs its dry run (``PROBE``: it loads what a push's check
    loads and opens the repository, so a dependency it cannot import, or another Python, is
    found as a push would find it) with exit 0; an older command without the dry run
    answers an empty push (nothing to check)."""
    if not command:
        return Ran(False)
    try:
        argv = [*shlex.split(command), "hook", "pre-push"]
    except ValueError:
        return Ran(False, "the hook's command line does not read")
    proc = _run_pre_push([*argv, PROBE], top)
    if proc is not None and proc.returncode == 2 and PROBE.encode() in proc.stderr:
        proc = _run_pre_push([*argv, "doctor", "doctor"], top)  # an older hook's command
    if proc is None:
        return Ran(False)
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return Ran(proc.returncode == 0, lines[-1].strip() if lines else "")


def _run_pre_push(argv: list[str], top: Path) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(
            argv,
            cwd=top,
            input=b"",
            capture_output=True,
            env={k: v for k, v in os.environ.items() if not k.startswith("PRE_COMMIT_")},
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


# -- a bare repository: the guard and the integration ---------------------------------------


def _server(where: Path, report: Report) -> int:
    """doctor in the bare repository agents push to: the guard, the integration hook, and
    that its owner can write all of it."""
    folder = hookinstall.hooks_dir(where)
    _guard(folder, where, report)
    _integration(folder, where, report, setup.marked(where))
    _overrides(where, report)
    _agent_prefix(where, report)
    _unpack_limit(where, report)
    _server_ownership(where, report)
    return _print(report)


def _agent_prefix(where: Path, report: Report) -> None:
    """A ``vcontext.agentPrefix`` the commands refuse (``branches.agents.agent_prefix``, the
    guard's full check's own reading) makes the guard refuse every push."""
    from ..branches.agents import agent_prefix

    try:
        agent_prefix(open_repo(where))
    except UsageError as exc:
        report.problems.append(f"{exc.message}: the guard refuses every push here")


def _guard(folder: Path, where: Path, report: Report) -> None:
    hook = folder / "pre-receive"
    text = _read(hook)
    fix = "git vcontext install --server (--server --guard: the guard alone)"
    if hookinstall.HOOK_MARKER not in text:
        what = (
            "another tool's pre-receive hook is there" if hook.exists() else "no pre-receive guard"
        )
        report.problems.append(
            f"{what}: pushes here are not checked (a push made with --no-verify, or by a "
            f"client without git-vcontext, gets anything in); fix: {fix}"
        )
        return
    program = setup.hook_program(text)
    if program is None or not permitted(program, os.X_OK):
        report.problems.append(
            f"the guard's program {program or '(unreadable hook)'} is missing (moved or "
            "uninstalled?): every push is refused; fix: install git-vcontext on the server, "
            f"then {fix}"
        )
    elif not permitted(hook, os.X_OK):
        report.problems.append(f"{hook} is not executable: git does not run it; fix: {fix}")
    elif not (runs := _runs_guard(hook, text, where)):
        if runs is None:
            report.notes.append(_not_tried(hook, where))
            report.oks.append("pre-receive guard installed (its program is there)")
            return
        said = f" ({runs.why})" if runs.why else ""
        report.problems.append(
            f"the guard's command does not run{said} (see {hook}): every push is refused; "
            f"fix: {fix}"
        )
    else:
        legacy = folder / "pre-receive.legacy"
        after = f", after {legacy.name}" if legacy.exists() else ""
        report.oks.append(f"pre-receive guard installed and runs{after}: every push is checked")
    if setup.GUARD_FORM not in text:
        report.notes.append(
            f"{hook} is an older form of the guard (its Python loads site at every push, "
            f"some 4 ms of CPU each); {fix} writes the current one"
        )


def _runs_guard(hook: Path, text: str, where: Path) -> Ran | None:
    """The guard's dry run as a push starts it: the hook itself (``--probe``: its Python
    started as at a push, from the folders install recorded) for the current form; for
    an older one, the command it runs (``hook pre-receive --probe``)."""
    if setup.GUARD_FORM not in text:
        return _runs_hook(setup.hook_command(text, "pre-receive"), "pre-receive", where)
    owner = setup.owner_elsewhere(where)
    if owner is not None and os.geteuid() != 0:
        return None
    proc = _run_hook([str(hook.absolute()), PROBE], where, owner)
    if proc is None:
        return Ran(False)
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return Ran(proc.returncode == 0, lines[-1].strip() if lines else "")


def _overrides(where: Path, report: Report) -> None:
    """The guard's overrides left on: each lets pushes do what it otherwise refuses."""
    said = {
        "vcontext.guard.allowDelete": "pushes may delete the default branch",
        "vcontext.guard.allowServerRef": (
            f"pushes may delete or rewrite {setup.SERVER}, which agents' sync --push trusts"
        ),
    }
    from ..gitio.configread import flag

    for key, what in said.items():
        if flag(str(where), key):
            report.notes.append(f"{key} is true: {what} (git config --unset {key} ends that)")


UNPACK_LIMIT = 100  # git's default receive.unpackLimit (transfer.unpackLimit's too)


def _unpack_limit(where: Path, report: Report) -> None:
    """A note, never a problem: the owner's setting. A push of fewer objects than
    ``receive.unpackLimit`` (else ``transfer.unpackLimit``; a negative one counts as unset,
    as in receive-pack) is stored as loose objects, and every fetch of them compresses and
    deltifies them again: ``sync --push`` pushes a few objects at a time, and each agent
    fetches them."""
    from ..gitio.configread import value
    from ..gitvalues import git_int

    limit, held = UNPACK_LIMIT, "receive.unpackLimit"  # (git's default)
    for key in ("receive.unpackLimit", "transfer.unpackLimit"):
        said = value(str(where), key)
        number = None if said is None else git_int(said)
        if number is not None and number >= 0:
            limit, held = number, key
            break
    if limit > 1:
        report.notes.append(
            f"{held} is {limit}: a push of fewer objects is stored loose and every "
            "fetch packs it again; agents' sync --push pushes a few objects at a time: git "
            "config receive.unpackLimit 1 keeps each push as the pack it came in (server CPU "
            "-40 % in a soak of 16 agents x 25 rounds over HTTP)"
        )


def _integration(folder: Path, where: Path, report: Report, marked: bool) -> None:
    hook = folder / "post-receive"
    text = _read(hook)
    if hookinstall.HOOK_MARKER not in text:
        if marked:
            report.problems.append(
                "refs/vcontext/server says requests are merged here, but the post-receive "
                "hook is not installed: sync --push would wait for merges that never come; "
                "fix: git vcontext install --server (or git vcontext uninstall --server)"
            )
        else:
            report.notes.append(
                "no integration hook (post-receive): agents' sync --push integrates with its "
                "lease (git vcontext install --server adds the hook)"
            )
        return
    state = setup.mark_state(where)
    if state != "ok":
        said = (
            "is missing (deleted by a push?): agents' sync --push do not know that requests are "
            "merged here"
            if state == "missing"
            else "does not name the mark install --server writes (rewritten by a push?)"
        )
        report.problems.append(f"{setup.SERVER} {said}; fix: git vcontext install --server")
    runs = _runs_hook(setup.hook_command(text, "post-receive"), "post-receive", where)
    if runs is None:
        report.notes.append(_not_tried(hook, where))
        report.oks.append("integration hook (post-receive) installed")
    elif not runs:
        report.problems.append(
            f"the integration hook's command does not run (see {hook}): requests are not "
            "merged here; fix: git vcontext install --server"
        )
    else:
        report.oks.append("integration hook (post-receive) installed and runs")


class Ran:
    """How a hook's command answered: ``ok``, else ``why`` (its last line on stderr)."""

    def __init__(self, ok: bool, why: str = "") -> None:
        self.ok = ok
        self.why = why

    def __bool__(self) -> bool:
        return self.ok


PROBE = "--probe"
"""The guard's dry run (``hook pre-receive --probe``): it loads what a push makes it load
(pygit2 and the checker) and opens the repository, as at a push, and judges nothing."""


def _runs_hook(command: str | None, name: str, where: Path) -> Ran | None:
    """Whether a hook body answers an empty input (nothing pushed) with exit 0, run as the
    repository's owner (who runs it at every push); the guard runs its dry run (``PROBE``),
    so a dependency it cannot import is found as a push would find it. A command read from
    another user's hook is never run as someone else: root runs it as the owner (as
    ``install`` does); anyone else does not run it (None: not tried)."""
    if not command:
        return Ran(False)
    owner = setup.owner_elsewhere(where)
    if owner is not None and os.geteuid() != 0:
        return None
    try:
        argv = [*shlex.split(command), "hook", name]
    except ValueError:
        return Ran(False, "the hook's command line does not read")
    proc = _run_hook([*argv, PROBE] if name == "pre-receive" else argv, where, owner)
    if proc is not None and proc.returncode == 2 and PROBE.encode() in proc.stderr:
        proc = _run_hook(argv, where, owner)  # an older guard without the dry run
    if proc is None:
        return Ran(False)
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return Ran(proc.returncode == 0, lines[-1].strip() if lines else "")


def _run_hook(
    argv: list[str], where: Path, owner: setup.Owner | None
) -> subprocess.CompletedProcess[bytes] | None:
    try:
        if owner is None:
            return subprocess.run(argv, cwd=where, input=b"", capture_output=True, timeout=30)
        return subprocess.run(
            argv, cwd=where, input=b"", capture_output=True, timeout=30,
            user=owner.uid, group=owner.gid, extra_groups=[], env=setup.owner_env(owner),
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None


def _not_tried(hook: Path, where: Path) -> str:
    """Why doctor did not run a server hook's command: it is another user's."""
    owner = setup.owner_elsewhere(where)
    name = owner.name if owner is not None else "its owner"
    return (
        f"{hook}'s command was not run: the repository is {name}'s, and doctor runs no other "
        f"user's command; run doctor as {name} (or as root, which runs it as {name}) to try it"
    )


def _console_script(report: Report) -> None:
    """The console script, when the system cannot start it by its first line (a virtual
    environment whose path holds a space): ``git vcontext`` typed fails."""
    report.unstartable = script = installer.unstartable_script()
    if script is not None:
        report.problems.append(
            f"{script} cannot start: its first line, its Python's path, holds a space the "
            "system cuts it at, so 'git vcontext' fails (git: \"Maybe git-vcontext is "
            f'broken?"); fix: {_install(report)} (rewrites it to start through /bin/sh)'
        )


CHECKS = (_driver, _virtual_base, _diff, _mergetool, _attributes, _hook, _octopus)
