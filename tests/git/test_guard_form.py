"""The guard's installed form (issue 28, "it must not slow sync --push down"): the
pre-receive hook ``install --server`` writes starts the guard's Python without ``site``
(``-S -P``), importing from the folders the installing Python found git-vcontext and its
dependencies in. Tested as a server runs it: a real bare repository, real ``git push
--no-verify``; a guard that cannot import its package refuses in one line; ``doctor``
recognises the older form (which runs the console script) and ``install --server``
upgrades it (PRODUCT.md "The remote guards itself")."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import git_vcontext
from git_vcontext.setup.server import BOOT, GUARD_FORM, import_paths
from helpers.guard import clone_with_base, guard_program, guarded_remote, refs, remote_lines, sneak
from helpers.pre_push import PLAYBOOK, commit, event, playbook, write
from helpers.run import cli_path, run_cli

PACKAGE = str(Path(git_vcontext.__file__).resolve().parents[1])

OLD_FORM = (Path(__file__).parents[1] / "examples" / "hooks" / "pre-receive.form1").read_text()
"""The guard as installs before the current form wrote it (``"@GIT_VCONTEXT@"``: the
console script, started with ``site``)."""


@pytest.fixture(autouse=True)
def _no_pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard imports from what install recorded, not from a PYTHONPATH of the test's."""
    monkeypatch.delenv("PYTHONPATH", raising=False)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path, "--guard")


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    return clone_with_base(remote, tmp_path / "clone", hook=False)


def _old_form(remote: Path) -> Path:
    """The guard of an older install, in place of the current one."""
    hook = remote / "hooks" / "pre-receive"
    command = shlex.join(cli_path())
    text = OLD_FORM.replace('"@GIT_VCONTEXT@"', command)
    hook.write_text(text.replace('"@GIT_VCONTEXT_PROGRAM@"', shlex.quote(cli_path()[0])))
    return hook


def test_install_server_writes_a_guard_that_starts_python_without_site(remote: Path) -> None:
    text = (remote / "hooks" / "pre-receive").read_text()
    assert GUARD_FORM in text
    assert '"$PROGRAM" -S -P -c ' in text
    assert PACKAGE in text  # the folder install found the package in
    assert Path(guard_program(text)).samefile(sys.executable)
    assert "'" not in BOOT  # it goes between the shim's single quotes as it is
    assert PACKAGE in import_paths()


def test_the_guard_without_site_checks_a_no_verify_push(
    repo: Path, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A good push lands, a push dropping an event is refused with its finding; the guard's
    Python loads no ``site`` (a ``sitecustomize`` on its path is not run)."""
    spy = tmp_path / "site-spy"
    spy.mkdir()
    ran = tmp_path / "site-ran"
    (spy / "sitecustomize.py").write_text(f"open({str(ran)!r}, 'w').close()\n")
    monkeypatch.setenv("PYTHONPATH", str(spy))
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")

    good = sneak(repo, "origin", "main")

    assert good.returncode == 0, good.stderr
    assert not ran.exists()  # started with -S
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e3", "3")))
    commit(repo, "drop e2")
    before = refs(remote)
    bad = sneak(repo, "origin", "main")
    assert bad.returncode != 0
    assert any(line.endswith("[history-event-removed]") for line in remote_lines(bad.stderr))
    assert refs(remote) == before


def test_a_guard_that_cannot_import_its_package_refuses_in_one_line_and_doctor_says_why(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    hook = remote / "hooks" / "pre-receive"
    gone = str(tmp_path / "uninstalled")
    hook.write_text(hook.read_text().replace(PACKAGE, gone))
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a good commit")
    before = refs(remote)

    proc = sneak(repo, "origin", "main")

    assert proc.returncode != 0
    said = [line for line in remote_lines(proc.stderr) if line]
    assert len(said) == 1, proc.stderr
    assert "could not run" in said[0]
    assert "refused" in said[0]
    assert "git_vcontext" in said[0]
    assert gone in said[0]
    assert "Traceback" not in proc.stderr
    assert refs(remote) == before

    doctor = run_cli("doctor", cwd=remote)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1, out
    problem = [line for line in out.splitlines() if line.startswith("problem:")]
    assert any("git_vcontext" in line and "pre-receive" in line for line in problem), out
    assert "guard installed and runs" not in out


def test_doctor_says_an_older_guard_is_outdated_and_install_server_upgrades_it(
    repo: Path, remote: Path
) -> None:
    current = run_cli("doctor", cwd=remote)
    assert current.returncode == 0, current.stdout.decode()
    assert "older form" not in current.stdout.decode()
    hook = _old_form(remote)
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    commit(repo, "a third lesson")
    assert sneak(repo, "origin", "main").returncode == 0  # the older form still guards

    said = run_cli("doctor", cwd=remote)

    out = said.stdout.decode()
    assert said.returncode == 0, out  # it works: a note, not a problem
    assert "guard installed and runs" in out
    note = [line for line in out.splitlines() if "older form" in line]
    assert note, out
    assert note[0].startswith("note:"), out
    assert "install --server" in note[0], out

    again = run_cli("install", "--server", "--guard", cwd=remote)

    assert again.returncode == 0, again.stderr.decode()
    assert b"installed" in again.stdout
    assert GUARD_FORM in hook.read_text()
    assert "older form" not in run_cli("doctor", cwd=remote).stdout.decode()


def test_uninstall_server_removes_an_older_guard_too(remote: Path) -> None:
    hook = _old_form(remote)
    done = run_cli("uninstall", "--server", cwd=remote)
    assert done.returncode == 0, done.stderr.decode()
    assert not hook.exists()


def test_recorded_folders_with_spaces_and_quotes_reach_the_guard_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder install records is passed to the guard's Python as one argument whatever
    its name (the shim quotes it): the guard's own line names it whole when it cannot
    import from it."""
    odd = tmp_path / 'it\'s a "folder" $HOME'
    odd.mkdir()
    monkeypatch.setenv("PYTHONPATH", str(odd))  # recorded, as PYTHONPATH entries are
    remote = guarded_remote(tmp_path, "--guard")
    hook = remote / "hooks" / "pre-receive"
    assert run_cli("doctor", cwd=remote).returncode == 0
    hook.write_text(hook.read_text().replace(PACKAGE, str(tmp_path / "gone")))
    monkeypatch.delenv("PYTHONPATH")

    probe = subprocess.run([str(hook), "--probe"], cwd=remote, capture_output=True, text=True)

    assert probe.returncode == 3, probe.stderr
    assert probe.stderr.count("\n") == 1, probe.stderr
    assert repr(str(odd)) in probe.stderr  # the folder's name, whole
