"""Run a composite GitHub Action's steps as the runner does, without a hosted runner.

What the runner does for a ``run:`` step of a composite action, and what this does too:
the step's ``shell`` (``bash`` is ``bash --noprofile --norc -eo pipefail {0}``, ``sh``
is ``sh -e {0}``) runs the script written to a file; ``${{ … }}`` expressions in
``env:`` and ``run:`` are evaluated first (here: property paths into the ``inputs``,
``github``, ``runner`` and ``env`` contexts; anything else fails the test rather than
being guessed); ``GITHUB_*``/``RUNNER_*`` variables are set; lines a step appends to
``$GITHUB_PATH`` / ``$GITHUB_ENV`` reach the later steps; the first step that fails ends
the action. A ``uses:`` step or an ``if:`` cannot be run here: they fail the test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHELLS = {
    "bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"],
    "sh": ["sh", "-e", "{0}"],
}
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PROPERTY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*")


@dataclass
class StepRun:
    name: str
    returncode: int
    stdout: str
    stderr: str


@dataclass
class ActionRun:
    steps: list[StepRun] = field(default_factory=list)

    @property
    def returncode(self) -> int:
        return next((s.returncode for s in self.steps if s.returncode), 0)

    @property
    def stdout(self) -> str:
        return "".join(s.stdout for s in self.steps)

    @property
    def stderr(self) -> str:
        return "".join(s.stderr for s in self.steps)


def load(action_dir: Path) -> dict[str, Any]:
    import yaml  # type: ignore[import-untyped]  # (PyYAML comes with pre-commit)

    data: dict[str, Any] = yaml.safe_load((action_dir / "action.yml").read_text())
    return data


def run_action(
    action_dir: Path,
    workspace: Path,
    runner_temp: Path,
    *,
    event_name: str,
    event: dict[str, Any],
    sha: str,
    ref: str,
    inputs: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> ActionRun:
    """Run the action at ``action_dir`` in ``workspace`` for one event, as a job step."""
    action = load(action_dir)
    assert action["runs"]["using"] == "composite", action["runs"]
    given = inputs or {}
    unknown = set(given) - set(action.get("inputs", {}))
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values = {
        name: given.get(name, str(spec.get("default", "")))
        for name, spec in action.get("inputs", {}).items()
    }
    files = runner_temp / "_runner_file_commands"
    files.mkdir(parents=True, exist_ok=True)
    event_path = files / "event.json"
    event_path.write_text(json.dumps(event))
    base_env = {
        **os.environ,
        **(env or {}),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(action_dir),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_SHA": sha,
        "GITHUB_REF": ref,
        "GITHUB_REPOSITORY": "example/agents",
        "GITHUB_SERVER_URL": "https://github.invalid",
        "GITHUB_RUN_ID": "1",
        "RUNNER_OS": "Linux",
        "RUNNER_TEMP": str(runner_temp),
    }
    if event_name == "pull_request":
        base_env["GITHUB_BASE_REF"] = event["pull_request"]["base"]["ref"]
        base_env["GITHUB_HEAD_REF"] = event["pull_request"]["head"]["ref"]
    contexts: dict[str, Any] = {
        "inputs": values,
        "github": {
            "event": event,
            "event_name": event_name,
            "sha": sha,
            "ref": ref,
            "workspace": str(workspace),
            "action_path": str(action_dir),
        },
        "runner": {"temp": str(runner_temp), "os": "Linux"},
    }
    paths: list[str] = []
    exported: dict[str, str] = {}
    out = ActionRun()
    for number, step in enumerate(action["runs"]["steps"]):
        assert "uses" not in step, (
            "a uses: step cannot run outside GitHub: keep the action self-contained"
        )
        assert "if" not in step, "if: is not evaluated here"
        shell = step.get("shell")
        assert shell in SHELLS, f"a composite run step must declare a shell we know: {shell!r}"
        step_files = {
            k: files / f"{k}_{number}" for k in ("GITHUB_PATH", "GITHUB_ENV", "GITHUB_OUTPUT")
        }
        for f in step_files.values():
            f.write_text("")
        contexts["env"] = {**exported}
        step_env = {k: _evaluate(str(v), contexts) for k, v in (step.get("env") or {}).items()}
        contexts["env"] = {**exported, **step_env}
        script = files / f"step_{number}.sh"
        script.write_text(_evaluate(step["run"], contexts))
        full_env = {**base_env, **exported, **step_env}
        full_env.update({k: str(v) for k, v in step_files.items()})
        full_env["GITHUB_STEP_SUMMARY"] = str(files / f"summary_{number}")
        full_env["PATH"] = os.pathsep.join([*reversed(paths), base_env.get("PATH", "")])
        argv = [a.replace("{0}", str(script)) for a in SHELLS[shell]]
        cwd = workspace / _evaluate(str(step.get("working-directory", ".")), contexts)
        proc = subprocess.run(argv, cwd=cwd, env=full_env, capture_output=True, text=True)
        out.steps.append(
            StepRun(step.get("name", f"step {number}"), proc.returncode, proc.stdout, proc.stderr)
        )
        if proc.returncode != 0:
            break
        paths += [line for line in step_files["GITHUB_PATH"].read_text().splitlines() if line]
        exported.update(_env_file(step_files["GITHUB_ENV"].read_text()))
    return out


def _evaluate(text: str, contexts: dict[str, Any]) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        assert PROPERTY.fullmatch(expression), f"expression not understood here: {expression}"
        head, *rest = expression.split(".")
        assert head in contexts, f"unknown context {head!r} in {expression}"
        found: Any = contexts[head]
        for part in rest:
            found = found.get(part) if isinstance(found, dict) else None
        if found is None:
            return ""  # GitHub evaluates a missing property to null: '' in a string
        if isinstance(found, bool):
            return "true" if found else "false"
        return str(found)

    return EXPRESSION.sub(value, text)


def _env_file(text: str) -> dict[str, str]:
    """``NAME=value`` lines and ``NAME<<DELIMITER`` blocks."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            out[name] = "\n".join(block)
        elif "=" in line:
            name, val = line.split("=", 1)
            out[name] = val
    return out
