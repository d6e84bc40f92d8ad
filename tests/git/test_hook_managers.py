"""PRODUCT.md "Installing never breaks git": our pre-push hook chains with pre-commit (the real
package), lefthook, husky and a plain hook in every order: a push ends, each hook runs once,
and ``doctor`` walks the chain dry and names a loop."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.run import run_cli, run_git

HOOKS = Path(".git") / "hooks"
PRE_COMMIT_CONFIG = """\
repos:
- repo: local
  hooks:
  - id: mark
    name: mark
    entry: sh -c 'echo pre-commit-ran >> "$0"' {marks}
    language: system
    stages: [pre-push]
    pass_filenames: false
    always_run: true
"""


def _env() -> dict[str, str]:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path}


def _pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("pre_commit", reason="pre-commit is in the test extras")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )


def _todo(status: str) -> str:
    items = [{"id": "t1", "title": "One", "status": status}]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}})


@pytest.fixture
def pushing(git_repo: Path, tmp_path: Path) -> Path:
    """A repository with a bare remote and pre-commit's configuration committed."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))
    run_git(git_repo, "remote", "add", "origin", str(remote))
    (git_repo / ".pre-commit-config.yaml").write_text(
        PRE_COMMIT_CONFIG.format(marks=tmp_path / "pre-commit-marks.txt")
    )
    (git_repo / "todo.vcontext.json").write_text(_todo("pending"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    return git_repo


def _plain_hook(repo: Path) -> Path:
    """A hand-written pre-push hook that notes each run."""
    marks = repo.parent / "plain-marks.txt"
    hook = repo / HOOKS / "pre-push"
    hook.write_text(f'#!/bin/sh\ncat >/dev/null\necho plain-ran >> "{marks}"\n')
    hook.chmod(0o755)
    return marks


def _push(repo: Path, status: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """Commit a document with ``status`` and push it; the push must end within 30 s."""
    (repo / "todo.vcontext.json").write_text(_todo(status))
    run_git(repo, "commit", "-q", "-am", f"status {status}")
    start = time.monotonic()
    proc = subprocess.run(
        ["git", "push", "-q", "origin", "HEAD:main"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=30,
    )
    return proc, time.monotonic() - start


def _runs(marks: Path) -> int:
    return len(marks.read_text().splitlines()) if marks.exists() else 0


def _install(repo: Path) -> str:
    done = run_cli("install", cwd=repo, env={"PATH": _env()["PATH"]})
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


ORDERS = {
    "pre-commit after us": ["ours", "pre-commit"],
    "pre-commit before us": ["pre-commit", "ours"],
    "pre-commit, us, pre-commit again": ["pre-commit", "ours", "pre-commit"],
    "us, pre-commit, us again": ["ours", "pre-commit", "ours"],
    "each twice": ["ours", "pre-commit", "ours", "pre-commit"],
    "us, pre-commit --overwrite, us again": ["ours", "pre-commit --overwrite", "ours"],
    "pre-commit --overwrite before us": ["pre-commit --overwrite", "ours"],
}


CASES = [(order, plain) for order in ORDERS for plain in (False, True)]
# --overwrite: pre-commit deletes the hook it finds, as asked (without us too)
CASES.remove(("pre-commit --overwrite before us", True))


@pytest.mark.parametrize(
    ("order", "plain"), CASES, ids=[o + (", a plain hook first" if p else "") for o, p in CASES]
)
def test_installing_never_breaks_git_pre_commit_in_every_order_runs_each_hook_once(
    pushing: Path, order: str, plain: bool
) -> None:
    """Issue 35: pre-commit after us made a push fork ``sh`` for ever (our shim, renamed to
    pre-push.legacy, ran pre-push.legacy: itself); before us every push failed
    ('installed in migration mode'); pre-commit, us, pre-commit again lost a plain hook
    (pre-commit moved ours onto pre-push.legacy, where it had kept the plain one)."""
    plain_marks = _plain_hook(pushing) if plain else None
    _in_order(pushing, ORDERS[order])
    marks = pushing.parent / "pre-commit-marks.txt"
    doctor = run_cli("doctor", cwd=pushing)
    assert b"problem" not in doctor.stdout, doctor.stdout
    assert b"pre-push hooks run in turn:" in doctor.stdout

    good, seconds = _push(pushing, "completed")
    assert good.returncode == 0, good.stderr
    assert seconds < 30
    assert _runs(marks) == 1
    if plain_marks is not None:
        assert _runs(plain_marks) == 1

    bad, _ = _push(pushing, "done")  # not a status: our check refuses, once
    assert bad.returncode != 0
    assert bad.stderr.count("[schema]") == 1, bad.stderr
    assert _runs(marks) == 2
    if plain_marks is not None:
        assert _runs(plain_marks) == 2


def _in_order(repo: Path, steps: list[str]) -> None:
    for step in steps:
        if step == "ours":
            _install(repo)
        else:
            flags = step.split()[1:]
            done = _pre_commit(repo, "install", "--hook-type", "pre-push", *flags)
            assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("gone", ["ours", "pre-commit"])
@pytest.mark.parametrize(
    ("order", "plain"), CASES, ids=[o + (", a plain hook" if p else "") for o, p in CASES]
)
def test_installing_never_breaks_git_uninstalling_either_leaves_the_others_working(
    pushing: Path, order: str, plain: bool, gone: str
) -> None:
    """After any order, ``git vcontext uninstall`` or ``pre-commit uninstall``: a push ends,
    the hooks left run once each (our uninstall left the plain hook, kept under our name,
    run by nobody when pre-commit ran ours as its legacy hook)."""
    plain_marks = _plain_hook(pushing) if plain else None
    _in_order(pushing, ORDERS[order])
    if gone == "ours":
        assert run_cli("uninstall", cwd=pushing).returncode == 0
    else:
        done = _pre_commit(pushing, "uninstall", "--hook-type", "pre-push")
        assert done.returncode == 0, done.stdout + done.stderr
    marks = pushing.parent / "pre-commit-marks.txt"
    pushed, seconds = _push(pushing, "done")  # refused by our check only while it is there
    assert seconds < 30
    assert (pushed.returncode == 0) == (gone == "ours"), pushed.stderr
    assert pushed.stderr.count("[schema]") == (gone != "ours")
    assert _runs(marks) == (gone != "pre-commit")
    if plain_marks is not None:
        assert _runs(plain_marks) == 1


def test_installing_never_breaks_git_doctor_names_the_loop_an_earlier_install_made(
    pushing: Path,
) -> None:
    """The state issue 35 measured (an earlier shim as pre-commit's pre-push.legacy, which
    runs itself): doctor finds it without running anything; install repairs it."""
    _install(pushing)
    hook = pushing / HOOKS / "pre-push"
    old = hook.read_text().replace("pre-push.before-vcontext", "pre-push.legacy")
    old = old.replace('CHAINED="$(dirname "$0")/pre-push.legacy"', 'HERE=$(dirname "$0")')
    old = old.replace('"$CHAINED"', '"$HERE/pre-push.legacy"')
    hook.write_text(old)
    done = _pre_commit(pushing, "install", "--hook-type", "pre-push")
    assert done.returncode == 0
    start = time.monotonic()
    doctor = run_cli("doctor", cwd=pushing)
    assert time.monotonic() - start < 30
    assert doctor.returncode == 1
    out = doctor.stdout.decode()
    assert "problem: the pre-push hooks run each other in a loop" in out, out
    assert "pre-push (pre-commit) → pre-push.legacy (git-vcontext, an earlier install's)" in out
    assert "fix: git vcontext install" in out
    assert "updated" in _install(pushing)
    assert run_cli("doctor", cwd=pushing).returncode == 0
    good, _ = _push(pushing, "completed")
    assert good.returncode == 0, good.stderr


def test_installing_never_breaks_git_an_earlier_installs_legacy_name_is_migrated(
    pushing: Path,
) -> None:
    """An earlier install kept a user's hook as pre-push.legacy: install again moves it to
    our own name, and it still runs first."""
    plain_marks = _plain_hook(pushing)
    hook = pushing / HOOKS / "pre-push"
    hook.replace(pushing / HOOKS / "pre-push.legacy")
    _install(pushing)
    assert (pushing / HOOKS / "pre-push.legacy").exists()  # a fresh shim does not run it
    (pushing / HOOKS / "pre-push.before-vcontext").unlink(missing_ok=True)
    shutil.move(pushing / HOOKS / "pre-push", pushing.parent / "ours")
    hook.write_text((pushing.parent / "ours").read_text())
    hook.chmod(0o755)
    assert "moved pre-push.legacy to pre-push.before-vcontext" in _install(pushing)
    good, _ = _push(pushing, "completed")
    assert good.returncode == 0, good.stderr
    assert _runs(plain_marks) == 1
    assert run_cli("uninstall", cwd=pushing).returncode == 0
    assert "plain-ran" in hook.read_text()  # the user's hook is back where it was


def test_installing_never_breaks_git_a_failed_install_after_pre_commit_keeps_your_hook_running(
    pushing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pre-commit kept your hook as pre-push.legacy; our install moves it aside to put ours
    there. When writing ours fails (a full disk), your hook must still be what pre-commit
    runs: it used to sit unrun as pre-push.before-vcontext."""
    from git_vcontext.setup import hooks

    plain_marks = _plain_hook(pushing)
    assert _pre_commit(pushing, "install", "-t", "pre-push").returncode == 0
    legacy = pushing / HOOKS / "pre-push.legacy"
    assert "plain-ran" in legacy.read_text()

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        hooks.install(pushing, "git-vcontext", force=False)
    monkeypatch.undo()
    assert "plain-ran" in legacy.read_text()
    assert not (pushing / HOOKS / "pre-push.before-vcontext").exists()
    good, _ = _push(pushing, "completed")
    assert good.returncode == 0, good.stderr
    assert _runs(plain_marks) == 1  # pre-commit ran yours
    assert "pre-commit kept" in _install(pushing)  # and the next install adopts it
    good, _ = _push(pushing, "pending")
    assert good.returncode == 0, good.stderr
    assert _runs(plain_marks) == 2


def test_installing_never_breaks_git_a_linked_hook_pre_commit_kept_is_left_as_it_is(
    pushing: Path,
) -> None:
    """Your pre-push is a symbolic link to a script the team tracks; pre-commit keeps the
    link as pre-push.legacy. Our install moves the link, never writes through it: the
    tracked script stays yours (review: it became our shim, and your hook never ran)."""
    marks = pushing.parent / "team-marks.txt"
    script = pushing / "scripts" / "pre-push"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\ncat >/dev/null\necho team-ran >> "{marks}"\n')
    script.chmod(0o755)
    run_git(pushing, "add", "scripts")
    run_git(pushing, "commit", "-q", "-m", "the team's hook")
    (pushing / HOOKS / "pre-push").symlink_to(Path("..", "..", "scripts", "pre-push"))
    assert _pre_commit(pushing, "install", "-t", "pre-push").returncode == 0
    assert (pushing / HOOKS / "pre-push.legacy").is_symlink()
    tracked = script.read_bytes()

    assert "pre-commit kept" in _install(pushing)

    assert script.read_bytes() == tracked
    assert "scripts/" not in run_git(pushing, "status", "--porcelain").stdout
    good, _ = _push(pushing, "completed")
    assert good.returncode == 0, good.stderr
    assert _runs(marks) == 1


def test_installing_never_breaks_git_uninstall_takes_ours_out_of_pre_commits_chain(
    pushing: Path,
) -> None:
    _install(pushing)
    _pre_commit(pushing, "install", "--hook-type", "pre-push")
    assert run_cli("uninstall", cwd=pushing).returncode == 0
    assert not (pushing / HOOKS / "pre-push.legacy").exists()
    good, _ = _push(pushing, "done")  # nothing of ours left to refuse it
    assert good.returncode == 0, good.stderr
    assert _runs(pushing.parent / "pre-commit-marks.txt") == 1


def _lefthook() -> str:
    """The lefthook binary (``npm install lefthook`` in $HOOK_TOOLS_DIR), else skip."""
    base = os.environ.get("HOOK_TOOLS_DIR") or os.environ.get("HUSKY_DIR")
    exe = Path(base) / "node_modules" / ".bin" / "lefthook" if base else None
    if exe is None or not exe.exists():
        pytest.skip("lefthook not available: needs HOOK_TOOLS_DIR/node_modules/.bin/lefthook")
    return str(exe)


LEFTHOOK = """\
pre-push:
  commands:
    mark:
      run: echo lefthook-ran >> {marks}
"""


def test_installing_never_breaks_git_lefthook_before_us_gets_advice_that_works(
    pushing: Path,
) -> None:
    """lefthook renames a hook it did not write (to pre-push.old) and never runs it, so
    install says what to add to lefthook.yml; added, the push is checked."""
    lefthook = _lefthook()
    marks = pushing.parent / "lefthook-marks.txt"
    (pushing / "lefthook.yml").write_text(LEFTHOOK.format(marks=marks))
    subprocess.run([lefthook, "install"], cwd=pushing, check=True, capture_output=True)
    out = _install(pushing)
    assert "except the pre-push hook" in out
    advice = [ln[2:] for ln in out.splitlines() if ln.startswith("    ")]
    assert "run: git vcontext hook pre-push {1} {2}" in "\n".join(advice)
    (pushing / "lefthook.yml").write_text(
        LEFTHOOK.format(marks=marks)
        + "    vcontext:\n      run: git vcontext hook pre-push {1} {2}\n      use_stdin: true\n"
    )
    run_git(pushing, "add", "-A")
    run_git(pushing, "commit", "-q", "-m", "lefthook")
    assert b"the pre-push check is called from" in run_cli("doctor", cwd=pushing).stdout
    bad, _ = _push(pushing, "done")
    assert bad.returncode != 0
    assert "[schema]" in bad.stderr + bad.stdout
    assert _runs(marks) == 1


def test_installing_never_breaks_git_lefthook_after_us_is_named_by_doctor(pushing: Path) -> None:
    lefthook = _lefthook()
    _install(pushing)
    (pushing / "lefthook.yml").write_text(LEFTHOOK.format(marks=pushing.parent / "m.txt"))
    subprocess.run([lefthook, "install"], cwd=pushing, check=True, capture_output=True)
    doctor = run_cli("doctor", cwd=pushing)
    assert doctor.returncode == 1
    out = doctor.stdout.decode()
    assert "our pre-push hook is kept as pre-push.old, which no hook runs" in out, out
    good, _ = _push(pushing, "completed")
    assert good.returncode == 0


def _husky() -> Path:
    base = os.environ.get("HUSKY_DIR") or os.environ.get("HOOK_TOOLS_DIR")
    script = Path(base) / "node_modules" / "husky" / "bin.js" if base else None
    if script is None or not script.is_file() or shutil.which("node") is None:
        pytest.skip("husky not available: needs node and HUSKY_DIR/node_modules/husky")
    return script


def test_installing_never_breaks_git_husky_after_us_is_named_by_doctor(pushing: Path) -> None:
    """husky sets core.hooksPath: git no longer runs .git/hooks; doctor says where the line
    goes, and pushes go on (husky's hooks only)."""
    _install(pushing)
    subprocess.run(["node", str(_husky())], cwd=pushing, check=True, capture_output=True)
    (pushing / ".husky" / "pre-commit").unlink(missing_ok=True)  # husky init's `npm test`
    doctor = run_cli("doctor", cwd=pushing)
    assert doctor.returncode == 1
    assert b"pre-push hook not installed (core.hooksPath is" in doctor.stdout
    good, _ = _push(pushing, "done")
    assert good.returncode == 0, good.stderr  # unchecked, as husky's setup says
    (pushing / ".husky" / "pre-push").write_text('git vcontext hook pre-push "$@"\n')
    assert b"the pre-push check is called from" in run_cli("doctor", cwd=pushing).stdout
    bad, _ = _push(pushing, "done again")
    assert bad.returncode != 0
    assert "[schema]" in bad.stderr


def test_installing_never_breaks_git_husky_before_us_gets_advice_that_works(
    pushing: Path,
) -> None:
    """husky first (core.hooksPath=.husky/_): install leaves husky's folder alone and says
    which line goes where; with it, a push is checked once and husky's own hook runs."""
    subprocess.run(["node", str(_husky())], cwd=pushing, check=True, capture_output=True)
    (pushing / ".husky" / "pre-commit").unlink(missing_ok=True)  # husky init's `npm test`
    marks = pushing.parent / "husky-marks.txt"
    (pushing / ".husky" / "pre-push").write_text(f'echo husky-ran >> "{marks}"\n')
    out = _install(pushing)
    assert "Add this line to .husky/pre-push" in out, out
    assert not (pushing / ".husky" / "_" / "pre-push.before-vcontext").exists()
    with (pushing / ".husky" / "pre-push").open("a") as fh:
        fh.write('git vcontext hook pre-push "$@"\n')
    bad, seconds = _push(pushing, "done")
    assert seconds < 30
    assert bad.returncode != 0
    assert bad.stderr.count("[schema]") == 1, bad.stderr
    assert _runs(marks) == 1
    run_git(pushing, "reset", "-q", "--hard", "HEAD~1")
    good, _ = _push(pushing, "completed")
    assert good.returncode == 0, good.stderr
    assert _runs(marks) == 2


@pytest.mark.parametrize("manager", ["husky", "lefthook"])
def test_install_idempotent_once_the_advised_line_is_in_the_managers_file(
    pushing: Path, manager: str
) -> None:
    """install is idempotent (command-line contract): once the line its advice names is in
    the hook manager's file (doctor: 'the pre-push check is called from …'), running
    install again says so instead of repeating 'not installed … Add this line'."""
    if manager == "husky":
        subprocess.run(["node", str(_husky())], cwd=pushing, check=True, capture_output=True)
        (pushing / ".husky" / "pre-commit").unlink(missing_ok=True)
        assert "Add this line to .husky/pre-push" in _install(pushing)
        (pushing / ".husky" / "pre-push").write_text('git vcontext hook pre-push "$@"\n')
        called_from = ".husky/pre-push"
    else:
        lefthook = _lefthook()
        marks = pushing.parent / "lefthook-marks.txt"
        (pushing / "lefthook.yml").write_text(LEFTHOOK.format(marks=marks))
        subprocess.run([lefthook, "install"], cwd=pushing, check=True, capture_output=True)
        assert "except the pre-push hook" in _install(pushing)
        (pushing / "lefthook.yml").write_text(
            LEFTHOOK.format(marks=marks)
            + "    vcontext:\n      run: git vcontext hook pre-push {1} {2}\n"
            "      use_stdin: true\n"
        )
        called_from = "lefthook.yml"
    assert b"the pre-push check is called from" in run_cli("doctor", cwd=pushing).stdout
    again = _install(pushing)
    assert "except the pre-push hook" not in again, again
    assert "not installed" not in again, again
    assert f"kept {called_from}: the pre-push check is called from it" in again, again
    assert "(nothing to change)" in again, again


CALLED = "    vcontext:\n      run: git vcontext hook pre-push {1} {2}\n      use_stdin: true\n"


def test_doctor_names_a_managers_call_no_hook_runs(pushing: Path) -> None:
    """lefthook.yml calls the check but lefthook never installed its hook (a fresh clone):
    nothing runs on a push, and doctor says so, with the manager's own fix, instead of ok."""
    (pushing / "lefthook.yml").write_text("pre-push:\n  commands:\n" + CALLED)
    assert run_cli("install", "--no-hooks", cwd=pushing).returncode == 0
    doctor = run_cli("doctor", cwd=pushing)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1, out
    assert "lefthook.yml calls the pre-push check, but git's pre-push hook" in out
    assert "is missing: nothing runs that call on a push; fix: lefthook install" in out
    assert "1 problem(s); each says what to do" in out
    good, _ = _push(pushing, "done")  # indeed unchecked: the invalid status goes through
    assert good.returncode == 0, good.stderr


def test_doctor_says_what_it_cannot_verify_of_a_managers_call(pushing: Path) -> None:
    """With lefthook's hook installed, doctor probes the git vcontext the call names, and says
    in one line what it does not verify (lefthook running it on a push)."""
    lefthook = _lefthook()
    (pushing / "lefthook.yml").write_text("pre-push:\n  commands:\n" + CALLED)
    subprocess.run([lefthook, "install"], cwd=pushing, check=True, capture_output=True)
    _install(pushing)
    doctor = run_cli("doctor", cwd=pushing)
    out = doctor.stdout.decode()
    assert doctor.returncode == 0, out
    assert "lefthook.yml, which lefthook's pre-push hook runs" in out
    notes = [line for line in out.splitlines() if "is not verified" in line]
    assert notes == [
        "note: doctor ran git vcontext's dry run on this PATH, not lefthook: that lefthook "
        "calls the check on a push, with this PATH, is not verified (git push --dry-run "
        "shows it)"
    ]
    bad, _ = _push(pushing, "done")
    assert bad.returncode != 0
    assert "[schema]" in bad.stderr + bad.stdout


def test_doctor_names_the_husky_call_without_huskys_hooks_path(pushing: Path) -> None:
    """.husky/pre-push holds the call, but husky was never set up in this clone (no
    core.hooksPath): doctor says nothing runs it and how husky puts its hooks in place."""
    (pushing / ".husky").mkdir()
    (pushing / ".husky" / "pre-push").write_text('git vcontext hook pre-push "$@"\n')
    assert run_cli("install", "--no-hooks", cwd=pushing).returncode == 0
    doctor = run_cli("doctor", cwd=pushing)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1, out
    assert "1 problem(s); each says what to do" in out
    assert "fix: npx husky (it sets core.hooksPath to .husky/_)" in out


def test_doctor_on_pre_commits_vcontext_history_hook_says_what_it_cannot_run(
    pushing: Path,
) -> None:
    """.pre-commit-config.yaml names the vcontext-history hook: without pre-commit's pre-push
    hook installed nothing runs it (doctor says the fix); with it, doctor says it does not
    run pre-commit's own environment, and how to see the hook run."""
    (pushing / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: vcontext-history\n    name: vcontext\n"
        "    entry: git vcontext hook pre-push\n    language: system\n    stages: [pre-push]\n"
        "    pass_filenames: false\n    always_run: true\n"
    )
    assert run_cli("install", "--no-hooks", cwd=pushing).returncode == 0
    missing = run_cli("doctor", cwd=pushing).stdout.decode()
    assert "fix: pre-commit install --hook-type pre-push" in missing, missing
    assert _pre_commit(pushing, "install", "--hook-type", "pre-push").returncode == 0
    doctor = run_cli("doctor", cwd=pushing)
    out = doctor.stdout.decode()
    assert doctor.returncode == 0, out
    assert ".pre-commit-config.yaml, which pre-commit's pre-push hook runs" in out
    assert "note: doctor does not run pre-commit's own environment" in out


def test_doctor_a_call_in_the_hook_git_runs_itself_is_ok(pushing: Path) -> None:
    """core.hooksPath set to .husky by hand (no husky): git runs .husky/pre-push itself, so
    its call to the check runs on a push; doctor said it was 'not husky's: nothing runs that
    call'."""
    hook = pushing / ".husky" / "pre-push"
    hook.parent.mkdir()
    hook.write_text('#!/bin/sh\ngit vcontext hook pre-push "$@"\n')
    hook.chmod(0o755)
    run_git(pushing, "config", "core.hooksPath", ".husky")
    assert run_cli("install", "--no-hooks", cwd=pushing).returncode == 0
    doctor = run_cli("doctor", cwd=pushing, env={"PATH": _env()["PATH"]})
    out = doctor.stdout.decode()
    assert doctor.returncode == 0, out
    assert "nothing runs that call" not in out
    assert f"the pre-push check is called from {hook}" in out
    bad, _ = _push(pushing, "done")  # git runs that file: the invalid status is refused
    assert bad.returncode != 0
    assert "[schema]" in bad.stderr + bad.stdout
    hook.chmod(0o644)  # git skips a hook that is not executable: doctor says so
    skipped = run_cli("doctor", cwd=pushing, env={"PATH": _env()["PATH"]}).stdout.decode()
    assert f"{hook} calls the pre-push check, but it is not executable" in skipped, skipped


def test_doctor_a_pre_commit_hook_whose_python_path_says_husky_is_pre_commits(
    pushing: Path, tmp_path: Path
) -> None:
    """pre-commit's hook names the Python that installed it (INSTALL_PYTHON): a path holding
    'husky' (a venv at /tmp/husky-tools) made doctor call the hook husky's and the call in
    .pre-commit-config.yaml one nothing runs."""
    (pushing / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: vcontext-history\n    name: vcontext\n"
        "    entry: git vcontext hook pre-push\n    language: system\n    stages: [pre-push]\n"
        "    pass_filenames: false\n    always_run: true\n"
    )
    pytest.importorskip("pre_commit", reason="pre-commit is in the test extras")
    venv = tmp_path / "husky-tools"
    venv.symlink_to(Path(sys.prefix), target_is_directory=True)
    python = venv / "bin" / Path(sys.executable).name
    installed = subprocess.run(
        [str(python), "-m", "pre_commit", "install", "--hook-type", "pre-push"],
        cwd=pushing,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert installed.returncode == 0, installed.stderr
    hook_text = (pushing / HOOKS / "pre-push").read_text()
    assert "husky-tools" in hook_text
    assert "generated by pre-commit" in hook_text.lower()
    assert run_cli("install", "--no-hooks", cwd=pushing).returncode == 0
    doctor = run_cli("doctor", cwd=pushing)
    out = doctor.stdout.decode()
    assert doctor.returncode == 0, out
    assert ".pre-commit-config.yaml, which pre-commit's pre-push hook runs" in out
