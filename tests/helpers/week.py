"""A compressed week of a team sharing one remote (issue 34), through real git and the real
MCP client.

Three agents, each with its own clone, ``agents/NAME`` checked out and one MCP session
(the SDK's stdio client on ``git vcontext mcp`` in that clone), write their memory through
MCP tools only and publish with ``vcontext_sync {"push": "origin"}``. One person edits
``tasks.vcontext.json`` on main by hand and pushes through the pre-push hook. A seeded
random schedule interleaves them. Nobody knows more than the tool says: on a conflict an
agent calls exactly the tools the answer names (``next``), a person runs what git and the
README say (``git pull``, ``git vcontext conflicts`` / ``resolve``, ``git commit``); the
one choice left to them (``ours`` or ``theirs``) is drawn from the schedule's seed.

Ingredients, each a flag (PRODUCT.md M19 and issue 26 depend on other work):

- ``core`` (always): a shared task ``t-shared`` the person deletes while agents update it
  (a real delete/modify conflict), concurrent learnings on one playbook target (updates
  of ``seed-rule``: concurrent heads), a task depending on a shared one (``t-kept``), plan
  items added over MCP to a TRON plan.
- ``same_target``: two agents create the same new playbook target (several creations of
  one target, M19).
- ``depends_on_deleted``: an agent's task depends on ``t-shared``, which the person deletes
  (a delete/reference conflict, M19).
- ``convert_plan``: half-way the person converts the TRON plan to JSON (``convert --to
  json``, ``git rm`` the TRON), while agents keep writing plan items over MCP (issue 26,
  point 10).

The ledger records every value each actor published; ``check`` proves the week's end.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.mcp_support import stdio_params, text
from helpers.team import PLAYBOOK, TASKS, Team, git, identity, read, tip, vcx, write

PLAN = "plan.vcontext.tron"
PLAN_JSON = "plan.vcontext.json"
AGENTS = ("al", "bo", "cy")
DAYS = 4
INGREDIENTS = ("same_target", "depends_on_deleted", "convert_plan")

PLAN_TRON = """\
class vContextInfo: version
class Plan: id, uid, title, status, narratives, sequence, items
class PlanItem: id, title, status

vContextInfo: vContextInfo("0.4")
plan: Plan("week-plan", "u-plan", "The week's plan", "inProgress",
  {"proposal": "Each agent adds its steps."}, 1, [
  PlanItem("s1", "Start", "completed")
])
"""


def seed_tasks() -> dict[str, Any]:
    items = [
        {"id": "t-shared", "title": "Shared task", "status": "pending"},
        {"id": "t-kept", "title": "Kept shared task", "status": "pending"},
        {"id": "p1", "title": "The person's first task", "status": "pending"},
        {"id": "p2", "title": "The person's second task", "status": "pending"},
    ]
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {"id": "tasks", "uid": "u-tasks", "sequence": 1, "items": items},
    }


@dataclass
class Ledger:
    """What each actor published (its last value wins), and what happened on the way."""

    titles: dict[str, str] = field(default_factory=dict)  # the person's: item -> title
    person_items: set[str] = field(default_factory=set)
    statuses: dict[str, dict[str, str]] = field(default_factory=dict)  # agent -> item -> status
    dependencies: dict[str, list[str]] = field(default_factory=dict)  # item -> its dependencies
    events: dict[str, set[str]] = field(default_factory=dict)  # agent -> playbook eventIds
    plan_items: dict[str, set[str]] = field(default_factory=dict)  # agent -> plan item ids
    kept_shared: list[str] = field(default_factory=list)  # who kept t-shared in a conflict
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)  # (actor, path, kind)
    outputs: list[str] = field(default_factory=list)  # every answer and command output
    converted: bool = False


class Agent:
    """One agent: its clone and its MCP session; only MCP tools."""

    def __init__(self, name: str, clone: Path, week: Week) -> None:
        self.name, self.clone, self.week = name, clone, week
        self.client: Any = None
        self.syncs: list[bool] = []

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        answer = await self.client.call_tool(tool, args)
        self.week.ledger.outputs.append(f"{self.name} {tool}: {text(answer)}")
        return answer

    async def write(self, tool: str, args: dict[str, Any]) -> Any:
        answer = await self.call(tool, args)
        assert not answer.is_error, f"{self.name} {tool} {args}: {text(answer)}"
        return answer.structured_content

    async def create_task(self, depends: list[str] | None = None) -> None:
        n = sum(len(v) for v in self.week.ledger.statuses.values())
        args: dict[str, Any] = {"title": f"{self.name}'s task {n}"}
        if depends:
            args["dependencies"] = depends
        made = await self.write("vbrief_create_todo", args)
        self.week.ledger.statuses.setdefault(self.name, {})[made["id"]] = "pending"
        if depends:
            self.week.ledger.dependencies[made["id"]] = depends

    async def advance_task(self) -> None:
        mine = self.week.ledger.statuses.get(self.name, {})
        open_ = [i for i, s in mine.items() if s != "completed"]
        if not open_:
            await self.create_task()
            return
        item = self.week.rng.choice(sorted(open_))
        status = "inProgress" if mine[item] == "pending" else "completed"
        await self.write("vbrief_update_todo", {"id": item, "status": status})
        mine[item] = status

    async def work_on_shared(self) -> None:
        """The shared task, while it is there for this agent (as its MCP server serves it)."""
        served = await self.client.read_resource("vbrief://todos/current")
        tasks = json.loads(served.contents[0].text)["todoList"]["items"]
        if any(i["id"] == "t-shared" for i in tasks):
            await self.write("vbrief_update_todo", {"id": "t-shared", "status": "inProgress"})

    async def learn(self, target: str = "seed-rule") -> None:
        n = len(self.week.ledger.events.get(self.name, ()))
        args = {
            "targetId": target,
            "kind": "rule",
            "narrative": {"Overview": f"{self.name} learned something ({n})"},
        }
        made = await self.write("vbrief_add_learning", args)
        self.week.ledger.events.setdefault(self.name, set()).add(made["eventId"])

    async def add_plan_item(self) -> None:
        n = len(self.week.ledger.plan_items.get(self.name, ()))
        args = {"planId": "week-plan", "item": {"title": f"{self.name}'s step {n}"}}
        made = await self.write("vbrief_add_plan_item", args)
        self.week.ledger.plan_items.setdefault(self.name, set()).add(made["id"])

    async def sync(self) -> None:
        """``vcontext_sync``; on a stop, exactly the tools the answer names, until it lands."""
        answer = await self.call("vcontext_sync", {"push": "origin"})
        for _ in range(6):
            if not answer.is_error:
                assert answer.structured_content["ok"] is True
                self.syncs.append(True)
                return
            data = answer.structured_content or {}
            steps = data.get("next")
            assert steps, f"{self.name}: a stop without a next step: {text(answer)}"
            for f in data.get("conflicts", []):
                for c in f["conflicts"]:
                    self.week.ledger.conflicts.append((self.name, f["path"], c["kind"]))
            assert all("tool" in s for s in steps), f"{self.name}: not a tool call: {steps}"
            for step in steps:
                args = dict(step["arguments"])
                if step["tool"] == "vcontext_resolve":
                    args["take"] = self._choose(data, args)
                answer = await self.call(step["tool"], args)
                if step["tool"] != "vcontext_sync":
                    assert not answer.is_error, f"{self.name} {step}: {text(answer)}"
        raise AssertionError(f"{self.name}: still not synced: {text(answer)}")

    def _choose(self, data: dict[str, Any], args: dict[str, Any]) -> str:
        take: str = self.week.rng.choice(["ours", "theirs"])
        for f in data["conflicts"]:
            for c in f["conflicts"]:
                mine = c["id"] == args["conflict"] and c["ours"] is not None
                if mine and "t-shared" in c["where"] and take == "ours":
                    self.week.ledger.kept_shared.append(self.name)
        return take


class Person:
    """The person: edits tasks.vcontext.json by hand on main, pushes through the hook."""

    def __init__(self, clone: Path, week: Week) -> None:
        self.clone, self.week = clone, week
        self.titles: dict[str, str] = {}  # committed here, not pushed yet
        self.items: set[str] = set()

    def run(self, *args: str) -> Any:
        done = git(self.clone, *args, check=False)
        self.week.ledger.outputs.append(f"person git {' '.join(args)}: {done.stdout}{done.stderr}")
        return done

    def edit(self, change: Callable[[dict[str, Any]], None], message: str) -> None:
        """Pull, edit, commit (not pushed yet)."""
        self.pull()
        data = read(self.clone, TASKS)
        change(data)
        data["todoList"]["sequence"] += 1
        write(self.clone, TASKS, data)
        assert self.run("commit", "-q", "-am", message).returncode == 0

    def rename(self) -> None:
        item = self.week.rng.choice(["p1", "p2"])
        title = f"{item} as the person put it on step {self.week.step}"

        def change(data: dict[str, Any]) -> None:
            for i in data["todoList"]["items"]:
                if i["id"] == item:
                    i["title"] = title

        self.edit(change, f"person renames {item}")
        self.titles[item] = title

    def add(self) -> None:
        item = f"p-new-{self.week.step}"

        def change(data: dict[str, Any]) -> None:
            data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})

        self.edit(change, f"person adds {item}")
        self.items.add(item)

    def delete_shared(self) -> None:
        def change(data: dict[str, Any]) -> None:
            items = data["todoList"]["items"]
            data["todoList"]["items"] = [i for i in items if i["id"] != "t-shared"]

        self.edit(change, "person: the shared task is not needed")

    def convert_plan(self) -> None:
        self.pull()
        made = vcx(self.clone, "convert", PLAN, "--to", "json", "-o", PLAN_JSON)
        assert made.returncode == 0, made.stderr
        assert self.run("rm", "-q", PLAN).returncode == 0
        assert self.run("add", PLAN_JSON).returncode == 0
        assert self.run("commit", "-q", "-m", "person converts the plan to JSON").returncode == 0
        self.week.ledger.converted = True

    def pull(self) -> None:
        """``git pull``; a merge that stops is resolved as the README says."""
        pulled = self.run("pull", "-q", "--no-rebase", "origin", "main")
        if pulled.returncode == 0:
            return
        listing = vcx(self.clone, "conflicts", "--format", "json")
        self.week.ledger.outputs.append(f"person conflicts: {listing.stdout}{listing.stderr}")
        files = json.loads(listing.stdout)["files"]
        assert files, f"the pull stopped on something else: {pulled.stdout}{pulled.stderr}"
        for f in files:
            for c in f["conflicts"]:
                self.week.ledger.conflicts.append(("person", f["path"], c["kind"]))
                take = self.week.rng.choice(["ours", "theirs"])
                done = vcx(self.clone, "resolve", f["path"], "--conflict", c["id"], "--take", take)
                self.week.ledger.outputs.append(f"person resolve: {done.stdout}{done.stderr}")
                assert done.returncode in (0, 1), done.stderr
        assert self.run("commit", "-q", "--no-edit").returncode == 0

    def push(self) -> None:
        """``git push`` through the hook; rejected: pull (and resolve), push again."""
        for _ in range(5):
            pushed = self.run("push", "-q", "origin", "main")
            if pushed.returncode == 0:
                self.week.ledger.titles.update(self.titles)
                self.week.ledger.person_items |= self.items
                self.titles, self.items = {}, set()
                return
            assert "rejected" in pushed.stderr, pushed.stderr  # never the hook's refusal
            self.pull()
        raise AssertionError("the person's push never landed")


class Week:
    """One seeded week: the team, the schedule, the ledger."""

    def __init__(self, root: Path, seed: int, ingredients: frozenset[str]) -> None:
        self.root, self.seed, self.ingredients = root, seed, ingredients
        self.rng = random.Random(seed)
        self.ledger = Ledger()
        self.step = 0
        self.team = _setup(root)
        self.person = Person(self.team.person, self)
        self.agents = {n: Agent(n, self.team.agents[n], self) for n in AGENTS}

    def schedule(self) -> list[list[tuple[str, str]]]:
        """Each day's (actor, action) in a seeded order. Day 1: some agents work on the shared
        task; cy does and does not sync that day. Day 2: the person deletes it first."""
        rng, days = self.rng, []
        # who does not sync on day 1: cy (who works on the shared task), and with
        # depends_on_deleted bo (whose new task depends on it, and who leaves it alone)
        holdouts = {"cy", "bo"} if "depends_on_deleted" in self.ingredients else {"cy"}
        for day in range(DAYS):
            actions: list[tuple[str, str]] = []
            for name in AGENTS:
                actions += [(name, rng.choice(["task", "advance", "learn", "plan"]))]
                actions += [(name, rng.choice(["advance", "learn", "plan"]))]
                shared = name == "cy" or (name == "al" and rng.random() < 0.6)
                if day == 1 and shared:
                    actions.append((name, "shared"))
                if not (day == 1 and name in holdouts):
                    actions.append((name, "sync"))
            if day == 0:
                actions += [("bo", "depends")]
                if "same_target" in self.ingredients:
                    actions += [("al", "new-target"), ("cy", "new-target")]
            if day == 1 and "depends_on_deleted" in self.ingredients:
                actions.append(("bo", "depends-on-shared"))
            actions += [("person", rng.choice(["rename", "add"])), ("person", "push")]
            rng.shuffle(actions)
            actions = _some_syncs_last(actions, rng)
            if day == 2:
                actions = [("person", "delete-shared"), ("person", "push"), *actions]
                if "convert_plan" in self.ingredients:
                    actions = [("person", "convert-plan"), ("person", "push"), *actions]
            days.append(actions)
        return days

    async def run(self) -> None:
        async with AsyncExitStack() as stack:
            for agent in self.agents.values():
                agent.client = await stack.enter_async_context(_client(agent.clone, self.root))
            for actions in [*self.schedule(), [("person", "push")]]:
                for actor, action in actions:
                    self.step += 1
                    await self.act(actor, action)
            for _ in range(2):  # the last round lands everything, the next brings it along
                for agent in self.agents.values():
                    await agent.sync()

    async def act(self, actor: str, action: str) -> None:
        if actor == "person":
            {
                "rename": self.person.rename,
                "add": self.person.add,
                "push": self.person.push,
                "delete-shared": self.person.delete_shared,
                "convert-plan": self.person.convert_plan,
            }[action]()
            return
        agent = self.agents[actor]
        if action == "task":
            await agent.create_task()
        elif action == "advance":
            await agent.advance_task()
        elif action == "learn":
            await agent.learn()
        elif action == "plan":
            await agent.add_plan_item()
        elif action == "shared":
            await agent.work_on_shared()
        elif action == "depends":
            await agent.create_task(["t-kept"])
        elif action == "depends-on-shared":
            await agent.create_task(["t-shared"])
        elif action == "new-target":
            await agent.learn("week-lesson")
        else:
            assert action == "sync", action
            await agent.sync()


def _some_syncs_last(actions: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """A shuffled day with half of its syncs moved to the end: the other half stay where
    they fell, so some writes wait for the next sync (the next day's, or the final rounds)."""
    out = []
    moved = []
    for actor, action in actions:
        if action == "sync" and rng.random() < 0.5:
            moved.append((actor, action))
        else:
            out.append((actor, action))
    return out + moved


def _client(clone: Path, root: Path) -> Any:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    log = (root / f"mcp-{clone.name}.log").open("w")
    return Client(stdio_client(stdio_params(clone), errlog=log))


def _setup(root: Path) -> Team:
    """The team of helpers.team, with the week's seed documents."""
    from helpers import team as team_module

    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    person = root / "person"
    git(root, "clone", "-q", str(remote), str(person))
    identity(person, "person")
    assert vcx(person, "install").returncode == 0
    write(person, TASKS, seed_tasks())
    write(person, PLAYBOOK, team_module.playbook())
    (person / PLAN).write_text(PLAN_TRON)
    git(person, "add", "-A")
    git(person, "commit", "-q", "-m", "seed")
    git(person, "push", "-q", "origin", "main")
    clones = {}
    for name in AGENTS:
        clone = root / name
        git(root, "clone", "-q", str(remote), str(clone))
        identity(clone, name)
        for args in (("install",), ("fork", name, "--reason", f"agent {name}")):
            done = vcx(clone, *args)
            assert done.returncode == 0, done.stderr
        git(clone, "switch", "-q", f"agents/{name}")
        clones[name] = clone
    return Team(remote, person, clones)


def show(repo: Path, rev: str, rel: str) -> Any:
    import git_vcontext as gv

    return gv.loads(git(repo, "show", f"{rev}:{rel}").stdout, path=rel).data


def without_fork(data: Any) -> Any:
    out = json.loads(json.dumps(data))
    for key in ("todoList", "plan", "playbook"):
        if isinstance(out.get(key), dict):
            out[key].pop("fork", None)
    return out


def check(week: Week) -> None:
    """The week's end (issue 34, "Done when")."""
    _last_syncs_land(week)
    _valid_and_whole(week)
    plan_file = _published_values_on_base(week)
    _agents_hold_the_base(week, plan_file)
    logs = [p.read_text() for p in week.root.glob("mcp-*.log")]
    for said in [*week.ledger.outputs, *logs]:
        assert "Traceback" not in said, said


def _last_syncs_land(week: Week) -> None:
    """Every agent's last sync --push exits 0 (the command line too, as a person runs it)."""
    for name, agent in week.agents.items():
        assert agent.syncs, name
        last = vcx(agent.clone, "sync", name, "--push", "origin")
        week.ledger.outputs.append(f"{name} sync --push: {last.stdout}{last.stderr}")
        assert last.returncode == 0, last.stdout + last.stderr


def _valid_and_whole(week: Week) -> None:
    """The remote's base validates; git fsck is clean in every repository."""
    team = week.team
    check_out = week.root / "final"
    git(week.root, "clone", "-q", str(team.remote), str(check_out))
    valid = vcx(check_out, "validate")
    assert valid.returncode == 0, valid.stdout + valid.stderr
    for repo in [team.remote, team.person, *team.agents.values()]:
        fsck = git(repo, "fsck", "--no-progress", check=False)
        assert fsck.returncode == 0, f"{repo}: {fsck.stdout}{fsck.stderr}"
        assert "missing" not in fsck.stdout + fsck.stderr


def _published_values_on_base(week: Week) -> str:
    """Every value each actor published is on the base; the plan's file name."""
    remote, ledger = week.team.remote, week.ledger
    tasks = {i["id"]: i for i in show(remote, "main", TASKS)["todoList"]["items"]}
    for item, title in ledger.titles.items():
        assert tasks[item]["title"] == title, (item, tasks.get(item))
    assert ledger.person_items <= set(tasks)
    for name, statuses in ledger.statuses.items():
        for item, status in statuses.items():
            assert tasks[item]["status"] == status, (name, item, tasks.get(item))
    for item, depends in ledger.dependencies.items():
        kept = [d for d in depends if d in tasks]  # a dependency on a task deleted since:
        assert tasks[item].get("dependencies", []) in (depends, kept), tasks[item]  # settled
    if "t-shared" in tasks:  # kept by an agent's resolution, with the agents' work on it
        assert ledger.kept_shared, "the deleted task came back without anyone keeping it"
        assert tasks["t-shared"]["status"] == "inProgress"
    assert "fork" not in show(remote, "main", TASKS)["todoList"]
    events = {e["eventId"] for e in show(remote, "main", PLAYBOOK)["playbook"]["items"]}
    for name, made in ledger.events.items():
        assert made <= events, (name, made - events)
    plan_file = PLAN_JSON if ledger.converted else PLAN
    listed = git(remote, "ls-tree", "--name-only", "main").stdout.split()
    assert [p for p in listed if p.startswith("plan.")] == [plan_file]
    steps = {i["id"] for i in show(remote, "main", plan_file)["plan"]["items"]}
    for name, made in ledger.plan_items.items():
        assert made <= steps, (name, made - steps)
    return plan_file


def _agents_hold_the_base(week: Week, plan_file: str) -> None:
    """Every agent branch holds the base's items (its fork blocks aside)."""
    remote = week.team.remote
    base = tip(remote, "main")
    for name, clone in week.team.agents.items():
        branch = f"agents/{name}"
        assert git(clone, "merge-base", "--is-ancestor", base, branch, check=False).returncode == 0
        for rel in (TASKS, PLAYBOOK, plan_file):
            mine = without_fork(show(clone, branch, rel))
            assert mine == without_fork(show(remote, "main", rel)), (name, rel)


def seeds_from_env(default: list[int]) -> list[int]:
    """``VCONTEXT_WEEK_SEEDS``: a number N (N schedules from seed 1000) or a list of seeds."""
    raw = os.environ.get("VCONTEXT_WEEK_SEEDS", "").strip()
    if not raw:
        return default
    if "," in raw or not raw.isdigit():
        return [int(s) for s in raw.replace(",", " ").split()]
    return list(range(1000, 1000 + int(raw)))
