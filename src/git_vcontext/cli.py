"""The command line: thin click wrappers around ``commands``, and the one error boundary."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from .boundary import boundary
from .version import __version__

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

F = TypeVar("F", bound=Callable[..., Any])

FORMAT_TEXT_JSON = click.Choice(["text", "json"])
FORMAT_REPORT = click.Choice(["text", "json", "markdown"])
FORMAT_PICTURE = click.Choice(["text", "json", "dot", "mermaid"])

# Options more than one command takes, each written once (click makes a fresh Option
# each time one of these decorates a command).
COLOR = click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
CONFLICT_STYLE = click.option(
    "--conflict-style",
    type=click.Choice(["markers", "structured"]),
    help="markers (default) or structured.",
)


def format_option(choice: click.Choice[str]) -> Callable[[F], F]:
    """``--format`` among ``choice``, ``text`` by default, handed to the command as ``fmt``."""
    return click.option("--format", "fmt", type=choice, default="text")


# Each command imports its ``commands`` module only when it runs (``--help`` stays quick)
# and hands it its options as keyword arguments: each option is written once, in its
# decorator, under the name of the ``run`` parameter it fills (tests/cli/test_cli_contract.py
# checks each option against that signature).


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="git-vcontext")
def cli() -> None:
    """Merge, diff and validate vContext documents (agent memory) in git.

    Run `git vcontext install` once per repository (or with --global), then
    git merges, diffs and checks *.vcontext.json / *.vcontext.tron files by
    what they mean. `git vcontext demo` shows it all in a throw-away repo.
    """


# -- setup ----------------------------------------------------------------


def _one_scope(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """--local and --global are alternatives: giving both is a usage error (as for git config)."""
    if value:
        chosen = ctx.meta.setdefault("vcontext.scopes", set())
        chosen.add(param.name)
        if len(chosen) > 1:
            raise click.UsageError("--local and --global cannot be used together", ctx)
    return value


def _scope_options(command: F) -> F:
    """``--local`` (the default) / ``--global``, handed to the command as ``scope``."""
    command = click.option(
        "--global", "global_", is_flag=True, callback=_one_scope, help="Your user configuration."
    )(command)
    return click.option(
        "--local", is_flag=True, callback=_one_scope, help="This repository (default)."
    )(command)


@cli.command(context_settings=CONTEXT)
@_scope_options
@click.option("--force", is_flag=True, help="Replace foreign drivers or hooks instead of refusing.")
@click.option("--no-hooks", is_flag=True, help="Do not install the pre-push hook.")
@click.option(
    "--recurse-submodules",
    is_flag=True,
    help="Also in each checked-out submodule holding vContext files (nested ones too).",
)
@click.option(
    "--server",
    is_flag=True,
    help="In a bare repository: the guard, and the merging of agents' sync requests.",
)
@click.option("--guard", is_flag=True, help="With --server: the guard alone (pre-receive).")
def install(
    local: bool,
    global_: bool,
    force: bool,
    no_hooks: bool,
    recurse_submodules: bool,
    server: bool,
    guard: bool,
) -> int:
    """Set up the merge driver, diff driver, difftool, attributes and pre-push hook.

    --server, in the bare repository agents push to, installs instead a pre-receive
    guard that checks every push as the pre-push hook checks it (git push --no-verify
    cannot skip it), and a post-receive hook that merges the agents' integration
    requests (git vcontext sync --push) into their base branches as they arrive
    (optional: sync --push works without it). --server --guard: the guard alone.
    """
    if guard and not server:
        raise click.UsageError(
            "--guard goes with --server: git vcontext install --server --guard, in the bare "
            "repository agents push to"
        )
    _server_alone(
        server,
        local=local,
        global_=global_,
        no_hooks=no_hooks,
        recurse_submodules=recurse_submodules,
    )
    if global_ and recurse_submodules:
        raise click.UsageError(
            "--recurse-submodules is for --local (--global covers every repository already)"
        )
    scope = "global" if global_ else "local"
    from .commands import install as command

    return command.run(
        scope=scope,
        force=force,
        no_hooks=no_hooks,
        server=server,
        guard=guard,
        recurse=recurse_submodules,
    )


def _server_alone(server: bool, **others: bool) -> None:
    given = [f"--{k.strip('_').replace('_', '-')}" for k, v in others.items() if v]
    if server and given:
        raise click.UsageError(f"--server cannot be combined with {', '.join(given)}")


@cli.command(context_settings=CONTEXT)
@_scope_options
@click.option("--server", is_flag=True, help="Remove what install --server added (both hooks).")
@click.option(
    "--recurse-submodules",
    is_flag=True,
    help="Also in each checked-out submodule (what install --recurse-submodules added).",
)
def uninstall(local: bool, global_: bool, server: bool, recurse_submodules: bool) -> int:
    """Remove exactly what install added."""
    from .commands.install import uninstall as remove

    _server_alone(server, local=local, global_=global_, recurse_submodules=recurse_submodules)
    if global_ and recurse_submodules:
        raise click.UsageError("--recurse-submodules is for --local")
    return remove(scope="global" if global_ else "local", server=server, recurse=recurse_submodules)


@cli.command(context_settings=CONTEXT)
def doctor() -> int:
    """Check the setup; exit 1 when something is missing or broken.

    In a bare repository: whether the guard and the integration hook of install --server
    are there and their program runs.
    """
    from .commands import doctor as command

    return command.run()


# -- merging --------------------------------------------------------------


@cli.command("merge-driver", context_settings=CONTEXT)
@click.argument("base", metavar="%O")
@click.argument("ours", metavar="%A")
@click.argument("theirs", metavar="%B")
@click.option("-p", "--path", "path", metavar="%P", help="Path of the file in the repository.")
@click.option(
    "-l", "--marker-size", type=int, default=7, metavar="%L", help="Conflict marker length."
)
@click.option("-s", "--base-label", metavar="%S", help="Label of the base section.")
@click.option("-x", "--ours-label", metavar="%X", help="Label of our side.")
@click.option("-y", "--theirs-label", metavar="%Y", help="Label of their side.")
@CONFLICT_STYLE
@click.option(
    "--virtual-base",
    is_flag=True,
    help="Git's inner merge of a criss-cross history: conflicts take the base's value.",
)
def merge_driver(**options: Any) -> int:
    """The git merge driver: merge into %A in place; exit 0 clean, 1 conflicts."""
    from .commands import merge_driver as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("base")
@click.argument("ours")
@click.argument("theirs")
@click.option("-o", "--output", metavar="OUT", help="Write the result here instead of stdout.")
@click.option(
    "--path", "path", metavar="NAME", help="Name used to pick the format and in messages."
)
@click.option("--report", metavar="FILE", help="Write a JSON report to FILE ('-' = stdout).")
@CONFLICT_STYLE
@click.option(
    "--favor",
    type=click.Choice(["ours", "theirs"]),
    help="Settle every conflict on this side, noted in the report (merge.vcontext.favor).",
)
def merge(**options: Any) -> int:
    """Three-way merge of three files outside git."""
    from .commands import merge as command

    return command.run(**options)


# -- resolving conflicts ----------------------------------------------------


@cli.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1)
@format_option(FORMAT_TEXT_JSON)
def conflicts(**options: Any) -> int:
    """The vContext conflicts left to resolve; exit 1 when there are any.

    \b
    During a stopped merge, rebase or cherry-pick: each conflicted document's
    index stages merged again, whatever the work tree shows (markers, diff3,
    structured, or half edited). Otherwise: files holding conflict markers or
    an unresolved ConflictResolution. Each conflict has a stable id.
    """
    from .commands import conflicts as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("path")
@click.option("--conflict", metavar="ID|POINTER", help="One conflict (default: all that remain).")
@click.option("--take", type=click.Choice(["ours", "theirs", "base"]), help="Take that side.")
@click.option("--value", metavar="JSON", help="Put this JSON value there instead.")
@click.option("--no-add", is_flag=True, help="Do not stage the file when no conflict is left.")
@click.option("--dry-run", is_flag=True, help="Print the result; change nothing.")
@format_option(FORMAT_TEXT_JSON)
def resolve(**options: Any) -> int:
    """Settle conflicts of PATH: exit 0 when none is left (the file is staged), 1 otherwise.

    The file is written in ours' style: valid, and without markers once no conflict
    is left. Taking a side that has no value there (--take of an absent side)
    removes the value. Choices are kept under .git/vcontext/resolve/ until the last one.
    """
    from .commands import resolve as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("revisions", nargs=-1, required=True, metavar="COMMIT…")
@click.option("-n", "--no-commit", is_flag=True, help="Leave the revert staged, uncommitted.")
@click.option("-e", "--edit", is_flag=True, help="Edit the commit message (git's editor).")
@click.option(
    "-m", "--mainline", type=click.IntRange(min=1), help="The parent of a merge to revert to."
)
def revert(revisions: Sequence[str], no_commit: bool, edit: bool, mainline: int | None) -> int:
    """Revert commits as new changes: git revert with documents that stay right.

    \b
    Other files are reverted by git revert itself. Each vContext document the
    commit changed gets the inverse written as new changes: the sequence goes
    up, a changeLog entry names the reverted commit, and a playbook event the
    commit appended is answered by one that undoes it (an append is
    deprecated), never removed. One commit per reverted commit, with git's
    message, in the order given (a range newest first); exit 1 when one stops
    on conflicts (resolve them, git commit, then revert the rest).
    """
    from .commands import revert as command

    return command.run(revisions=revisions, no_commit=no_commit, edit=edit, mainline=mainline)


@cli.command(context_settings=CONTEXT)
@click.argument("base", metavar="BASE")
@click.argument("local", metavar="LOCAL")
@click.argument("remote", metavar="REMOTE")
@click.argument("merged", metavar="MERGED")
def mergetool(**options: Any) -> int:
    """Walk through the conflicts of MERGED in the terminal (git mergetool -t vcontext)."""
    from .commands import mergetool as command

    return command.run(**options)


# -- reading --------------------------------------------------------------


class _PathsAfterDashDash(click.Command):
    """Keeps what follows ``--`` (git-style pathspecs) instead of letting click drop the marker."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            at = args.index("--")
            ctx.meta["paths"] = tuple(args[at + 1 :])
            args = args[:at]
        return super().parse_args(ctx, args)


@cli.command(cls=_PathsAfterDashDash, context_settings=CONTEXT)
@click.argument("args", nargs=-1, metavar="[OLD NEW | REV [REV]] [-- PATHS]")
@format_option(FORMAT_REPORT)
@COLOR
@click.option("--exit-code", is_flag=True, help="Exit 1 when there are differences.")
@click.option("--cached", "--staged", "cached", is_flag=True, help="Index against HEAD.")
@click.option("--stat", is_flag=True, help="One summary line per file.")
@click.option(
    "--path",
    "name",
    metavar="NAME",
    help="OLD NEW: the file's real name, shown and used for the format (difftool: $MERGED).",
)
def diff(**options: Any) -> int:
    """Structural diff of two files, or of the vContext files changed between revisions.

    \b
    OLD NEW          two files (also `git difftool -t vcontext`: LOCAL REMOTE)
    (nothing)        work tree against the index; --cached: index against HEAD
    REV              work tree against REV; REV REV / A..B / A...B: two revisions
    -- PATHS         only these files or directories
    git's external-diff forms (7 or 9 arguments) are accepted too.
    """
    from .commands import diff as command

    paths: tuple[str, ...] = click.get_current_context().meta.get("paths", ())
    return command.run(paths=paths, **options)


@cli.command("log", cls=_PathsAfterDashDash, context_settings=CONTEXT)
@click.argument("args", nargs=-1, metavar="[REV-RANGE] [--] FILE[#ID]...")
@click.option("--follow", is_flag=True, help="Follow renames and JSON <-> TRON conversions.")
@format_option(FORMAT_REPORT)
@click.option(
    "-n", "--max-count", type=click.IntRange(min=1), metavar="N", help="Newest N commits."
)
@COLOR
@click.option(
    "--full-history",
    is_flag=True,
    help="Walk every parent of a merge, as git log --full-history: shows a change a merge "
    "dropped, and that merge.",
)
def log_(**options: Any) -> int:
    """The commits that changed items of a document, newest first, with their changes.

    \b
    FILE             every change to the document
    FILE#ID[#ID...]  changes to these items, playbook entries (targetId) or events
    FILE#"a#b"       an id holding '#' (or a quote) is written as a JSON string
    REV-RANGE        as for git log: REV, ^REV, A..B, A...B (default HEAD)
    A merge is shown once, with what each side brought; a version that does not
    parse is shown as such. As git log, a merge whose item equals one parent's
    follows that parent only; --full-history walks them all. Exit 1 when an id
    is in no revision.
    """
    from .commands import log as command

    paths: tuple[str, ...] | None = click.get_current_context().meta.get("paths")
    return command.run(paths=paths, **options)


@cli.command(context_settings=CONTEXT)
@click.argument("file")
@click.option("--rev", metavar="REV", help="Blame the file as it is at REV (default: work tree).")
@click.option("--fields", is_flag=True, help="One line per field of each item.")
@format_option(FORMAT_TEXT_JSON)
@COLOR
def blame(**options: Any) -> int:
    """For each item (or field), the commit, author and date that last changed it.

    Items are the elements with an id of the document's item lists (and the
    records of a JSONL file); a playbook entry's line shows the commit that
    brought its winning head event. Renames and JSON <-> TRON conversions are
    followed; changes not committed yet are blamed on "Not Committed Yet".
    """
    from .commands import blame as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("file")
def textconv(**options: Any) -> int:
    """Canonical line-per-fact rendering (git's diff.vcontext.textconv)."""
    from .commands import textconv as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1)
@format_option(FORMAT_TEXT_JSON)
@click.option(
    "--untracked", is_flag=True, help="Without paths: check untracked vContext files too."
)
def validate(**options: Any) -> int:
    """Schema and semantic validation of JSON, TRON, JSONL and TOML (VerMAS template) files.

    \b
    (no paths)   every vContext file tracked in the repository
    DIR          the vContext files under DIR
    FILE         that file, whatever its name ('-' = stdin)
    vContext files: install's patterns plus what .gitattributes sends to the
    driver (the pre-push hook checks the same set); a config among them that
    is not a vContext document is skipped with a note.
    Findings: FILE:LINE:COL: where: message [rule]. Exit 0 all valid, 1 any invalid.
    """
    from .commands import validate as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text")
def check(rev_range: str | None, fmt: str) -> int:
    """The pre-push checks over a range of commits (CI, pull requests).

    \b
    (none)   @{upstream}..HEAD
    A..B     what B has and A has not
    A...B    what B added since the merge base of A and B (a pull request)
    REV      the whole history of REV
    Each commit is checked as the pre-push hook and the server guard check it: every
    vContext file it changes, and every change against each parent. --format github
    writes ::error workflow commands (annotations on the pull request's lines).
    Exit 0 clean, 1 findings, 3 when it cannot run (no upstream, an unknown revision,
    a shallow clone that lacks what the range needs).
    """
    from .commands import check as command

    return command.run(rev_range=rev_range, fmt=fmt)


@cli.command(context_settings=CONTEXT)
@click.argument("file")
@format_option(FORMAT_PICTURE)
@click.option(
    "--status",
    type=click.Choice(["active", "all"]),
    help="active (default for text and json) or all (default for pictures and --target).",
)
@click.option("--kind", multiple=True, help="Only entries of this kind (repeatable).")
@click.option("--tag", multiple=True, help="Only entries with this tag (repeatable).")
@click.option("--search", metavar="TEXT", help="Only entries whose text contains TEXT.")
@click.option("--target", multiple=True, metavar="ID", help="Only this targetId (repeatable).")
@click.option("--all", "every", is_flag=True, help="dot/mermaid: every target of a large playbook.")
@click.option("--at", "rev", metavar="REV", help="Read the file at a git revision.")
def view(**options: Any) -> int:
    """A playbook's current view: one entry per targetId, heads resolved.

    \b
    --format dot|mermaid draws each target's events (prevEventId edges,
    heads outlined, the winning head filled, anomalies in red):
      git vcontext view FILE --format dot | dot -Tsvg > playbook.svg
    A playbook of more than 12 targets draws only those with several heads,
    concurrent edits or anomalies (at most 50), unless --all or --target.
    """
    from .commands import view as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("file")
@click.option("--to", "to", type=click.Choice(["json", "tron"]), required=True)
@click.option(
    "--tron-flavor",
    type=click.Choice(["vcontext", "standard"]),
    default="vcontext",
    show_default=True,
    help="TRON dialect to write.",
)
@click.option("-o", "--output", metavar="OUT", help="Write here instead of stdout.")
def convert(file: str, **options: Any) -> int:
    """Lossless JSON <-> TRON for any JSON value ('-' reads stdin)."""
    from .commands import convert as command

    return command.run(path=file, **options)


# -- workflow -------------------------------------------------------------


@cli.command(context_settings=CONTEXT)
@click.argument("agent")
@click.option("--from", "from_branch", metavar="BRANCH", help="Base branch (default: current).")
@click.option("--reason", metavar="TEXT", help="Why the agent forks (forkReason).")
@click.option("--worktree", metavar="PATH", help="Also add a git worktree at PATH.")
def fork(**options: Any) -> int:
    """Create agents/AGENT with fork metadata in every vContext document.

    One commit on the new branch, made without touching the current checkout;
    the base branch is recorded in git config vcontext.agent.AGENT.base.
    """
    from .commands import fork as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.argument("agents", nargs=-1)
@click.option("--all", "all_agents", is_flag=True, help="Every agent branch.")
@click.option("--into", metavar="BRANCH", help="Base branch (default: the recorded base).")
@click.option("--push", metavar="REMOTE", help="Push the results, retrying when rejected.")
@click.option("--dry-run", is_flag=True, help="Report what would happen; move no ref.")
@click.option(
    "--checkout",
    is_flag=True,
    help="Leave a pair that conflicts as a stopped merge where the agent branch is checked out.",
)
def sync(**options: Any) -> int:
    """Merge agent branches and their base both ways, in process.

    For each agent: its work is merged into the base and the base into the
    agent branch, as real merge commits; vContext documents are merged by
    git-vcontext's rules (fork blocks stay on the agent branch). A conflict stops
    that agent's pair and moves nothing (exit 1). A branch checked out in a work
    tree moves only when that work tree is clean, and its files follow.

    --push pushes the base and agent branches; a rejected push is answered by
    fetch, merge and a new push, at most `vcontext.pushAttempts` times (10).

    --checkout (with or without --push; the remote is the base's upstream)
    fetches and leaves the merge of the current base into agents/AGENT stopped
    in the work tree where that branch is checked out (this one, switched to it,
    when it is checked out nowhere and this one is clean): resolve it (git
    vcontext conflicts / resolve, or git -c mergetool.keepBackup=false mergetool
    -t vcontext), git commit --no-edit, then sync --push again. Every conflict
    ends with the commands to run next.
    """
    from .commands import sync as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@format_option(FORMAT_PICTURE)
@click.option(
    "--exit-code",
    is_flag=True,
    help="With --format dot|mermaid: exit 1 when a conflict is predicted (the table and "
    "JSON always do).",
)
@click.option(
    "--fetch",
    is_flag=True,
    help="Fetch each base's upstream and the agent branches first (as sync --push does; "
    "a failing remote is retried until vcontext.statusTimeout, default 15 s).",
)
@click.option(
    "--all",
    "everyone",
    is_flag=True,
    help="In an agent's clone, also list the other agents only a remote has (left out "
    "there, as git status shows only this clone's branches).",
)
def status(**options: Any) -> int:
    """Agent branches: ahead/behind, changes, sequence divergence, predicted conflicts.

    Counts are against each base branch here, as a plain sync merges; a base that
    tracks a remote is compared with it as of the last fetch, as git status does
    (--fetch fetches first). In an agent's clone (agents/NAME checked out, or
    GIT_VCONTEXT_AGENT) the other agents only a remote has are left out, as git
    status shows only this clone's branches: --all lists them (a clash with one
    still shows on this agent's row).

    Exits 1 when a sync would stop on a conflict; a picture printed exits 0 (a
    pipeline's first step), 1 only with --exit-code.

    \b
    --format dot|mermaid draws the agents around their base: ahead/behind on
    the edges, agents that would conflict with each other joined in red
    (trial merges of every two agents that changed the same files):
      git vcontext status --format dot | dot -Tpng > agents.png
    """
    from .commands import status as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.option("--root", metavar="DIR", help="Serve DIR (default: the repository's top, else here).")
@click.option(
    "--agent",
    metavar="NAME",
    help="Who writes (default: $GIT_VCONTEXT_AGENT, else agents/NAME checked out, else mcp).",
)
@click.option("--http", metavar="[HOST:]PORT", help="Streamable HTTP at /mcp instead of stdio.")
@click.option("--token-env", metavar="VAR", help="Bearer token clients must send (HTTP).")
@click.option(
    "--session-timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="HTTP: end a session idle this long (default 1800).",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    metavar="N",
    help="HTTP: sessions open at once; more are refused (503) until one ends (default 100).",
)
@click.option("--read-only", is_flag=True, help="List no write tools.")
@click.option("--allow", metavar="KINDS", help="Kinds that may be written: todos,plans,playbook.")
@click.option("--commit", is_flag=True, help="Commit each write (always on an agent branch).")
@click.option(
    "--todo", metavar="PATH", help="The current todo list (git config vcontext.mcp.todo)."
)
@click.option("--plan", metavar="PATH", help="The current plan (vcontext.mcp.plan).")
@click.option("--playbook", metavar="PATH", help="The current playbook (vcontext.mcp.playbook).")
def mcp(**options: Any) -> int:
    """The MCP server of seed 003: agents read and write their memory through it.

    \b
    Client configuration: {"command": "git-vcontext", "args": ["mcp"]}
    Resources vbrief://todos, vbrief://plans, vbrief://playbook, ...; tools
    vbrief_create_todo ... vbrief_query_playbook and vcontext_view/diff/validate/
    status/sync. Every write is validated, recorded (sequence, changeLog) and
    atomic; on an agent branch (or with --commit) it is also a commit of that file.
    --http listens on 127.0.0.1 unless HOST is given; another host needs --token-env.
    """
    from .commands import mcp as command

    return command.run(**options)


# -- hooks, playbooks, demo ---------------------------------------------------


@cli.group(context_settings=CONTEXT)
def hook() -> None:
    """Hook bodies called by the installed shims."""


@hook.command("pre-push", context_settings=CONTEXT)
@click.argument("remote", required=False)
@click.argument("url", required=False)
@click.option(
    "--probe",
    is_flag=True,
    hidden=True,
    help="Check nothing: load what the check loads and open the repository (doctor).",
)
def pre_push(**options: Any) -> int:
    """Validate what is pushed (git's ref lines on stdin); exit 1 blocks the push.

    Checks the pushed commits (not the working tree): every vContext file they change,
    and the history rules against each parent. Without ref lines on stdin, the
    pre-commit framework's PRE_COMMIT_* variables describe the push.
    `git push --no-verify` skips the hook.
    """
    from .commands import hook as command

    return command.run(**options)


@hook.command("pre-receive", context_settings=CONTEXT)
@click.option(
    "--probe",
    is_flag=True,
    hidden=True,
    help="Check nothing: load what the guard loads and open the repository (doctor).",
)
def pre_receive(probe: bool) -> int:
    """In a bare repository (install --server): the guard; exit 1 refuses the push.

    Reads git's `<old> <new> <ref>` lines on stdin and checks every ref update as the
    pre-push hook checks it (refs/vcontext/ included); deleting the default branch is
    refused unless vcontext.guard.allowDelete is true, changing refs/vcontext/server
    unless vcontext.guard.allowServerRef is true.
    """
    from .commands import pre_receive as command

    return command.run(probe=probe)


@hook.command("post-receive", context_settings=CONTEXT)
def post_receive() -> int:
    """In a bare repository (install --server): merge the agents' requests just pushed.

    Reads git's `<old> <new> <ref>` lines on stdin; what it merged, or why not, is
    printed for the pushing agent (git shows it as `remote:` lines). Always exit 0:
    the push itself already happened.
    """
    from .commands import post_receive as command

    return command.run()


@cli.group(context_settings=CONTEXT)
def playbook() -> None:
    """Append correct events to a playbook (never rewrites the log)."""


KINDS = click.Choice(["strategy", "learning", "rule", "warning", "note"])
FEEDBACK = click.Choice(["humanReview", "executionOutcome", "selfReport", "unknown"])

# Options of more than one playbook command.
TITLE = click.option("--title", metavar="TEXT")
TARGET = click.option("--target", required=True, metavar="ID")
SUPERSEDED_BY = click.option(
    "--superseded-by", metavar="ID", help="targetId that replaces this entry."
)
REASON = click.option("--reason", metavar="TEXT", help="Why the event is added.")
FEEDBACK_TYPE = click.option("--feedback-type", type=FEEDBACK)
DUPLICATE_OF = click.option("--duplicate-of", metavar="ID", help="targetId this entry duplicates.")
CONFIDENCE = click.option("--confidence", type=float, metavar="0..1")


@playbook.command("add", context_settings=CONTEXT)
@click.argument("file")
@click.option("--target", required=True, metavar="ID", help="targetId of the new entry.")
@click.option("--kind", required=True, type=KINDS)
@TITLE
@click.option("--text", metavar="TEXT", help="Entry text (seed 001 style).")
@click.option("--narrative", multiple=True, metavar="KEY=TEXT", help="Narrative section.")
@click.option("--tag", multiple=True)
@click.option("--evidence", multiple=True, metavar="REF", help="PR, incident, link (repeatable).")
@CONFIDENCE
@FEEDBACK_TYPE
@click.option("--supersedes", multiple=True, metavar="ID", help="targetId this entry replaces.")
@DUPLICATE_OF
@REASON
def playbook_add(file: str, target: str, reason: str | None, **given: Any) -> int:
    """Append a new entry (operation append)."""
    from .commands import playbook_edit as command

    options = command.EventOptions(**given)
    return command.run(action="add", file=file, target=target, reason=reason, given=options)


@playbook.command("update", context_settings=CONTEXT)
@click.argument("file")
@TARGET
@click.option("--delta", multiple=True, metavar="COUNTER=+N", help="e.g. helpfulCount=+1")
@TITLE
@click.option("--text", metavar="TEXT")
@click.option("--narrative", multiple=True, metavar="KEY=TEXT", help="Replaces the narrative.")
@click.option("--tag", multiple=True, help="Replaces the tags.")
@click.option("--evidence", multiple=True, metavar="REF", help="Replaces the evidence.")
@CONFIDENCE
@FEEDBACK_TYPE
@click.option("--status", type=click.Choice(["active"]), help="Reactivate a deprecated entry.")
@SUPERSEDED_BY
@click.option("--reason", metavar="TEXT")
def playbook_update(file: str, target: str, reason: str | None, **given: Any) -> int:
    """Append an update event chained to the entry's current head."""
    from .commands import playbook_edit as command

    options = command.EventOptions(**given)
    return command.run(action="update", file=file, target=target, reason=reason, given=options)


@playbook.command("deprecate", context_settings=CONTEXT)
@click.argument("file")
@TARGET
@REASON
@click.option("--deprecated-reason", metavar="TEXT", help="Why the entry should not be used.")
@click.option("--quarantine", is_flag=True, help="Status quarantined instead of deprecated.")
@SUPERSEDED_BY
@DUPLICATE_OF
def playbook_deprecate(file: str, target: str, reason: str | None, **given: Any) -> int:
    """Append a deprecation event."""
    from .commands import playbook_edit as command

    options = command.EventOptions(**given)
    return command.run(action="deprecate", file=file, target=target, reason=reason, given=options)


@cli.group(context_settings=CONTEXT)
def ace() -> None:
    """ACE playbooks (legacy vAgenda)."""


@ace.command("apply", context_settings=CONTEXT)
@click.argument("patch")
@click.argument("doc")
def ace_apply(**options: Any) -> int:
    """Apply an AcePatch, merging 3-way when the document moved on."""
    from .commands import ace as command

    return command.run(**options)


@cli.group(context_settings=CONTEXT)
def vermas() -> None:
    """VerMAS .work/ directories (seed 004): projections derived from the event log."""


@vermas.command("project", context_settings=CONTEXT)
@click.argument("directory", metavar="[DIR]", required=False)
@click.option("--check", is_flag=True, help="Change nothing; exit 1 when a rebuild would.")
def vermas_project(**options: Any) -> int:
    """Rebuild work_orders.jsonl and messages.jsonl from events.jsonl.

    DIR holds events.jsonl (default: .work here, else at the top of the repository).
    Records keep their order and the fields no event sets; records no event created
    are dropped (and named); the files keep their style. Exit 0 done or up to date,
    1 with --check when something would change.
    """
    from .commands import vermas as command

    return command.run(**options)


@cli.command(context_settings=CONTEXT)
@click.option("--dir", "directory", metavar="DIR", help="Create the demo repository under DIR.")
def demo(**options: Any) -> int:
    """Two agents edit the same documents in a temporary repo: merge, diff, validate."""
    from .commands import demo as command

    return command.run(**options)


# -- the error boundary ---------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and map every outcome to an exit code; never a traceback for bad input."""
    args = list(sys.argv[1:] if argv is None else argv)
    return boundary(lambda: cli.main(args=args, prog_name="git-vcontext", standalone_mode=False))
