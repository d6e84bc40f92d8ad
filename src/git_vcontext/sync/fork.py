"""Forking an agent: a new branch whose one commit writes fork metadata (Ext 11, M11).

The commit is built in memory from the base commit's tree (gitio), so the
current checkout, its index and HEAD are never touched. Every vContext document
whose container has a ``uid`` gets ``fork = {parentUid, parentSequence, forkedAt,
forkReason?, mergeStatus: "unmerged"}`` in that container, where the merge
engine's M11 rule looks for it; the document is written back in its own style.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import document as doc
from ..branches import agents
from ..branches.commits import document_lines, listed_name, said_line
from ..codecs import parse
from ..errors import OperationalError, ParseError, Refused, UsageError
from ..gitio import operands
from ..gitio.commits import current_branch, head_is_unborn
from ..gitio.objects import (
    FILEMODE_BLOB,
    FILEMODE_BLOB_EXECUTABLE,
    FILEMODE_TREE,
    blob_at,
    commit_at,
    make_commit,
    signatures,
    stage,
    tree_at,
    tree_index,
    write_blob,
    write_tree,
)
from ..gitio.refs import branch_tip, create_branch, has_branch
from ..record import record
from ..values import same
from ..vermas.kinds import in_work_directory
from .advice import sync_command
from .judge import refuse_invalid_document

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from pygit2 import Blob, Oid, Repository, Tree

UID_FIELD = "uid"
# The spec's field order puts ``fork`` after these Ext 10 fields (Appendix A2's Plan class).
_FORK_AFTER = ("id", UID_FIELD, "sequence", "agent", "lastModifiedBy", "changeLog")
_SNIFFED_SUFFIXES = (".json", ".tron")


@record
class ForkResult:
    """What ``fork`` did: the branch, its commit and what happened to each document."""

    agent: str
    branch: str
    base: str
    base_commit: str
    commit: str
    forked: tuple[str, ...]  # paths that received a fork block
    no_uid: tuple[str, ...]  # vContext documents without a container uid, left alone
    unreadable: tuple[str, ...]  # "path: reason" (a line each) of documents that do not parse
    rejected: tuple[str, ...] = ()  # "path: reason" of documents validate rejects (left alone)


# -- one document (pure) ----------------------------------------------------------------


def fork_block(container: dict[str, Any], *, forked_at: str, reason: str | None) -> dict[str, Any]:
    """The Fork object for a container: its own uid (forks keep it) and sequence (absent: 0)."""
    sequence = container.get(doc.SEQUENCE_FIELD)
    valid_sequence = isinstance(sequence, int) and not isinstance(sequence, bool)
    block: dict[str, Any] = {
        "parentUid": container[UID_FIELD],
        "parentSequence": sequence if valid_sequence else 0,
        "forkedAt": forked_at,
    }
    if reason:
        block["forkReason"] = reason
    block["mergeStatus"] = "unmerged"
    return block


def with_fork(data: Any, *, forked_at: str, reason: str | None) -> Any | None:
    """``data`` with a fork block in every container that has a uid; None when there is none."""
    if not doc.is_vcontext(data):
        return None
    changed = False
    out = dict(data)
    for key in doc.CONTAINER_KEYS:
        container = data.get(key)
        if isinstance(container, dict) and isinstance(container.get(UID_FIELD), str):
            block = fork_block(container, forked_at=forked_at, reason=reason)
            out[key] = _placed(container, block)
            changed = True
    return out if changed else None


def _placed(container: dict[str, Any], block: dict[str, Any]) -> dict[str, Any]:
    """``container`` with ``fork`` replaced in place, else inserted after the Ext 10 fields."""
    if doc.FORK_FIELD in container:
        return {k: (block if k == doc.FORK_FIELD else v) for k, v in container.items()}
    keys = list(container)
    after = max((keys.index(k) for k in _FORK_AFTER if k in container), default=len(keys) - 1)
    out: dict[str, Any] = {}
    for i, (k, v) in enumerate(container.items()):
        out[k] = v
        if i == after:
            out[doc.FORK_FIELD] = block
    return out


def fork_bytes(raw: bytes, path: str, *, forked_at: str, reason: str | None) -> bytes | None:
    """A document's bytes with fork metadata, in its own style; None when it has no uid.

    Raises ParseError when the document does not parse (or the result would not read back),
    Refused when ``validate`` would reject the result (``judge``: one truth with every writer).
    """
    parsed = parse(raw, path=path)
    new = with_fork(parsed.data, forked_at=forked_at, reason=reason)
    if new is None:
        return None
    text = parsed.render(new)
    back = parse(text, path=path)
    if not same(back.data, new):
        raise ParseError("the document with fork metadata does not read back", path=path)
    refuse_invalid_document(path, back, parsed)
    return text.encode("utf-8")


# -- the branch (gitio) -----------------------------------------------------------------


def fork_agent(
    repo: Repository, agent: str, *, from_branch: str | None, reason: str | None, now: str
) -> ForkResult:
    """Create the agent's branch with its fork commit and record its base; HEAD stays put."""
    branch = agents.agent_branch(repo, agent)
    if head_is_unborn(repo):
        raise OperationalError("the repository has no commits yet: commit something to fork from")
    base = _base_branch(repo, from_branch)
    if has_branch(repo, branch):
        raise OperationalError(
            f"a branch named '{branch}' already exists "
            f"(update it with {sync_command([agent])}, or pick another agent name)"
        )
    if (held := agents.remote_agent(repo, agent)) is not None:
        raise OperationalError(
            f"agent {agent!r} exists on {held[0]} ({held[0]}/{branch}): "
            f"{sync_command([agent])} creates {branch} here from it, or pick another name"
        )
    base_commit = commit_at(repo, branch_tip(repo, base))
    tree, forked, no_uid, unreadable, rejected = _forked_tree(
        repo, base_commit.tree, forked_at=now, reason=reason
    )
    author, committer = signatures(repo)
    message = _message(agent, base, reason, forked, no_uid, unreadable, rejected)
    commit_id = make_commit(repo, tree, [base_commit.id], message, author, committer)
    create_branch(repo, branch, commit_id, message=f"vcontext fork: created from {base}")
    agents.record_base(repo, agent, base)
    return ForkResult(
        agent,
        branch,
        base,
        str(base_commit.id),
        str(commit_id),
        forked,
        no_uid,
        unreadable,
        rejected,
    )


def _base_branch(repo: Repository, from_branch: str | None) -> str:
    """``--from`` (a local branch), else the branch checked out here."""
    if from_branch is not None:
        name = operands.branch(from_branch, "--from branch")
        if not has_branch(repo, name):
            raise OperationalError(f"no local branch '{from_branch}' to fork from (--from)")
        return name
    here = current_branch(repo)  # None: HEAD is detached (fork_agent refused an unborn one)
    if here is None:
        raise UsageError("HEAD is detached: name the branch to fork from with --from BRANCH")
    return here


def _forked_tree(
    repo: Repository, tree: Tree, *, forked_at: str, reason: str | None
) -> tuple[Oid, tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The base tree with every forkable document rewritten, and what happened to each: a
    document ``validate`` rejects is left alone (a new blob of it would be refused by the
    hook and the guard on the agent's first push)."""
    index = tree_index(tree)
    forked: list[str] = []
    no_uid: list[str] = []
    unreadable: list[str] = []
    rejected: list[str] = []
    for path, blob, mode in vcontext_blobs(repo, tree):
        try:
            new = fork_bytes(blob.data, path, forked_at=forked_at, reason=reason)
        except ParseError as exc:
            unreadable.append(f"{listed_name(path)}: {said_line(exc.reason)}")
            continue
        except Refused as exc:  # the judge's line names the file first
            why = exc.message.removeprefix(f"{path}: ")
            rejected.append(f"{listed_name(path)}: {said_line(why)}")
            continue
        if new is None:
            if doc.looks_like_vcontext(blob.data):
                no_uid.append(path)
            continue
        stage(index, path, write_blob(repo, new), mode)
        forked.append(path)
    return (
        write_tree(repo, index),
        tuple(forked),
        tuple(no_uid),
        tuple(unreadable),
        tuple(rejected),
    )


def vcontext_blobs(
    repo: Repository, tree: Tree, prefix: str = ""
) -> Iterator[tuple[str, Blob, int]]:
    """(path, blob, mode) of the vContext documents in a tree: by install's patterns or content."""
    for entry in tree:
        path = prefix + (entry.name or "")  # (a tree's entries all have a name)
        if entry.filemode == FILEMODE_TREE:
            yield from vcontext_blobs(repo, tree_at(repo, entry.id), path + "/")
            continue
        if entry.filemode not in (FILEMODE_BLOB, FILEMODE_BLOB_EXECUTABLE):
            continue  # symlinks and submodules are not documents
        if path.endswith(".jsonl") or in_work_directory(path):
            continue  # JSONL logs and VerMAS files have no container to fork
        if doc.matches_file_patterns(path):
            yield path, blob_at(repo, entry.id), entry.filemode
        elif path.endswith(_SNIFFED_SUFFIXES):
            blob = blob_at(repo, entry.id)
            if doc.looks_like_vcontext(blob.data):
                yield path, blob, entry.filemode


def _message(
    agent: str,
    base: str,
    reason: str | None,
    forked: tuple[str, ...],
    no_uid: tuple[str, ...],
    unreadable: tuple[str, ...],
    rejected: tuple[str, ...] = (),
) -> str:
    lines = [f"vcontext fork: agent {agent} from {base}", ""]
    if reason:
        lines += [f"Reason: {said_line(reason)}", ""]
    if forked:
        lines.append('Fork metadata (mergeStatus "unmerged") written to:')
        lines += document_lines(forked)
    elif rejected:
        lines.append("No fork metadata written.")
    else:
        lines.append("No document has a container uid: no fork metadata written.")
    if no_uid:
        lines += ["", "Left alone (no container uid):", *document_lines(no_uid)]
    if unreadable:
        lines += ["", "Left alone (does not parse):", *[f"- {u}" for u in unreadable]]
    if rejected:
        lines += ["", "Left alone (validate rejects it):", *[f"- {r}" for r in rejected]]
    text = "\n".join(lines) + "\n"
    # file names that are not UTF-8 (surrogateescape): U+FFFD in the message, which is text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
