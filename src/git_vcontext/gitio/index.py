"""The repository's own index (``.git/index``), read afresh each time: its conflict stages
and the paths it tracks."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygit2 import IndexEntry, Repository

    Stages = tuple[IndexEntry | None, IndexEntry | None, IndexEntry | None]
    """A conflicted path's index entries: base (stage 1), ours (2), theirs (3); None: absent."""


def conflict_stages(repo: Repository) -> dict[str, Stages]:
    """Conflicted paths of the index: (base, ours, theirs) entries, None where absent."""
    index = repo.index
    index.read()
    conflicts = index.conflicts
    if conflicts is None:
        return {}
    out: dict[str, Stages] = {}
    for anc, ours, theirs in conflicts:
        out[(ours or theirs or anc).path] = (anc, ours, theirs)
    return out


def tracked_paths(repo: Repository) -> list[str]:
    """Every path the index holds (stage 0 and conflicted ones), in its order."""
    index = repo.index
    index.read()
    return [entry.path for entry in index]


def is_tracked(repo: Repository, path: str) -> bool:
    """Whether the index holds ``path`` (repo-relative)."""
    index = repo.index
    index.read()
    return path in index
