"""``ReusedParses``: within a block, ``codecs.parse`` remembers documents by content (for
bulk merges, e.g. sync). A module of its own, imported by the first block: a process that
never enters one (the merge driver) loads no ``_contextvars`` (issue 32)."""

from __future__ import annotations

from _contextvars import ContextVar  # (contextvars is this module re-exported: issue 32)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextvars import Token
    from typing import Any

    from . import ParseMemo

_memo_var: ContextVar[ParseMemo | None] = ContextVar("git_vcontext_parse_memo", default=None)
"""The memo of the innermost ``ReusedParses`` block of this thread or task (None outside
one). One variable, made when this module is imported (under the import lock): a variable
made by the first block would race when two threads enter their first blocks at once."""


_caches_var: ContextVar[dict[str, dict[Any, Any]] | None] = ContextVar(
    "git_vcontext_block_caches", default=None
)
"""The caches other modules keep for the innermost block (``block_cache``): made with the
block, dropped when it ends, so nothing they hold outlives it (the MCP server lives long)."""


def shared_memo() -> ParseMemo | None:
    return _memo_var.get()


def block_cache(name: str) -> dict[Any, Any] | None:
    """The cache named ``name`` of this thread's (or task's) outermost block, made empty on
    first use; None outside a block. What it holds is released when the block ends."""
    caches = _caches_var.get()
    if caches is None:
        return None
    found = caches.get(name)
    if found is None:
        found = caches[name] = {}
    return found


class ReusedParses:
    """Within the block, ``parse`` remembers documents by content (for bulk merges, e.g. sync).

    The documents are shared: callers must treat ``.data`` as read-only (the merge
    engine does: it never changes its inputs). ``memo`` lets a caller keep the
    remembered documents from one block to the next. Inside another block, the outer
    block's memo stays in use. The memo is per thread (and asyncio task): a parse in
    another thread is not shared.
    """

    def __init__(self, memo: ParseMemo | None = None) -> None:
        self._mine: ParseMemo = {} if memo is None else memo
        self._token: Token[ParseMemo | None] | None = None
        self._caches: Token[dict[str, dict[Any, Any]] | None] | None = None

    def __enter__(self) -> None:
        if _memo_var.get() is None:
            self._token = _memo_var.set(self._mine)
            self._caches = _caches_var.set({})

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _memo_var.reset(self._token)
            self._token = None
        if self._caches is not None:  # the block's caches go with it
            _caches_var.reset(self._caches)
            self._caches = None
