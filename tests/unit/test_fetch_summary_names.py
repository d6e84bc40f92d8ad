"""How git's fetch names refs in its summary lines (``localremote.shown_ref``), and back
(``localremote.full_refs``): one pair of readings for both looks' lines about a
remote-tracking ref git's fetch left as it was (``gitio.remote._tracking_refused`` reads
git's lines back to the refs the look in process names)."""

from __future__ import annotations

import pytest

from git_vcontext.gitio.localremote import full_refs, shown_ref


@pytest.mark.parametrize(
    ("ref", "shown"),
    [
        ("refs/heads/main", "main"),
        ("refs/tags/v1", "v1"),
        ("refs/remotes/origin/main", "origin/main"),
        ("refs/vcontext/lease/main", "refs/vcontext/lease/main"),
    ],
)
def test_a_ref_shown_as_git_fetch_shows_it_reads_back_to_its_full_name(
    ref: str, shown: str
) -> None:
    assert shown_ref(ref) == shown
    assert ref in full_refs(shown)
    assert full_refs(shown)[-1] == shown  # (a name git shows in full: as it is, last)
