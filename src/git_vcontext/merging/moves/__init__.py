"""M18 moves: an element one side moved elsewhere carries the other side's edits along.

Found before the merge, applied while it walks the trees:

- a keyed element (``id``, else ``uid``; not a log event) whose id occurs once in its
  container on every side and which a side holds in another array than the base
  (another parent element, or another field) was *moved* by that side;
- an object without identity that a side put under a new key while its only equal
  in the base (a non-empty object, exactly one) is gone from its key in that side
  was moved too.

The merge then skips the element at its old place (``source``) and merges base,
ours and theirs of it at the mover's new place (``arrive``). A move whose new place
the merge never reached as such (an unkeyed array, a conflict around it) is dropped
and the merge run again without it (``Merger.run``), so a move never loses an edit.
"""
