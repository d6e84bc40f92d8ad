"""One loose object of a repository read without pygit2, whose import is most of what a hook
with almost nothing to do costs: the server's guard reads the commit of a push that only
takes ``sync --push``'s lease (and its parent) this way
(``commands.pre_receive.nothing_to_check``); and the names of its refs read from the files
git keeps them in, without starting ``git for-each-ref`` (``ref_names_in_files``).

Only what is certain is answered: an object that is not loose in the directories given
(packed, behind an alternate, absent), too big, or not well-formed is None, and the caller
does the full work with pygit2 (or git); refs that are not plainly in git's files backend
likewise.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

MAX_OBJECT = 1 << 16  # a lease commit is a few hundred bytes
EMPTY_TREES = frozenset(
    {
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",  # SHA-1
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",  # SHA-256
    }
)
HEX = "0123456789abcdef"


def is_oid(text: str) -> bool:
    """Whether ``text`` is an object id as git writes it: 40 (SHA-1) or 64 (SHA-256)
    lowercase hexadecimal digits (no ``re``: the guard's light paths do without it)."""
    return len(text) in (40, 64) and not text.strip(HEX)


def loose_dirs(git_dir: str) -> list[str]:
    """Where a hook reads loose objects itself: the push's quarantine (git's
    ``GIT_QUARANTINE_PATH`` for pre-receive), then the repository's ``objects``, when git's
    environment says exactly that (``GIT_OBJECT_DIRECTORY`` the quarantine or unset,
    ``GIT_ALTERNATE_OBJECT_DIRECTORIES`` the repository's store or unset, the quarantine
    inside that store), so an object found there is the one git would read; an empty list
    otherwise (git reads them all)."""
    env = os.environ
    own = os.path.realpath(os.path.join(git_dir, "objects"))
    quarantine = env.get("GIT_QUARANTINE_PATH")
    where = env.get("GIT_OBJECT_DIRECTORY")
    others = env.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")
    if quarantine:
        quarantine = os.path.realpath(quarantine)
        if os.path.dirname(quarantine) != own:
            return []
    if where is not None and os.path.realpath(where) not in (quarantine, own):
        return []
    if others is not None and others and os.path.realpath(others) != own:
        return []
    return [d for d in (quarantine, own) if d]


def loose_object(
    dirs: Sequence[str], oid: str, limit: int = MAX_OBJECT
) -> tuple[str, bytes] | None:
    """(type, content) of the loose object ``oid`` in the first of ``dirs`` holding it;
    None when none does, or it is bigger than ``limit`` (compressed or not)."""
    if not is_oid(oid):
        return None
    for folder in dirs:
        try:
            with open(os.path.join(folder, oid[:2], oid[2:]), "rb") as fh:
                raw = fh.read(limit + 1)
        except OSError:
            continue
        import zlib  # lazy: the guard's light path asks only when it reads objects

        inflate = zlib.decompressobj()
        try:
            data = inflate.decompress(raw, limit + 64)
        except zlib.error:
            return None
        if not inflate.eof or len(raw) > limit:
            return None  # truncated, or bigger than anything this reader is for
        head, sep, body = data.partition(b"\0")
        kind, _, size = head.partition(b" ")
        if not sep or not size.isdigit() or int(size) != len(body):
            return None
        return kind.decode("ascii", "replace"), body
    return None


def is_empty_root_commit(dirs: Sequence[str], oid: str) -> bool:
    """Whether ``oid`` is, for certain, a commit of the empty tree without parents (what a
    ``sync --push`` lease ref points to): a commit that changes no file."""
    header = _commit_header(dirs, oid)
    return header is not None and not header[1] and header[0] in EMPTY_TREES


LEASES = "refs/vcontext/lease/"
"""Where ``sync --push`` keeps each base's lease (``remote.refs``)."""


def is_lease_ref(ref: str) -> bool:
    """Whether ``ref`` is a base's lease ref (``remote.refs``)."""
    return ref.startswith(LEASES) and len(ref) > len(LEASES)


def is_lease_commit(
    dirs: Sequence[str], oid: str, before: Sequence[str], on: Collection[str] | None = None
) -> bool:
    """Whether ``oid`` is, for certain, a commit that changes no file as a ``sync --push``
    lease commit is (``remote.refs``): a root commit of the empty tree, or a commit with one
    parent and that parent's tree, the parent loose in ``before`` (the repository's own
    store: there before the push, so the push brings no commit but ``oid``) and, with
    ``on``, one of those (the tips of the repository's refs: a commit git's ``rev-list
    --not --all`` never lists, so one the guard judged; a commit merely in the store may be
    on no ref, never judged)."""
    header = _commit_header(dirs, oid)
    if header is None:
        return False
    tree, parents = header
    if not parents:
        return tree in EMPTY_TREES
    if len(parents) != 1:
        return False
    if on is not None and parents[0] not in on:
        return False
    parent = _commit_header(before, parents[0])
    return parent is not None and parent[0] == tree


def _commit_header(dirs: Sequence[str], oid: str) -> tuple[str, list[str]] | None:
    """(tree, parents) of the loose commit ``oid``, as git reads them (the first tree line
    and the parent lines right after it); None when not read for certain."""
    found = loose_object(dirs, oid)
    if found is None or found[0] != "commit":
        return None
    lines = found[1].split(b"\n\n", 1)[0].split(b"\n")
    if not lines[0].startswith(b"tree "):
        return None
    tree = lines[0][len(b"tree ") :].decode("ascii", "replace")
    parents = []
    rest = lines[1:]
    while rest and rest[0].startswith(b"parent "):
        parents.append(rest.pop(0)[len(b"parent ") :].decode("ascii", "replace"))
    if any(line.startswith((b"tree ", b"parent ")) for line in rest):
        return None  # not as git writes commits: git would read something else
    if not is_oid(tree) or not all(is_oid(p) for p in parents):
        return None
    return tree, parents


REF_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./")
"""What a ref name read from a file name here may hold: a name with anything else (which
git may refuse as a ref name, and ``for-each-ref`` skip) is left to git."""


def ref_names_in_files(git_dir: str) -> set[str] | None:
    """Every ref of the plain repository ``git_dir`` (refs/..., by full name), read where
    git's files backend keeps them: each loose ref file under ``refs/`` and the lines of
    ``packed-refs``, as ``git for-each-ref`` lists them. None when that is not certain: the
    refs may be elsewhere (``GIT_COMMON_DIR``, a ``commondir`` file, another ref storage such
    as reftable), or a file does not read as a plain ref (a symbolic ref, a name git may
    refuse, content that is not one object id) — then git is asked. Files git skips itself
    are skipped (a name starting with ``.``, a ``.lock`` being written). Saves the guard a
    ``git for-each-ref`` per push (issue 28). A ref whose object is missing is listed (git
    would fail): the guard asks only after ``git rev-list --all`` read every ref."""
    found = _refs_in_files(git_dir)
    return None if found is None else set(found[0]) | set(found[1])


def ref_tips_in_files(git_dir: str) -> dict[str, str] | None:
    """The objects the refs of the plain repository ``git_dir`` point at, by ref, read as
    ``ref_names_in_files`` reads their names (a packed ref's line only when no loose file
    of that name overrides it), for certain: None when a name is one git refuses as a ref
    (``_refused``) besides what ``ref_names_in_files`` leaves to git. Every one is
    what a ref of ``--all`` holds now (tags unpeeled: a tag's object is not a commit, so a
    walk that stops at these reads on past it); ``HEAD`` is not among them."""
    found = _refs_in_files(git_dir)
    if found is None:
        return None
    loose, packed = found
    if any(_refused(name) for name in (*loose, *packed)):
        return None
    return {**packed, **loose}


def _refused(name: str) -> bool:
    """Whether git refuses ``name`` as a ref (``git check-ref-format``) for a reason
    ``REF_CHARACTERS`` does not already say: ``..``, an empty component, one starting with
    ``.`` or ending with ``.lock``, a ``.`` at the end."""
    if ".." in name or name.endswith("."):
        return True
    parts = name.split("/")
    return any(not part or part.startswith(".") or part.endswith(".lock") for part in parts)


def _refs_in_files(git_dir: str) -> tuple[dict[str, str], dict[str, str]] | None:
    """The loose refs and the packed refs (name: object id) of ``ref_names_in_files``."""
    if os.environ.get("GIT_COMMON_DIR") or os.path.exists(os.path.join(git_dir, "commondir")):
        return None
    try:
        with open(os.path.join(git_dir, "config"), "rb") as fh:
            config = fh.read().lower()
    except OSError:
        return None
    if b"refstorage" in config or os.path.exists(os.path.join(git_dir, "reftable")):
        return None  # another ref storage than files
    loose: dict[str, str] = {}
    try:
        if not _loose_refs(os.path.join(git_dir, "refs"), "refs", loose):
            return None
        packed = _packed_refs(os.path.join(git_dir, "packed-refs"))
    except OSError:
        return None
    return None if packed is None else (loose, packed)


def _loose_refs(folder: str, prefix: str, names: dict[str, str]) -> bool:
    """Add the loose refs under ``folder`` (named ``prefix/...``); False when one is not
    certain."""
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name.endswith(".lock"):
                continue  # git skips these itself
            if not REF_CHARACTERS.issuperset(name):
                return False
            full = prefix + "/" + name
            if entry.is_symlink():
                return False  # a symbolic ref of old
            if entry.is_dir():
                if not _loose_refs(entry.path, full, names):
                    return False
                continue
            if not entry.is_file():
                return False
            with open(entry.path, "rb") as fh:
                content = fh.read(80)
            oid = content.rstrip(b"\n").decode("ascii", "replace")
            if not is_oid(oid):
                return False  # a symbolic ref, or not a ref git reads
            names[full] = oid
    return True


def _packed_refs(path: str) -> dict[str, str] | None:
    """The names in ``packed-refs``, each with its object (none when there is no such file);
    None when a line does not read as git writes them."""
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return {}
    names = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("^"):
            if not is_oid(line[1:]):
                return None
            continue
        oid, _, name = line.partition(" ")
        if not is_oid(oid) or not name.startswith("refs/") or not REF_CHARACTERS.issuperset(name):
            return None
        names[name] = oid
    return names
