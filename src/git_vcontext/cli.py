"""The command line: thin click wrappers around ``commands``, and the one error boundary."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from .boundary import boundary
from .version import __version__

if TYPE_CHECKING:
    from .codecs import Format, TronFlavor

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

FORMAT_TEXT_JSON = click.Choice(["text", "json"])
FORMAT_PICTURE = click.Choice(["text", "json", "dot", "mermaid"])
CONFLICT_STYLE = click.Choice(["markers", "structured"])


# Each command imports its ``commands`` module only when it runs (``--help`` stays quick)
# and calls its ``run`` with keyword arguments mypy checks against that ``run``.


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


F = TypeVar("F", bound=Callable[..., Any])


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
    help="In a bare repository: merge agents' sync requests as they are pushed.",
)
def install(
    local: bool, global_: bool, force: bool, no_hooks: bool, recurse_submodules: bool, server: bool
) -> int:
    """Set up the merge driver, diff driver, difftool, attributes and pre-push hook.

    --server, in the bare repository agents push to, installs instead a post-receive
    hook that merges the agents' integration requests (git vcontext sync --push) into
    their base branches as they arrive. Optional: sync --push works without it.
    """
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
        scope=scope, force=force, no_hooks=no_hooks, server=server, recurse=recurse_submodules
    )


def _server_alone(server: bool, **others: bool) -> None:
    given = [f"--{k.strip('_').replace('_', '-')}" for k, v in others.items() if v]
    if server and given:
        raise click.UsageError(f"--server cannot be combined with {', '.join(given)}")


@cli.command(context_settings=CONTEXT)
@_scope_options
@click.option("--server", is_flag=True, help="Remove what install --server added.")
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
    """Check the setup; exit 1 when something is missing or broken."""
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
@click.option("--conflict-style", type=CONFLICT_STYLE, help="markers (default) or structured.")
@click.option(
    "--virtual-base",
    is_flag=True,
    help="Git's inner merge of a criss-cross history: conflicts take the base's value.",
)
def merge_driver(
    base: str,
    ours: str,
    theirs: str,
    path: str | None,
    marker_size: int,
    base_label: str | None,
    ours_label: str | None,
    theirs_label: str | None,
    conflict_style: str | None,
    virtual_base: bool,
) -> int:
    """The git merge driver: merge into %A in place; exit 0 clean, 1 conflicts."""
    from .commands import merge_driver as command

    return command.run(
        base=base,
        ours=ours,
        theirs=theirs,
        path=path,
        marker_size=marker_size,
        base_label=base_label,
        ours_label=ours_label,
        theirs_label=theirs_label,
        conflict_style=conflict_style,
        virtual_base=virtual_base,
    )


@cli.command(context_settings=CONTEXT)
@click.argument("base")
@click.argument("ours")
@click.argument("theirs")
@click.option("-o", "--output", metavar="OUT", help="Write the result here instead of stdout.")
@click.option(
    "--path", "path", metavar="NAME", help="Name used to pick the format and in messages."
)
@click.option("--report", metavar="FILE", help="Write a JSON report to FILE ('-' = stdout).")
@click.option("--conflict-style", type=CONFLICT_STYLE, help="markers (default) or structured.")
@click.option(
    "--favor",
    type=click.Choice(["ours", "theirs"]),
    help="Settle every conflict on this side, noted in the report (merge.vcontext.favor).",
)
def merge(
    base: str,
    ours: str,
    theirs: str,
    output: str | None,
    path: str | None,
    report: str | None,
    conflict_style: str | None,
    favor: str | None,
) -> int:
    """Three-way merge of three files outside git."""
    from .commands import merge as command

    return command.run(
        base=base,
        ours=ours,
        theirs=theirs,
        output=output,
        path=path,
        report=report,
        conflict_style=conflict_style,
        favor=favor,
    )


# -- resolving conflicts ----------------------------------------------------


@cli.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text")
def conflicts(paths: Sequence[str], fmt: str) -> int:
    """The vContext conflicts left to resolve; exit 1 when there are any.

    \b
    During a stopped merge, rebase or cherry-pick: each conflicted document's
    index stages merged again, whatever the work tree shows (markers, diff3,
    structured, or half edited). Otherwise: files holding conflict markers or
    an unresolved ConflictResolution. Each conflict has a stable id.
    """
    from .commands import conflicts as command

    return command.run(paths=paths, fmt=fmt)


@cli.command(context_settings=CONTEXT)
@click.argument("path")
@click.option("--conflict", metavar="ID|POINTER", help="One conflict (default: all that remain).")
@click.option("--take", type=click.Choice(["ours", "theirs", "base"]), help="Take that side.")
@click.option("--value", metavar="JSON", help="Put this JSON value there instead.")
@click.option("--no-add", is_flag=True, help="Do not stage the file when no conflict is left.")
@click.option("--dry-run", is_flag=True, help="Print the result; change nothing.")
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text")
def resolve(
    path: str,
    conflict: str | None,
    take: str | None,
    value: str | None,
    no_add: bool,
    dry_run: bool,
    fmt: str,
) -> int:
    """Settle conflicts of PATH: exit 0 when none is left (the file is staged), 1 otherwise.

    The file is written in ours' style: valid, and without markers once no conflict
    is left. Taking a side that has no value there (--take of an absent side)
    removes the value. Choices are kept under .git/vcontext/resolve/ until the last one.
    """
    from .commands import resolve as command

    return command.run(
        path=path,
        conflict=conflict,
        take=take,
        value=value,
        no_add=no_add,
        dry_run=dry_run,
        fmt=fmt,
    )


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
def mergetool(base: str, local: str, remote: str, merged: str) -> int:
    """Walk through the conflicts of MERGED in the terminal (git mergetool -t vcontext)."""
    from .commands import mergetool as command

    return command.run(base=base, local=local, remote=remote, merged=merged)


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
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
@click.option("--exit-code", is_flag=True, help="Exit 1 when there are differences.")
@click.option("--cached", "--staged", "cached", is_flag=True, help="Index against HEAD.")
@click.option("--stat", is_flag=True, help="One summary line per file.")
@click.option(
    "--path",
    "name",
    metavar="NAME",
    help="OLD NEW: the file's real name, shown and used for the format (difftool: $MERGED).",
)
def diff(
    args: tuple[str, ...],
    fmt: str,
    color: str,
    exit_code: bool,
    cached: bool,
    stat: bool,
    name: str | None,
) -> int:
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
    return command.run(
        args=args,
        fmt=fmt,
        color=color,
        exit_code=exit_code,
        cached=cached,
        stat=stat,
        paths=paths,
        name=name,
    )


@cli.command("log", cls=_PathsAfterDashDash, context_settings=CONTEXT)
@click.argument("args", nargs=-1, metavar="[REV-RANGE] [--] FILE[#ID]...")
@click.option("--follow", is_flag=True, help="Follow renames and JSON <-> TRON conversions.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
@click.option(
    "-n", "--max-count", type=click.IntRange(min=1), metavar="N", help="Newest N commits."
)
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
@click.option(
    "--full-history",
    is_flag=True,
    help="Walk every parent of a merge, as git log --full-history: shows a change a merge "
    "dropped, and that merge.",
)
def log_(
    args: tuple[str, ...],
    follow: bool,
    fmt: str,
    max_count: int | None,
    color: str,
    full_history: bool,
) -> int:
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
    return command.run(
        args=args,
        paths=paths,
        follow=follow,
        fmt=fmt,
        color=color,
        max_count=max_count,
        full_history=full_history,
    )


@cli.command(context_settings=CONTEXT)
@click.argument("file")
@click.option("--rev", metavar="REV", help="Blame the file as it is at REV (default: work tree).")
@click.option("--fields", is_flag=True, help="One line per field of each item.")
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
def blame(file: str, rev: str | None, fields: bool, fmt: str, color: str) -> int:
    """For each item (or field), the commit, author and date that last changed it.

    Items are the elements with an id of the document's item lists (and the
    records of a JSONL file); a playbook entry's line shows the commit that
    brought its winning head event. Renames and JSON <-> TRON conversions are
    followed; changes not committed yet are blamed on "Not Committed Yet".
    """
    from .commands import blame as command

    return command.run(file=file, rev=rev, fields=fields, fmt=fmt, color=color)


@cli.command(context_settings=CONTEXT)
@click.argument("file")
def textconv(file: str) -> int:
    """Canonical line-per-fact rendering (git's diff.vcontext.textconv)."""
    from .commands import textconv as command

    return command.run(file=file)


@cli.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text")
@click.option(
    "--untracked", is_flag=True, help="Without paths: check untracked vContext files too."
)
def validate(paths: Sequence[str], fmt: str, untracked: bool) -> int:
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

    return command.run(paths=paths, fmt=fmt, untracked=untracked)


@cli.command(context_settings=CONTEXT)
@click.argument("file")
@click.option("--format", "fmt", type=FORMAT_PICTURE, default="text")
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
def view(
    file: str,
    fmt: str,
    status: str | None,
    kind: tuple[str, ...],
    tag: tuple[str, ...],
    search: str | None,
    target: tuple[str, ...],
    every: bool,
    rev: str | None,
) -> int:
    """A playbook's current view: one entry per targetId, heads resolved.

    \b
    --format dot|mermaid draws each target's events (prevEventId edges,
    heads outlined, the winning head filled, anomalies in red):
      git vcontext view FILE --format dot | dot -Tsvg > playbook.svg
    A playbook of more than 12 targets draws only those with several heads,
    concurrent edits or anomalies (at most 50), unless --all or --target.
    """
    from .commands import view as command

    return command.run(
        file=file,
        fmt=fmt,
        status=status,
        kind=kind,
        tag=tag,
        search=search,
        rev=rev,
        target=target,
        every=every,
    )


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
def convert(file: str, to: Format, tron_flavor: TronFlavor, output: str | None) -> int:
    """Lossless JSON <-> TRON for any JSON value ('-' reads stdin)."""
    from .commands import convert as command

    return command.run(path=file, to=to, tron_flavor=tron_flavor, output=output)


# -- workflow -------------------------------------------------------------


@cli.command(context_settings=CONTEXT)
@click.argument("agent")
@click.option("--from", "from_branch", metavar="BRANCH", help="Base branch (default: current).")
@click.option("--reason", metavar="TEXT", help="Why the agent forks (forkReason).")
@click.option("--worktree", metavar="PATH", help="Also add a git worktree at PATH.")
def fork(agent: str, from_branch: str | None, reason: str | None, worktree: str | None) -> int:
    """Create agents/AGENT with fork metadata in every vContext document.

    One commit on the new branch, made without touching the current checkout;
    the base branch is recorded in git config vcontext.agent.AGENT.base.
    """
    from .commands import fork as command

    return command.run(agent=agent, from_branch=from_branch, reason=reason, worktree=worktree)


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
def sync(
    agents: tuple[str, ...],
    all_agents: bool,
    into: str | None,
    push: str | None,
    dry_run: bool,
    checkout: bool,
) -> int:
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
    vcontext conflicts / resolve, or git mergetool -t vcontext), git commit
    --no-edit, then sync --push again. Every conflict ends with the commands to
    run next.
    """
    from .commands import sync as command

    return command.run(
        agents=agents,
        all_agents=all_agents,
        into=into,
        push=push,
        dry_run=dry_run,
        checkout=checkout,
    )


@cli.command(context_settings=CONTEXT)
@click.option("--format", "fmt", type=FORMAT_PICTURE, default="text")
@click.option(
    "--exit-code",
    is_flag=True,
    help="With --format dot|mermaid: exit 1 when a conflict is predicted (the table and "
    "JSON always do).",
)
def status(fmt: str, exit_code: bool) -> int:
    """Agent branches: ahead/behind, changes, sequence divergence, predicted conflicts.

    Exits 1 when a sync would stop on a conflict; a picture printed exits 0 (a
    pipeline's first step), 1 only with --exit-code.

    \b
    --format dot|mermaid draws the agents around their base: ahead/behind on
    the edges, agents that would conflict with each other joined in red
    (trial merges of every two agents that changed the same files):
      git vcontext status --format dot | dot -Tpng > agents.png
    """
    from .commands import status as command

    return command.run(fmt=fmt, exit_code=exit_code)


@cli.command(context_settings=CONTEXT)
@click.option("--root", metavar="DIR", help="Serve DIR (default: the repository's top, else here).")
@click.option(
    "--agent", metavar="NAME", help="Who writes (default: agents/NAME checked out, else mcp)."
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
def mcp(
    root: str | None,
    agent: str | None,
    http: str | None,
    token_env: str | None,
    session_timeout: float | None,
    max_sessions: int | None,
    read_only: bool,
    allow: str | None,
    commit: bool,
    todo: str | None,
    plan: str | None,
    playbook: str | None,
) -> int:
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

    return command.run(
        root=root,
        agent=agent,
        http=http,
        token_env=token_env,
        session_timeout=session_timeout,
        max_sessions=max_sessions,
        read_only=read_only,
        allow=allow,
        commit=commit,
        todo=todo,
        plan=plan,
        playbook=playbook,
    )


# -- hooks, playbooks, demo ---------------------------------------------------


@cli.group(context_settings=CONTEXT)
def hook() -> None:
    """Hook bodies called by the installed shims."""


@hook.command("pre-push", context_settings=CONTEXT)
@click.argument("remote", required=False)
@click.argument("url", required=False)
def pre_push(remote: str | None, url: str | None) -> int:
    """Validate what is pushed (git's ref lines on stdin); exit 1 blocks the push.

    Checks the pushed commits (not the working tree): every vContext file they change,
    and the history rules against each parent. Without ref lines on stdin, the
    pre-commit framework's PRE_COMMIT_* variables describe the push.
    `git push --no-verify` skips the hook.
    """
    from .commands import hook as command

    return command.run(remote=remote, url=url)


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


@playbook.command("add", context_settings=CONTEXT)
@click.argument("file")
@click.option("--target", required=True, metavar="ID", help="targetId of the new entry.")
@click.option("--kind", required=True, type=KINDS)
@click.option("--title", metavar="TEXT")
@click.option("--text", metavar="TEXT", help="Entry text (seed 001 style).")
@click.option("--narrative", multiple=True, metavar="KEY=TEXT", help="Narrative section.")
@click.option("--tag", multiple=True)
@click.option("--evidence", multiple=True, metavar="REF", help="PR, incident, link (repeatable).")
@click.option("--confidence", type=float, metavar="0..1")
@click.option("--feedback-type", type=FEEDBACK)
@click.option("--supersedes", multiple=True, metavar="ID", help="targetId this entry replaces.")
@click.option("--duplicate-of", metavar="ID", help="targetId this entry duplicates.")
@click.option("--reason", metavar="TEXT", help="Why the event is added.")
def playbook_add(
    file: str,
    target: str,
    kind: str,
    title: str | None,
    text: str | None,
    narrative: tuple[str, ...],
    tag: tuple[str, ...],
    evidence: tuple[str, ...],
    confidence: float | None,
    feedback_type: str | None,
    supersedes: tuple[str, ...],
    duplicate_of: str | None,
    reason: str | None,
) -> int:
    """Append a new entry (operation append)."""
    from .commands import playbook_edit as command

    given = command.EventOptions(
        kind=kind,
        title=title,
        text=text,
        narrative=narrative,
        tag=tag,
        evidence=evidence,
        confidence=confidence,
        feedback_type=feedback_type,
        supersedes=supersedes,
        duplicate_of=duplicate_of,
    )
    return command.run(action="add", file=file, target=target, reason=reason, given=given)


@playbook.command("update", context_settings=CONTEXT)
@click.argument("file")
@click.option("--target", required=True, metavar="ID")
@click.option("--delta", multiple=True, metavar="COUNTER=+N", help="e.g. helpfulCount=+1")
@click.option("--title", metavar="TEXT")
@click.option("--text", metavar="TEXT")
@click.option("--narrative", multiple=True, metavar="KEY=TEXT", help="Replaces the narrative.")
@click.option("--tag", multiple=True, help="Replaces the tags.")
@click.option("--evidence", multiple=True, metavar="REF", help="Replaces the evidence.")
@click.option("--confidence", type=float, metavar="0..1")
@click.option("--feedback-type", type=FEEDBACK)
@click.option("--status", type=click.Choice(["active"]), help="Reactivate a deprecated entry.")
@click.option("--superseded-by", metavar="ID", help="targetId that replaces this entry.")
@click.option("--reason", metavar="TEXT")
def playbook_update(
    file: str,
    target: str,
    delta: tuple[str, ...],
    title: str | None,
    text: str | None,
    narrative: tuple[str, ...],
    tag: tuple[str, ...],
    evidence: tuple[str, ...],
    confidence: float | None,
    feedback_type: str | None,
    status: str | None,
    superseded_by: str | None,
    reason: str | None,
) -> int:
    """Append an update event chained to the entry's current head."""
    from .commands import playbook_edit as command

    given = command.EventOptions(
        delta=delta,
        title=title,
        text=text,
        narrative=narrative,
        tag=tag,
        evidence=evidence,
        confidence=confidence,
        feedback_type=feedback_type,
        status=status,
        superseded_by=superseded_by,
    )
    return command.run(action="update", file=file, target=target, reason=reason, given=given)


@playbook.command("deprecate", context_settings=CONTEXT)
@click.argument("file")
@click.option("--target", required=True, metavar="ID")
@click.option("--reason", metavar="TEXT", help="Why the event is added.")
@click.option("--deprecated-reason", metavar="TEXT", help="Why the entry should not be used.")
@click.option("--quarantine", is_flag=True, help="Status quarantined instead of deprecated.")
@click.option("--superseded-by", metavar="ID", help="targetId that replaces this entry.")
@click.option("--duplicate-of", metavar="ID", help="targetId this entry duplicates.")
def playbook_deprecate(
    file: str,
    target: str,
    reason: str | None,
    deprecated_reason: str | None,
    quarantine: bool,
    superseded_by: str | None,
    duplicate_of: str | None,
) -> int:
    """Append a deprecation event."""
    from .commands import playbook_edit as command

    given = command.EventOptions(
        deprecated_reason=deprecated_reason,
        quarantine=quarantine,
        superseded_by=superseded_by,
        duplicate_of=duplicate_of,
    )
    return command.run(action="deprecate", file=file, target=target, reason=reason, given=given)


@cli.group(context_settings=CONTEXT)
def ace() -> None:
    """ACE playbooks (legacy vAgenda)."""


@ace.command("apply", context_settings=CONTEXT)
@click.argument("patch")
@click.argument("doc")
def ace_apply(patch: str, doc: str) -> int:
    """Apply an AcePatch, merging 3-way when the document moved on."""
    from .commands import ace as command

    return command.run(patch=patch, doc=doc)


@cli.group(context_settings=CONTEXT)
def vermas() -> None:
    """VerMAS .work/ directories (seed 004): projections derived from the event log."""


@vermas.command("project", context_settings=CONTEXT)
@click.argument("directory", metavar="[DIR]", required=False)
@click.option("--check", is_flag=True, help="Change nothing; exit 1 when a rebuild would.")
def vermas_project(directory: str | None, check: bool) -> int:
    """Rebuild work_orders.jsonl and messages.jsonl from events.jsonl.

    DIR holds events.jsonl (default: .work here, else at the top of the repository).
    Records keep their order and the fields no event sets; records no event created
    are dropped (and named); the files keep their style. Exit 0 done or up to date,
    1 with --check when something would change.
    """
    from .commands import vermas as command

    return command.run(directory=directory, check=check)


@cli.command(context_settings=CONTEXT)
@click.option("--dir", "directory", metavar="DIR", help="Create the demo repository under DIR.")
def demo(directory: str | None) -> int:
    """Two agents edit the same documents in a temporary repo: merge, diff, validate."""
    from .commands import demo as command

    return command.run(directory=directory)


# -- the error boundary ---------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and map every outcome to an exit code; never a traceback for bad input."""
    args = list(sys.argv[1:] if argv is None else argv)
    return boundary(lambda: cli.main(args=args, prog_name="git-vcontext", standalone_mode=False))
