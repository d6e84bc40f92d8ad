"""``git vcontext demo``: two agents edit the same memory in a throw-away repo; watch it merge."""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..codecs import dumps, parse
from ..errors import ExitCode, OperationalError

TODO = ".vcontext/todo.vcontext.json"
PLAYBOOK = ".vcontext/playbook.vcontext.tron"
BROKEN = "scratch.vcontext.json"
ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "git-vcontext demo",
    "GIT_AUTHOR_EMAIL": "demo@example.invalid",
    "GIT_COMMITTER_NAME": "git-vcontext demo",
    "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    "SOURCE_DATE_EPOCH": "1767225600",  # 2026-01-01: the demo prints the same every time
    "NO_COLOR": "1",
}


class Demo:
    """Runs git and git-vcontext in the demo repository and narrates."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.env = {**os.environ, **ENV}
        self.env.pop("GIT_DIR", None)
        self.env.pop("GIT_WORK_TREE", None)
        self.status = 0  # exit status of the last git-vcontext command

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def step(self, title: str) -> None:
        self.say(f"\n== {title}")

    def git(self, *args: str, show: bool = False, check: bool = True) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.repo, env=self.env, capture_output=True, text=True
        )
        if check and proc.returncode != 0:
            raise OperationalError(f"git {args[0]} failed in the demo: {proc.stderr.strip()}")
        out = proc.stdout + proc.stderr
        if show:
            self._echo(f"$ git {shlex.join(args)}", out)
        return out

    def tool(self, *args: str, ok: tuple[int, ...] = (0, 1)) -> str:
        """Run git-vcontext as a user would and show what it prints."""
        cmd = [sys.executable, "-m", "git_vcontext", *args]
        proc = subprocess.run(cmd, cwd=self.repo, env=self.env, capture_output=True, text=True)
        out = proc.stdout + proc.stderr
        self.status = proc.returncode
        if proc.returncode not in ok:
            raise OperationalError(f"git vcontext {args[0]} failed in the demo: {out.strip()}")
        self._echo(f"$ git vcontext {shlex.join(args)}", out)
        return out

    def _echo(self, command: str, output: str) -> None:
        self.say(command)
        for line in output.rstrip("\n").splitlines():
            self.say(f"  {line}")

    def write(self, rel: str, text: str) -> None:
        path = self.repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)


def _item(i: str, title: str, status: str = "pending", **more: Any) -> dict[str, Any]:
    return {"id": i, "title": title, "status": status, **more}


def _todo(items: list[dict[str, Any]], sequence: int) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4", "author": "demo"},
        "todoList": {
            "id": "todo-demo",
            "uid": "6f1c2d2e-demo",
            "title": "Ship the webhook fix",
            "sequence": sequence,
            "items": items,
        },
    }


def _json(doc: Any) -> str:
    return json.dumps(doc, indent=2) + "\n"


BASE_ITEMS = [
    _item("t1", "Reproduce the latency regression", "inProgress"),
    _item("t2", "Fix the N+1 query"),
    _item("t3", "Add a p95 alert"),
]


def _event(eid: str, target: str, op: str, at: str, **more: Any) -> dict[str, Any]:
    return {"eventId": eid, "targetId": target, "operation": op, **more, "createdAt": at}


FIRST_LESSON = _event(
    "evt-001",
    "entry-test-first",
    "append",
    "2026-01-01T09:00:00Z",
    kind="rule",
    narrative={"Overview": "Write a failing test first."},
)


def _playbook(events: list[dict[str, Any]], version: int, updated: str) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "version": version,
            "created": "2026-01-01T09:00:00Z",
            "updated": updated,
            "items": events,
        },
    }


def _edit_playbook(d: Demo, event: dict[str, Any]) -> None:
    """Append an event the way a tool should: the TRON file keeps its header and style."""
    doc = parse((d.repo / PLAYBOOK).read_bytes(), path=PLAYBOOK)
    new = _playbook([FIRST_LESSON, event], 2, event["createdAt"])
    d.write(PLAYBOOK, doc.render(new))


def _setup(d: Demo) -> None:
    d.step("A repository where agents keep their memory in vContext documents")
    d.git("init", "-q", "-b", "main")
    d.tool("install")
    d.write(TODO, _json(_todo(BASE_ITEMS, 3)))

    d.write(PLAYBOOK, dumps(_playbook([FIRST_LESSON], 1, "2026-01-01T09:00:00Z"), "tron"))
    d.commit("Agent memory: todo list (JSON) and playbook (TRON)")
    d.say(f"  {TODO}: 3 items; {PLAYBOOK}: 1 lesson")


def _agents(d: Demo) -> None:
    d.step("Two agents work on their own branches at the same time")
    alice = copy.deepcopy(BASE_ITEMS)
    alice[0]["status"] = "completed"
    alice.append(_item("t4", "Write the regression test"))
    d.git("checkout", "-q", "-b", "agents/alice")
    d.write(TODO, _json(_todo(alice, 4)))
    _edit_playbook(
        d,
        _event(
            "evt-a01",
            "entry-test-first",
            "update",
            "2026-01-01T10:00:00Z",
            prevEventId="evt-001",
            delta={"helpfulCount": 1},
        ),
    )
    d.commit("alice: t1 done, adds t4, confirms a lesson")
    d.say("  alice: completes t1, adds t4, appends a playbook event")
    bob = copy.deepcopy(BASE_ITEMS)
    bob[1]["status"] = "inProgress"
    bob[2]["title"] = "Add p95 and p99 alerts"
    bob.append(_item("t5", "Load-test the fix"))
    d.git("checkout", "-q", "-b", "agents/bob", "main")
    d.write(TODO, _json(_todo(bob, 4)))
    lesson = {"Overview": "Load-test before rollout: p95 regressions hide at low traffic."}
    _edit_playbook(
        d,
        _event(
            "evt-b01",
            "entry-load-test",
            "append",
            "2026-01-01T09:30:00Z",
            kind="learning",
            narrative=lesson,
        ),
    )
    d.commit("bob: t2 started, t3 renamed, adds t5, learns something")
    d.say("  bob:   starts t2, renames t3 (the line next to alice's), adds t5, learns a lesson")


def _merge(d: Demo) -> None:
    d.step("Merging both into main: git calls the vcontext driver for each document")
    d.git("checkout", "-q", "main")
    d.git("merge", "--no-ff", "-q", "-m", "Merge alice", "agents/alice", show=True)
    d.git("merge", "--no-ff", "-m", "Merge bob", "agents/bob", show=True)
    todo = json.loads((d.repo / TODO).read_text())["todoList"]
    for it in todo["items"]:
        d.say(f"    {it['id']}  {it['status']:<11} {it['title']}")
    d.say(f"    sequence {todo['sequence']} (both agents were at 4: concurrent edits, noted)")
    d.say("  A line merge would have conflicted on the neighbouring lines and appended items;")
    d.say("  here every change of both agents is in, and the JSON is valid.")


def _inspect(d: Demo) -> None:
    d.step("What changed, by meaning (structural diff of the last merge)")
    d.tool("diff", "HEAD~1", "HEAD")
    d.step("The playbook as current guidance")
    d.tool("view", PLAYBOOK)
    d.step("Validation (also runs as the pre-push hook)")
    d.tool("validate")
    d.say(f"  (exit {d.status}, nothing to say: every tracked vContext document is valid)")
    d.say("  An agent that writes a bad document is told where and what to do:")
    broken = json.loads((d.repo / TODO).read_text())
    broken["todoList"]["items"][1]["status"] = "done"
    broken["todoList"]["items"][2]["dependencies"] = ["t9"]
    broken["todoList"]["items"][0]["completed"] = "2026-01-02 10:00"
    d.write(BROKEN, _json(broken))
    d.tool("validate", BROKEN)
    d.say(f"  (exit {d.status})")
    (d.repo / BROKEN).unlink()


def _conflict(d: Demo) -> None:
    d.step("A real conflict: both agents change the status of t2")
    base = json.loads((d.repo / TODO).read_text())
    for branch, status in (("agents/carol", "blocked"), ("agents/dave", "completed")):
        d.git("checkout", "-q", "-b", branch, "main")
        doc = copy.deepcopy(base)
        doc["todoList"]["items"][1]["status"] = status
        d.write(TODO, _json(doc))
        d.commit(f"{branch}: t2 {status}")
    d.git("checkout", "-q", "agents/carol")
    d.git("merge", "--no-edit", "agents/dave", show=True, check=False)
    text = (d.repo / TODO).read_text()
    start = text.index("<<<<<<<")
    end = text.index(">>>>>>>")
    block = text[text.rfind("\n", 0, start) + 1 : text.find("\n", end)]
    d.say("  The conflict is one field, on whole lines; the rest of the file merged:")
    for line in block.splitlines():
        d.say(f"    {line}")
    d.git("merge", "--abort")


def _workflow(d: Demo) -> None:
    d.step("Branch per agent: fork, status, sync (in process, no merge driver per file)")
    d.git("checkout", "-q", "main")
    d.tool("fork", "erin", "--reason", "tune the alert thresholds")
    d.git("checkout", "-q", "agents/erin")
    doc = json.loads((d.repo / TODO).read_text())
    fork = doc["todoList"]["fork"]
    d.say(f"  {TODO} on agents/erin now says where it came from:")
    d.say(f"    fork: {json.dumps(fork)}")
    doc["todoList"]["items"].append(_item("t6", "Tune the p99 alert threshold"))
    doc["todoList"]["sequence"] += 1
    d.write(TODO, _json(doc))
    d.commit("erin: adds t6")
    d.git("checkout", "-q", "main")
    doc = json.loads((d.repo / TODO).read_text())
    doc["todoList"]["items"][1]["status"] = "completed"
    doc["todoList"]["sequence"] += 1
    d.write(TODO, _json(doc))
    d.commit("main: t2 completed")
    d.say("  erin adds t6 on her branch; meanwhile t2 is completed on main")
    d.tool("status")
    d.tool("sync", "erin")
    main = json.loads((d.repo / TODO).read_text())["todoList"]
    erin = json.loads(d.git("show", f"agents/erin:{TODO}"))["todoList"]
    d.say(f"  main:        items {[i['id'] for i in main['items']]}, fork block: {'fork' in main}")
    status = erin["fork"]["mergeStatus"]
    d.say(f"  agents/erin: items {[i['id'] for i in erin['items']]}, fork {status}")


def run(*, directory: str | None = None) -> int:
    """Build the demo repository in a new temporary directory and walk through it."""
    parent = Path(directory) if directory else None
    if parent is not None and not parent.is_dir():  # as mktemp -p: a typo creates nothing
        what = "is not a directory" if parent.exists() else "no such directory (create it first)"
        raise OperationalError(f"--dir {directory}: {what}")
    repo = Path(tempfile.mkdtemp(prefix="git-vcontext-demo-", dir=parent))
    d = Demo(repo)
    d.say(f"git-vcontext demo in {repo}")
    for part in (_setup, _agents, _merge, _inspect, _conflict, _workflow):
        part(d)
    d.step("Done")
    d.say(f"The demo repository stays in {repo}: look around (git log --graph), then delete it.")
    return int(ExitCode.OK)
