"""The command-line contract: every command registered with --help, exit codes, error boundary."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from git_vcontext.boundary import boundary
from git_vcontext.cli import cli
from git_vcontext.errors import ExitCode, OperationalError, ParseError, UsageError
from helpers.run import cli_path, run_cli

COMMANDS = [
    ["install"],
    ["uninstall"],
    ["doctor"],
    ["merge-driver"],
    ["merge"],
    ["diff"],
    ["textconv"],
    ["log"],
    ["blame"],
    ["validate"],
    ["hook", "pre-push"],
    ["view"],
    ["convert"],
    ["fork"],
    ["sync"],
    ["status"],
    ["demo"],
    ["playbook", "add"],
    ["playbook", "update"],
    ["playbook", "deprecate"],
    ["ace", "apply"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_of_the_contract_has_help(command: list[str]) -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage: " in result.output


def test_help_and_version_from_the_installed_script() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert b"convert" in proc.stdout
    assert b"merge-driver" in proc.stdout
    assert run_cli("--version").stdout.startswith(b"git-vcontext, version")


def test_usage_errors_exit_2_with_a_message() -> None:
    proc = run_cli("convert")
    assert proc.returncode == ExitCode.USAGE
    assert b"Missing argument" in proc.stderr
    assert run_cli("no-such-command").returncode == ExitCode.USAGE
    assert run_cli("convert", "x.json", "--to", "yaml").returncode == ExitCode.USAGE


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (OperationalError("not a git repository"), ExitCode.OPERATIONAL),
        (UsageError("bad"), ExitCode.USAGE),
        (ParseError("broken", path="a.json", line=1, column=2), ExitCode.FOUND),
        (KeyboardInterrupt(), ExitCode.INTERRUPTED),
        (RuntimeError("bug"), ExitCode.OPERATIONAL),
    ],
)
def test_the_boundary_maps_errors_to_exit_codes_and_one_line(
    error: BaseException, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    def fail() -> int:
        raise error

    assert boundary(fail) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (PermissionError(13, "Permission denied", "/r/.gitattributes"), "Permission denied"),
        (OSError(30, "Read-only file system", "/mnt/r/todo.json"), "Read-only file system"),
    ],
)
def test_the_file_system_saying_no_is_an_error_not_a_bug(
    error: OSError, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Permissions and read-only mounts are the user's environment: exit 3 with the file
    and the system's reason, never "internal error"."""

    def fail() -> int:
        raise error

    assert boundary(fail) == ExitCode.OPERATIONAL
    assert capsys.readouterr().err == (
        f"git-vcontext: error: {error.filename}: {said} (for this user)\n"
    )


def test_parse_errors_name_file_line_and_column(capsys: pytest.CaptureFixture[str]) -> None:
    def fail() -> int:
        raise ParseError("invalid JSON: Expecting value", path="a b.json", line=3, column=7)

    boundary(fail)
    assert (
        capsys.readouterr().err
        == "git-vcontext: error: a b.json:3:7: invalid JSON: Expecting value\n"
    )


def test_ctrl_c_inside_a_click_command_exits_130_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Click turns Ctrl-C into Abort (after printing an empty line): still exit 130, one line."""
    from git_vcontext import cli as cli_module
    from git_vcontext.commands import status

    def interrupted(**_: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(status, "run", interrupted)
    assert cli_module.main(["status"]) == ExitCode.INTERRUPTED
    err = capsys.readouterr().err
    assert "interrupted" in err
    assert "Traceback" not in err


def test_ctrl_c_while_modules_load_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C can land while cli.py and click import, before the boundary is set up."""
    import sys
    import types

    from git_vcontext import entry

    class Loading(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "git_vcontext.cli", Loading("git_vcontext.cli"))
    assert entry.main(["status"]) == ExitCode.INTERRUPTED
    err = capsys.readouterr().err
    assert err == "git-vcontext: interrupted\n"


def _leaf_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += _leaf_commands(command, f"{prefix}{name} ")
        else:
            found.append((prefix + name, command))
    return found


LEAVES = _leaf_commands(cli)


def _receivers(callback: Callable[..., object]) -> list[Callable[..., object]]:
    """What a command's callback hands its options to: ``command.run`` (or another function
    of its ``commands`` module), and ``command.EventOptions`` for the playbook commands."""
    source = inspect.getsource(callback)
    imported = re.search(
        r"from (?:git_vcontext)?\.commands(?:\.(\w+))? import (\w+) as (\w+)", source
    )
    assert imported is not None, "each command imports its commands module when it runs"
    package, name, alias = imported.groups()
    if package:  # from .commands.install import uninstall as remove
        module = importlib.import_module(f"git_vcontext.commands.{package}")
        return [getattr(module, name)]
    module = importlib.import_module(f"git_vcontext.commands.{name}")
    called = re.findall(rf"\b{alias}\.(\w+)\(", source)
    return [getattr(module, c) for c in called]


@pytest.mark.parametrize(("name", "command"), LEAVES, ids=[name for name, _ in LEAVES])
def test_each_click_command_hands_every_option_to_a_parameter_of_its_run(
    name: str, command: click.Command
) -> None:
    """Each option is written once, in its decorator (cli.py's shared options included),
    and reaches its ``commands`` module under the name ``run`` gives it: every option is a
    parameter of the function it is handed to, and every parameter ``run`` requires is
    given. Named parameters of the callback are those it turns into something else
    (``--local``/``--global`` into a scope, the file of ``convert``, a playbook event's
    target and reason)."""
    callback = command.callback
    assert callback is not None
    options = {p.name for p in command.params}
    own = inspect.signature(callback).parameters
    named = {n for n, p in own.items() if p.kind is p.POSITIONAL_OR_KEYWORD}
    assert named <= options, name
    forwarded = options - named if any(p.kind is p.VAR_KEYWORD for p in own.values()) else set()
    accepted: set[str] = set()
    required: set[str] = set()
    for receiver in _receivers(callback):
        if hasattr(receiver, "_fields"):  # a @record: its fields are its parameters
            accepted |= set(receiver._fields)
            continue
        params = inspect.signature(receiver).parameters
        accepted |= set(params)
        required |= {
            n
            for n, p in params.items()
            if p.default is p.empty and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        }
    assert forwarded <= accepted, (name, sorted(forwarded - accepted))
    assert {n for n in required if n not in named} <= forwarded | _GIVEN_BY_HAND, name


# Parameters of a run that a callback gives itself, not from an option of the same name.
_GIVEN_BY_HAND = {"paths", "path", "action", "file", "target", "reason", "given", "scope"}


def test_the_option_check_can_fail() -> None:
    """An option the run does not take is caught (the check reads the run's signature)."""

    @click.command()
    @click.option("--colour")
    def blame(**options: object) -> int:
        from git_vcontext.commands import blame as command

        return command.run(**options)  # type: ignore[arg-type]

    with pytest.raises(AssertionError, match="colour"):
        test_each_click_command_hands_every_option_to_a_parameter_of_its_run("blame", blame)


def test_help_of_a_command_does_not_import_its_module() -> None:
    probe = (
        "import sys; from git_vcontext.cli import main; "
        "code = main(['sync', '--help']); "
        "print(code, 'git_vcontext.commands.sync' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.stdout.split()[-2:] == ["0", "False"], out.stdout + out.stderr


def _todo(n: int, status: str = "pending") -> bytes:
    items = [{"id": f"t{i}", "title": f"Task {i}", "status": status} for i in range(n)]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}).encode()


def _sides(tmp_path: Path, ours: str, theirs: str) -> tuple[Path, list[str]]:
    """Three 3-item todo lists (base all pending) for the driver: (ours' path, its args)."""
    paths = {name: tmp_path / f"{name}.json" for name in ("base", "ours", "theirs")}
    for name, status in (("base", "pending"), ("ours", ours), ("theirs", theirs)):
        paths[name].write_bytes(_todo(3, status))
    args = [str(paths[n]) for n in ("base", "ours", "theirs")]
    return paths["ours"], [*args, "-p", "todo.vcontext.json", "-l", "7"]


def test_the_per_file_commands_end_at_once_with_all_their_output_and_exit_code(
    tmp_path: Path,
) -> None:
    """The merge driver, textconv and the external diff end without the interpreter's
    teardown (entry.run; an atexit handler shows whether it ran): what they wrote is all
    there, and the exit code is theirs."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import atexit, sys\natexit.register(lambda: print('teardown', file=sys.stderr))\n"
    )
    teardown = {"PYTHONPATH": str(site)}
    ours, args = _sides(tmp_path, "blocked", "completed")
    assert b"teardown" in run_cli("--version", env=teardown).stderr  # the ordinary exit
    proc = run_cli("merge-driver", *args, env=teardown)
    assert b"teardown" not in proc.stderr
    assert proc.returncode == 1  # conflicts (M13)
    assert b"todo.vcontext.json: 3 conflict(s)" in proc.stderr
    assert ours.read_bytes().count(b"<<<<<<<") == 3
    big = tmp_path / "big.vcontext.json"
    big.write_bytes(_todo(5_000))  # textconv prints far more than a pipe holds
    quick = run_cli("textconv", str(big))
    slow = subprocess.run(
        [sys.executable, "-m", "git_vcontext", "textconv", str(big)], capture_output=True
    )
    assert quick.returncode == slow.returncode == 0
    assert len(quick.stdout) > 1 << 17  # more than a pipe buffer
    assert quick.stdout == slow.stdout  # python -m: the ordinary exit, every byte flushed


def test_textconv_into_a_pipe_closed_early_says_nothing(tmp_path: Path) -> None:
    """``git log -p | head``: the reader goes away; no traceback, no complaint at exit."""
    big = tmp_path / "big.vcontext.json"
    big.write_bytes(_todo(5_000))
    proc = subprocess.Popen(
        [*cli_path(), "textconv", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait() == 0
    assert err == b""


def test_the_merge_driver_started_with_stdout_closed_still_merges_and_exits_0(
    tmp_path: Path,
) -> None:
    """A descriptor closed at start makes Python's stream None: the quick exit flushes only
    the streams there are (a clean merge must not turn into git's "conflict" exit 1)."""
    ours, args = _sides(tmp_path, "completed", "pending")
    command = [*cli_path(), "merge-driver", *args]
    closed = subprocess.run(command, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert closed.returncode == 0, closed.stderr
    assert closed.stderr == b""
    assert json.loads(ours.read_bytes())["todoList"]["items"][0]["status"] == "completed"
