"""What `install` writes (declared as data) and how it is added, checked and removed again."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ..codecs.text import find_conflict_marker
from ..document import FILE_PATTERNS
from ..errors import OperationalError, UsageError
from ..fsio import permitted, read_bytes, write_atomic
from ..gitio import git, open_repo, repository_error
from ..gitio.configread import Stamp, stamp
from ..gitio.places import common_dir
from ..prepush.cache import cache_root
from ..record import record
from ..validation.model import command_path, command_word, quoted_path
from .boot import BOOT, DRIVER_ARGUMENTS, LABEL_ARGUMENTS, position

PATTERNS = FILE_PATTERNS
ATTRIBUTES = "merge=vcontext diff=vcontext"

ATTRIBUTE_LINES = tuple(f"{p} {ATTRIBUTES}" for p in PATTERNS)
ATTRIBUTES_HEADER = "# git-vcontext: merge and diff vContext documents by meaning"
BASE_DRIVER = "vcontext-base"  # the driver git runs for the inner merges of criss-cross histories


MERGETOOL = "git -c mergetool.keepBackup=false mergetool -t vcontext"
"""The command messages advise for a person's walk through conflicts: plain ``git mergetool
-t vcontext`` works too, but git then keeps each file as it was before as ``FILE.orig``
(``mergetool.keepBackup``, true unless set: a setting of every tool, none of ours to
change); the choices made are kept under ``.git/vcontext/resolve/`` anyway."""


def script_command() -> str:
    """The absolute, shell-quoted command that runs this installation of git-vcontext."""
    here = console_script()
    if here.is_file() and permitted(here, os.X_OK) and starts(here):
        return shlex.quote(str(here.resolve()))
    argv0 = Path(sys.argv[0])
    if argv0.name == "git-vcontext" and argv0.is_file() and starts(argv0):
        return shlex.quote(str(argv0.resolve()))
    # (not resolved: a virtual environment's python is a link whose place says which
    # packages it sees; the interpreter it points to lacks them)
    return f"{shlex.quote(str(Path(sys.executable).absolute()))} -m git_vcontext"


def starts(script: Path) -> bool:
    """Whether the system can start ``script`` by its first line: pip writes the installing
    Python's path there as it is, and a path holding a space (a virtual environment in
    ``/home/me/my projects/``) is cut at the space, so the script cannot start at all; the
    hooks and drivers then run ``python -m git_vcontext`` instead."""
    try:
        with script.open("rb") as f:
            first = f.readline(4096)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return True  # not ours to judge (a binary launcher)
    line = first[2:].strip()
    return not (b" " in line or b"\t" in line) or not Path(os.fsdecode(line)).exists()


def console_script() -> Path:
    """Where this installation's console script is: beside its Python (``bin/``)."""
    return Path(sys.executable).parent / "git-vcontext"


def unstartable_script() -> Path | None:
    """This installation's console script when the system cannot start it by its first
    line (``starts``), else None (none there, or it starts)."""
    script = console_script()
    return script if script.is_file() and not starts(script) else None


UNQUOTABLE = re.compile(r"[\"$`\\\n\r']")
"""What a path may not hold to be written between double quotes on the launcher's exec
line: the shell would expand it, or it would end the quotes, the line or Python's string."""

LAUNCHER = "#!/bin/sh\n'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\n"
"""The first lines distlib writes for an interpreter whose path holds a space: the shell
runs ``exec "PYTHON" "$0" "$@"`` (``''`` then ``'exec'``), Python reads a string it ignores."""


def relaunch_script(script: Path) -> str:
    """Rewrite a console script that cannot start (``starts``) to start through ``sh``:
    its first line becomes ``LAUNCHER``, an ``exec`` of the quoted interpreter on this same
    file; the rest stays as it is. Atomic, same mode. Returns the line install says;
    OperationalError when the file cannot be rewritten (the commands still run as
    ``python -m git_vcontext``)."""
    data = read_bytes(str(script))
    first, _, rest = data.partition(b"\n")
    python = os.fsdecode(first[2:].strip())
    if not first.startswith(b"#!") or not Path(python).is_file():
        raise OperationalError(f"{script}: its first line names no Python to start")
    if UNQUOTABLE.search(python):
        raise OperationalError(
            f"{script}: its Python's path holds a quote, '$', a backslash or a line break: "
            "not rewritten (run the commands as 'python -m git_vcontext')"
        )
    write_atomic(script, os.fsencode(LAUNCHER.format(python=python)) + rest)
    return (
        f"rewrote {script} to start its Python through /bin/sh (its first line, a path "
        "holding a space, could not start): 'git vcontext' runs"
    )


Boot = tuple[str, list[str]]
"""How the merge driver starts its Python without ``site``: the interpreter and the folders
it imports this installation from (``server.driver_boot``)."""


def config_entries(command: str, boot: Boot | None = None) -> dict[str, str]:
    """The git configuration install writes; %S %X %Y are left alone by gits before 2.44.

    ``$MERGED`` is the path git knows a file by, ``$LOCAL``/``$REMOTE`` temporary copies.
    ``merge.vcontext.recursive`` names the driver git runs for the inner merges that
    build a criss-cross history's virtual base (M16): every conflict there takes the
    base's value, so the outer merge starts from a valid document.

    The driver and the external diff run this installation's program when it is there,
    and git's own merge or diff when it is not (a moved or removed installation): git
    goes on working and says why; ``doctor`` names the fix. The diff is an external
    diff command (``diff.vcontext.command``), which only ``git diff`` (and an explicit
    ``--ext-diff``) runs: blame, ``log -p``, ``show``, ``format-patch``, ``stash``,
    ``add -p`` and every plumbing command see the raw file.

    ``boot``: the merge drivers start that Python without ``site`` (``DRIVER_FORM``).
    """
    return {
        "merge.vcontext.name": "vContext documents (git-vcontext)",
        "merge.vcontext.driver": _guarded_driver(command, "merge-driver", boot)
        + "".join(f" {a}" for a in (*DRIVER_ARGUMENTS, *LABEL_ARGUMENTS)),
        "merge.vcontext.recursive": BASE_DRIVER,
        f"merge.{BASE_DRIVER}.name": "vContext virtual merge bases (git-vcontext)",
        f"merge.{BASE_DRIVER}.driver": _guarded_driver(command, "merge-driver --virtual-base", boot)
        + "".join(f" {a}" for a in DRIVER_ARGUMENTS),
        "diff.vcontext.command": _guarded_diff(command),
        "difftool.vcontext.cmd": f'{command} diff --path "$MERGED" "$LOCAL" "$REMOTE"',
        "mergetool.vcontext.cmd": f'{command} mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"',
        "mergetool.vcontext.trustExitCode": "true",  # exit 0: resolved, git mergetool stages it
        "man.viewer": "vcontext",
        "man.vcontext.cmd": _guarded_help(command),
    }


def _guarded_help(command: str) -> str:
    """The man viewer ``git vcontext --help`` goes through (git turns it into ``git help
    vcontext``, which needs ``man``): ``man`` itself for every page when it is installed,
    our own help text for ours when it is not (slim images), git's words otherwise."""
    exe = shlex.quote(program(command))
    ours = f'[ "$1" = git-vcontext ] && [ -x {exe} ] && exec {command} --help'
    missing = 'echo "warning: no man viewer: install man to read $1" >&2; exit 1'
    return (
        f'vcontext_help() {{ command -v man >/dev/null 2>&1 && exec man "$@"; {ours}; '
        f"{missing}; }}; vcontext_help"
    )


OLD_TEXTCONV = ("diff.vcontext.textconv", "diff.vcontext.cachetextconv")
"""What installs before issue 35 wrote for ``git diff``: a textconv (blame, ``git grep
--textconv`` and ``git diff > patch`` saw the rendering) whose cache git writes as notes
commits, which need an identity (no identity: ``git diff`` exits 128). ``install``
removes them while they hold what an install wrote; ``doctor`` names them."""


_CHECKED = re.compile(r"\[ -x (?P<exe>'[^']*'|\S+) \]")
_GUARDED = re.compile(r"\bexec (?P<cmd>(?:(?!exec ).)+?) (?:merge-driver|diff|--help)\b")


def command_words(value: str) -> list[str] | None:
    """The words that start git-vcontext in a configured value of ours (the guarded form
    install writes, or an earlier install's plain ``CMD merge-driver …``), else None; for
    a driver started without ``site`` (``DRIVER_FORM``), its program (the installation's
    console script, or Python for ``-m``)."""
    if DRIVER_FORM in value:
        checked = _CHECKED.search(value)
        return shlex.split(checked.group("exe")) if checked else None
    found = _GUARDED.search(value)
    text = found.group("cmd") if found else value
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    for stop in ("merge-driver", "diff", "textconv", "mergetool"):
        if stop in words:
            words = words[: words.index(stop)]
    return words or None


def driver_start(value: str) -> list[str] | None:
    """The command line that starts a driver's Python without ``site`` (``DRIVER_FORM``):
    Python, ``-S -P -c BOOT``, the recorded folders; None for another form."""
    if DRIVER_FORM not in value:
        return None
    try:
        words = shlex.split(value)
        at = words.index("-S")
        count = int(words[at + 4])
    except (ValueError, IndexError):
        return None
    return words[at - 1 : at + 5 + count]


def program(command: str) -> str:
    """The file a command of ours runs (the console script, or Python for ``-m``)."""
    return shlex.split(command)[0]


DRIVER_FORM = " -S -P -c "
"""What the current form of the merge driver's command holds: its Python started without
``site`` (``server.BOOT``, from the folders install recorded), not through the console
script (``site`` and its ``.pth`` files cost every file git merges ~1.5 ms of CPU, a
sixth of what a clean merge of a 200-item list takes beyond Python's own start: issue
32). An older form (the console script) still works; ``doctor`` notes it."""


def _guarded_driver(command: str, words: str, boot: Boot | None = None) -> str:
    """A merge driver that runs ``command words ARGS`` when the program is there, and git's
    own line merge (``git merge-file``) with a note when it is gone. The caller appends
    the arguments (``boot.DRIVER_ARGUMENTS``: git substitutes them in the whole line).
    ``boot``: the program's Python runs ``boot.BOOT`` without ``site`` instead (the
    program still tells whether the installation is there; BOOT itself hands the file to
    ``git merge-file`` when the package does not import)."""
    exe = shlex.quote(program(command))
    name = "vcontext_base" if "--virtual-base" in words else "vcontext_merge"
    o, a, b, named, size = (f"${position(x) + 1}" for x in ("%O", "%A", "%B", "%P", "%L"))
    missing = (
        f'echo "git-vcontext: {program(command)} is missing (moved or uninstalled?): {named} '
        'merged by lines; fix: git vcontext install" >&2'
    )
    merge = (
        f'exec git merge-file --marker-size="{size}" -L ours -L base -L theirs "{a}" "{o}" "{b}"'
    )
    run = f'[ -x {exe} ] && exec {command} {words} "$@"'
    if boot is not None:
        python, paths = boot
        py = shlex.quote(python)
        start = f"{py}{DRIVER_FORM}{shlex.quote(BOOT)} {len(paths)}"
        start += "".join(f" {shlex.quote(p)}" for p in paths)
        run = f'[ -x {exe} ] && [ -x {py} ] && exec {start} {words} "$@"'
    return f"{name}() {{ {run}; {missing}; {merge}; }}; {name}"


_RAW_PATCH_AWK = " ".join(
    (
        # git's quoting of a name: C escapes, other bytes in octal (but bytes from 0x80 as
        # they are with core.quotePath=false, QP=0)
        'function q(s,  o, i, c) { if (s !~ /["\\\\]/ &&',
        's !~ (QP ? "[^ -~]" : "[\\001-\\037\\177]")) return s; o = "\\"";',
        "for (i = 1; i <= length(s); i++) { c = substr(s, i, 1);",
        'if (c == "\\"" || c == "\\\\") o = o "\\\\" c; else if (c in E) o = o "\\\\" E[c];',
        "else if (c ~ /[ -~]/ || (!QP && O[c] > 127)) o = o c;",
        'else o = o sprintf("\\\\%03o", O[c]) }',
        'return o "\\"" }',
        'BEGIN { head = 1; meta = ENVIRON["VC_META"]; QP = ENVIRON["VC_QP"] != "false";',
        'for (i = 1; i < 256; i++) O[sprintf("%c", i)] = i;',
        'E["\\a"] = "a"; E["\\b"] = "b"; E["\\t"] = "t"; E["\\n"] = "n"; E["\\v"] = "v";',
        'E["\\f"] = "f"; E["\\r"] = "r"; A = q(ENVIRON["VC_A"]); B = q(ENVIRON["VC_B"]) }',
        "head && /^@@/ { head = 0 }",
        # diff.noprefix: git's own --no-index names the sides without a/ and b/ (the
        # copy's own name first). Any other prefix is diff.mnemonicPrefix (1/, 2/ from
        # --no-index; git itself writes c/, i/, w/ or a/ by what it compares, which an
        # external diff is not told): a/ and b/, so `git apply` (-p1) takes the patch
        "head && /^diff --git / { seen = 1;",
        'if (index(substr($0, 12), q(ENVIRON["VC_P"])) == 1) {',
        'A = q(substr(ENVIRON["VC_A"], 3)); B = q(substr(ENVIRON["VC_B"], 3)) }',
        'print "diff --git " A " " B;',
        'if (OM == ".") print "new file mode " NM;',
        'else if (NM == ".") print "deleted file mode " OM;',
        'else if (OM != NM) { print "old mode " OM; print "new mode " NM }; next }',
        "head && /^(old|new|new file|deleted file) mode / { next }",
        'head && /^index / { if (meta != "") { printf "%s", meta; meta = ""; next }',
        'sub(/ [0-7]+$/, ""); if (OM == NM) $0 = $0 " " OM; print; next }',
        'head && /^--- / { if (meta != "") { printf "%s", meta; meta = "" }',
        'print (OM == "." ? "--- /dev/null" : "--- " A TA); next }',
        'head && /^[+][+][+] / { print (NM == "." ? "+++ /dev/null" : "+++ " B TB); next }',
        '/^Binary files / { print "Binary files " (OM == "." ? "/dev/null" : A) " and "',
        '(NM == "." ? "/dev/null" : B) " differ"; next }',
        "{ print }",
        'END { if (seen && meta != "") printf "%s", meta }',
    )
)
"""git's patch header for one file, from ``git diff --no-index`` of git's temporary copies:
the ``diff --git``, ``---`` and ``+++`` names, the modes git handed over, a rename's lines."""


_PLAIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+,=@%~:# -"
"""The bytes of a name that git writes as they are (no C quoting, whatever core.quotePath)
and that no shell pattern or ``printf`` format reads as anything else: such a change takes
the one-process branch of the raw patch."""

_FAST_PATCH = " ".join(
    (
        # a change of content, same mode, names as they are: one git, headers by printf
        'if [ $# -eq 7 ] && [ "$4" = "$7" ] && { [ "$4" = 100644 ] || [ "$4" = 100755 ]; };',
        # a newline without writing one (a configured value is one line in git config -l):
        # the shell's IFS (space, tab, newline); the first line's exact match checks it
        f'then case "$1$2$5" in *[!{_PLAIN[:-2]}\\ -]*) ;; *) VC_NL=${{IFS#??}};',
        'VC_OUT=$(git diff --no-index --no-ext-diff --no-textconv --no-color -- "$2" "$5";',
        'echo .); VC_OUT=${VC_OUT%.}; VC_HUNKS=${VC_OUT#*"$VC_NL@@"};',
        'VC_TOP=${VC_OUT%%"$VC_NL"*}; VC_IX=${VC_OUT#*"${VC_NL}index "};',
        'VC_IX=${VC_IX%%"$VC_NL"*}; VC_IX=${VC_IX%% *};',
        "VC_T=; case \"$1\" in *' '*) VC_T='\t';; esac; VC_A=; VC_B=;",
        'case "$VC_TOP" in "diff --git a/${2#/} b/${5#/}") VC_A=a/; VC_B=b/;;',
        '"diff --git ${2#/} ${5#/}") ;; *) VC_HUNKS=$VC_OUT;; esac;',
        'if [ -z "$VC_OUT" ]; then exit 0; fi;',
        'if [ "$VC_HUNKS" != "$VC_OUT" ]; then',
        "printf 'diff --git %s %s\\nindex %s %s\\n--- %s%s\\n+++ %s%s\\n@@%s'",
        '"$VC_A$1" "$VC_B$1" "$VC_IX" "$4" "$VC_A$1" "$VC_T" "$VC_B$1" "$VC_T" "$VC_HUNKS"',
        "2>/dev/null;",
        "exit 0; fi;; esac; fi",
    )
)
"""The raw patch of an ordinary change with one process (``git diff --no-index`` of git's
two copies, read into the shell): git's header lines written by ``printf`` from what git
handed over (name, mode) and the ``index`` line's abbreviated names; the hunks as git
wrote them. Anything else (added, deleted, renamed, a mode change, binary, a name git
quotes, a prefix other than ``a/``/``b/`` or none) goes on to the general branch."""


def _guarded_diff(command: str) -> str:
    """git's external diff (git appends its 7 or 9 arguments, or 1 for an unmerged path).

    A person (a terminal, or git's pager on a pipe) gets this installation's structural
    view. Anything else gets git's own patch, made in the shell, so a ``git diff`` into a
    file or a pipe costs little more than git's own (which is bound by git writing its
    two temporary copies and starting the shell): an ordinary change takes one process
    (``_FAST_PATCH``); other changes ``git diff --no-index`` of the two versions, its
    header lines renamed as git names the file by ``awk``. When the program is gone (a
    moved installation) the patch is the same, with a note.
    """
    exe = shlex.quote(program(command))
    person = '{ [ -t 1 ] || { [ -p /dev/stdout ] && [ "${GIT_PAGER_IN_USE-}" = true ]; }; }'
    awk = shlex.quote(_RAW_PATCH_AWK)
    body = [
        f'if [ -x {exe} ] && {person}; then exec {command} diff "$@"; fi',
        # a reader that stops (git log -p | head): git's own end, not "external diff died"
        "trap '' PIPE",
        '[ $# -ge 7 ] || { echo "* Unmerged path $1"; exit 0; }',
        f'[ -x {exe} ] || [ "${{GIT_DIFF_PATH_COUNTER-1}}" != 1 ] || echo "git-vcontext: '
        f"{program(command)} is missing (moved or uninstalled?): git diff shows plain "
        'patches; fix: git vcontext install" >&2',
        _FAST_PATCH,
        "N=${8:-$1}",
        "TA=; TB=; case \"$1\" in *' '*) TA='\t';; esac; case \"$N\" in *' '*) TB='\t';; esac",
        'VC_META=${9-}; VC_A="a/$1"; VC_B="b/$N"; VC_P=$2; [ "$4" != . ] || VC_P=$5',
        "VC_P=${VC_P#/}; export VC_META VC_A VC_B VC_P",
        # a name outside ASCII: quoted as git quotes it (core.quotePath=false: not at all)
        'VC_QP=; case "$1$N" in *[!\\ -~]*) VC_QP=$(git config --type=bool core.quotePath);;'
        " esac; export VC_QP",
        "OM=$4; NM=$7; vc_awk() { LC_ALL=C awk "
        f'-v OM="$OM" -v NM="$NM" -v TA="$TA" -v TB="$TB" {awk}; }}',
        'OUT=$(git diff --no-index --no-ext-diff --no-color -- "$2" "$5" | vc_awk)',
        # identical contents: git still names a rename or a change of mode
        'if [ -z "$OUT" ]; then [ $# -eq 9 ] || [ "$4" != "$7" ] || exit 0; '
        '[ "$(git config --type=bool diff.noprefix)" != true ] || { VC_A=$1; VC_B=$N; }; '
        "OUT=$(echo 'diff --git a/ b/' | vc_awk); fi",
        "printf '%s\\n' \"$OUT\" 2>/dev/null; exit 0",
    ]
    return "vcontext_diff() { " + "; ".join(body) + "; }; vcontext_diff"


SETTINGS = frozenset(
    {
        "merge.vcontext.name",
        "merge.vcontext.recursive",
        f"merge.{BASE_DRIVER}.name",
        "mergetool.vcontext.trustExitCode",
        "man.viewer",  # yours (another viewer) is kept: git help then goes through it
    }
)
"""Entries whose value does not run git-vcontext: set when absent, another value is the
user's (kept, and said, unless --force); uninstall removes them while they hold ours."""


def _ours(key: str, value: str | None) -> bool:
    """Whether ``value`` of ``key`` is one install writes (this or any installation)."""
    return is_ours(value) or (key in SETTINGS and value == config_entries("git-vcontext")[key])


def is_ours(value: str | None) -> bool:
    """Whether a configured value was written by git-vcontext (any installation)."""
    return value is not None and ("git-vcontext" in value or "git_vcontext" in value)


_scopes: dict[tuple[str, str], tuple[list[Stamp], list[tuple[str, str | None]]]] = {}
"""Each scope's settings as listed (``Scope.get``), until a write of ours (``Scope.write``)
or a change of its files."""


@record
class Scope:
    """Where install writes: this repository (``local``) or the user's configuration."""

    name: str  # "local" | "global"
    cwd: Path

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    def get(self, key: str) -> str | None:
        """The value (several values of a key set more than once, one per line), as ``git
        config --local|--global --get-all`` says it: from one listing of the scope's file
        (``git config --local|--global --list``, read again after each write of ours), not
        a ``git config`` per key (install read 14 keys, uninstall 13)."""
        from ..gitio.overrides import canonical

        wanted = canonical(key)
        values = ["" if v is None else v for k, v in self._listing() if k == wanted]
        return "\n".join(values).rstrip("\n") if values else None

    def matching(self, pattern: str) -> list[str]:
        """The keys ``git config --local|--global --get-regexp PATTERN`` names."""
        found = re.compile(pattern)
        return [k for k, _ in self._listing() if found.search(k)]

    def set(self, key: str, value: str) -> None:
        self._change(key, value, "--replace-all")

    def unset(self, key: str) -> None:
        self._change(key, None, "--unset-all")

    def add(self, key: str, value: str) -> None:
        """``git config --local|--global --add KEY VALUE``: every scope is listed again."""
        _scopes.clear()
        git(["config", self.flag, "--add", "--", key, value], cwd=self.cwd)

    def drop_empty(self, section: str) -> None:
        """Remove ``section``'s header, which holds no setting (``matching`` said so): the
        settings listed stay as they are."""
        where = (self.flag, str(self.cwd))
        kept = _scopes.pop(where, None)
        fresh = kept is not None and kept[0] == [stamp(path) for path in self._files()]
        _scopes.clear()
        git(["config", self.flag, "--remove-section", "--", section], cwd=self.cwd, check=False)
        if kept is not None and fresh:
            _scopes[where] = ([stamp(path) for path in self._files()], kept[1])

    def _change(self, key: str, value: str | None, flag: str) -> None:
        """Set (``value``) or unset ``key`` with ``git config FLAG``; the listing kept is
        changed alike (not listed again per key: uninstall unsets one key after another),
        when nobody else changed the scope's files meanwhile."""
        from ..gitio.overrides import canonical

        where = (self.flag, str(self.cwd))
        kept = _scopes.pop(where, None)
        fresh = kept is not None and kept[0] == [stamp(path) for path in self._files()]
        _scopes.clear()
        values = [] if value is None else [value]
        done = git(["config", self.flag, flag, "--", key, *values], cwd=self.cwd,
                   check=value is not None)  # fmt: skip
        if kept is None or not fresh or done.returncode not in (0, 5):  # (5: was unset)
            return
        wanted = canonical(key)
        listed = [(k, v) for k, v in kept[1] if k != wanted]
        listed += [] if value is None else [(wanted, value)]
        _scopes[where] = ([stamp(path) for path in self._files()], listed)

    def _listing(self) -> list[tuple[str, str | None]]:
        """The scope's settings, listed again when its files changed (whoever wrote)."""
        key = (self.flag, str(self.cwd))
        stamps = [stamp(path) for path in self._files()]
        kept = _scopes.get(key)
        if kept is not None and kept[0] == stamps:
            return kept[1]
        out = git(["config", self.flag, "--list", "-z"], cwd=self.cwd, check=False)
        listed: list[tuple[str, str | None]] = []
        for entry in out.stdout.split("\0") if out.returncode == 0 else []:
            if entry:
                name, newline, value = entry.partition("\n")
                listed.append((name, value if newline else None))
        _scopes[key] = (stamps, listed)
        return listed

    def _files(self) -> list[str]:
        """The files ``git config --local|--global`` reads (present or not)."""
        from ..fsio import common_dir, find_git_dir

        if self.name == "local":
            found = find_git_dir(str(self.cwd), os.environ)
            return [] if found is None else [os.path.join(common_dir(found, os.environ), "config")]
        named = os.environ.get("GIT_CONFIG_GLOBAL")
        return [named] if named else [str(Path.home() / ".gitconfig"), str(_xdg_git() / "config")]

    def attributes_file(self) -> Path:
        if self.name == "local":
            return repo_top(self.cwd) / ".gitattributes"
        configured = Scope("global", self.cwd).get("core.attributesFile")
        if configured:
            return Path(os.path.expanduser(configured))
        return _xdg_git() / "attributes"


def repo_top(cwd: Path) -> Path:
    """The top of the working tree, or an OperationalError outside a repository."""
    out = git(["rev-parse", "--show-toplevel"], cwd=cwd, check=False)
    if out.returncode != 0:
        raise repository_error(cwd, out.stderr)
    return Path(out.stdout.strip())


# -- config ---------------------------------------------------------------------------


def config_refusal(scope: Scope, force: bool) -> str | None:
    """Why install must not write the driver entries (a foreign value), or None."""
    if force:
        return None
    for key in config_entries("git-vcontext"):
        value = scope.get(key)
        if value is not None and not _ours(key, value) and key not in SETTINGS:
            return (
                f"{key} is already set to {value!r} by another tool; "
                "re-run with --force to replace it"
            )
    return None


def install_config(scope: Scope, command: str, force: bool, boot: Boot | None = None) -> list[str]:
    """Write the driver entries (``boot``: the drivers' Python started without ``site``);
    refuse to replace foreign values without --force; take out the textconv an earlier
    install wrote (``OLD_TEXTCONV``)."""
    if why := config_refusal(scope, force):
        raise UsageError(why)
    messages = []
    for key, value in config_entries(command, boot).items():
        current = scope.get(key)
        if current == value:
            continue
        if current is not None and key in SETTINGS and not _ours(key, current) and not force:
            messages.append(f"kept {key} = {current} (yours; --force sets {value})")
            continue
        scope.set(key, value)
        messages.append(f"set {key}")
    return messages + _remove_old_textconv(scope)


def old_textconv(get: Callable[[str], str | None]) -> bool:
    """Whether the textconv an install before issue 35 wrote is configured (ours, with
    git's cache that needs an identity); a textconv the user opted into is kept."""
    textconv, cached = (get(key) for key in OLD_TEXTCONV)
    return is_ours(textconv) and cached == "true"


def _remove_old_textconv(scope: Scope) -> list[str]:
    if not old_textconv(scope.get):
        return []
    for key in OLD_TEXTCONV:
        scope.unset(key)
    return [
        "removed diff.vcontext.textconv and diff.vcontext.cachetextconv (an earlier "
        "install's: git diff now runs diff.vcontext.command, raw files stay raw)"
    ]


def uninstall_config(scope: Scope) -> list[str]:
    """Remove the entries install wrote (foreign values are left alone)."""
    removed = [m.split(" (")[0] for m in _remove_old_textconv(scope)]
    entries = config_entries("git-vcontext")
    for key in entries:
        value = scope.get(key)
        if value is not None and (_ours(key, value) or key == "merge.vcontext.name"):
            scope.unset(key)
            removed.append(f"removed {key}")
    for section in sorted({key.rsplit(".", 1)[0] for key in entries}):
        pattern = "^" + section.replace(".", "\\.") + "\\."
        if not scope.matching(pattern):  # only an empty section header: a foreign value stays
            scope.drop_empty(section)
    return removed


# -- attributes -----------------------------------------------------------------------


def attributes_refusal(path: Path, force: bool) -> str | None:
    """Why install must not add its attribute lines (others for our patterns), or None."""
    _refuse_linked(path)
    if conflicted := conflict_markers(path):  # --force too: never write into a conflict
        raise OperationalError(f"{conflicted}: resolve them first, then install again")
    if force or not path.exists():
        return None
    clashes = _clashes(_read_lines(path)[0])
    return (
        f"{path} already says {clashes[0].strip()!r}; re-run with --force to replace it"
        if clashes
        else None
    )


def conflict_markers(path: Path) -> str | None:
    """What is wrong with an attributes file holding git conflict markers (a merge of it
    left unresolved: git reads the marker lines as patterns), or None; shared by
    ``install``, which refuses to add to it, and ``doctor``, which reports it."""
    if not path.is_file():
        return None
    text = read_bytes(str(path)).decode("utf-8", "surrogateescape")
    at = find_conflict_marker(text)
    if at is None:
        return None
    line = text.count("\n", 0, at) + 1
    return f"{quoted_path(str(path))} has unresolved conflict markers (line {line})"


def _refuse_linked(path: Path) -> None:
    """A repository's ``.gitattributes`` that is a symbolic link: git does not read it (it
    never follows one), and writing through it would change a file elsewhere."""
    if _repo_link(path):
        raise OperationalError(
            f"{path} is a symbolic link (to {os.readlink(path)}), which git does not read: "
            "replace it with a file, then install again; nothing changed"
        )


def _repo_link(path: Path) -> bool:
    return path.name == ".gitattributes" and path.is_symlink() and (path.parent / ".git").exists()


def _clashes(lines: list[str]) -> list[str]:
    return [ln for ln in lines if _pattern(ln) in PATTERNS and ln.strip() not in ATTRIBUTE_LINES]


RECORD = "vcontext.installedAttribute"
"""The attribute lines this install added (multi-valued, in the scope it wrote): uninstall
removes those and no others, so a ``.gitattributes`` the team committed stays as it was."""


def install_attributes(path: Path, force: bool, scope: Scope | None = None) -> list[str]:
    """Add the attribute lines that are missing; refuse other attributes for our patterns.
    The lines added are recorded in ``scope`` (``RECORD``) for uninstall."""
    if why := attributes_refusal(path, force):
        raise UsageError(why)
    lines, newline = _read_lines(path) if path.exists() else ([], "\n")
    clashes = _clashes(lines)
    kept = [ln for ln in lines if ln not in clashes]
    missing = [ln for ln in ATTRIBUTE_LINES if ln not in {x.strip() for x in kept}]
    if not missing and not clashes:
        return []
    block = ([ATTRIBUTES_HEADER] if ATTRIBUTES_HEADER not in kept else []) + missing
    if kept and kept[-1].strip():
        block.insert(0, "")
    _write_lines(path, kept + block, newline)
    if scope is not None:
        for line in block:
            if line:
                scope.add(RECORD, line)
    return [f"added {len(missing)} pattern(s) to {path}"]


def uninstall_attributes(path: Path, scope: Scope | None = None) -> list[str]:
    """Remove the lines install added (and the header) from an attributes file; delete it
    if nothing is left. Without a record (an install before issue 35), our lines are
    removed unless the file is the one committed in the repository, as it was."""
    recorded = _recorded(scope)
    if not path.exists() or _repo_link(path):  # a link install never wrote through
        return []
    if not recorded and scope is not None and _committed_as_is(path, scope):
        return []
    lines, newline = _read_lines(path)
    ours = set(recorded or ATTRIBUTE_LINES) | {ATTRIBUTES_HEADER}
    kept = [ln for ln in lines if ln.strip() not in ours]
    if kept == lines:
        return []
    while kept and not kept[-1].strip():
        kept.pop()
    tracked = scope is not None and _tracked(path, scope)
    if kept:
        _write_lines(path, kept, newline)
        return [f"removed our patterns from {path}", *_commit_advice(path, tracked)]
    path.unlink()
    return [
        f"removed {path} (only our patterns were in it)",
        *_remove_if_empty(path.parent),
        *_commit_advice(path, tracked),
    ]


def _commit_advice(path: Path, tracked: bool) -> list[str]:
    """A committed attributes file changed: git reads the index's copy of a deleted one, and
    teammates keep the committed one, until the change is committed."""
    if not tracked:
        return []
    where, name = command_word(str(path.parent)), command_path(path.name)
    return [
        f"{quoted_path(str(path))} is committed: git reads the committed patterns until the "
        f"change is: git -C {where} commit -m 'Stop merging vContext files with git-vcontext' "
        f"-- {name} (or keep them: git -C {where} restore -- {name})"
    ]


def _tracked(path: Path, scope: Scope) -> bool:
    """Whether ``path`` is a file the repository of a local ``scope`` tracks."""
    if scope.name != "local":
        return False
    top = repo_top(scope.cwd)
    try:
        name = path.relative_to(top).as_posix()
    except ValueError:
        return False
    return git(["ls-files", "--error-unmatch", "--", name], cwd=top, check=False).returncode == 0


def _recorded(scope: Scope | None) -> list[str]:
    """The attribute lines install recorded in ``scope`` (the record is then removed)."""
    if scope is None:
        return []
    recorded = scope.get(RECORD)
    if recorded is None:
        return []
    scope.unset(RECORD)
    if not scope.matching(r"^vcontext\.[^.]+$"):  # no empty [vcontext] header left behind
        scope.drop_empty("vcontext")
    return [line for line in recorded.split("\n") if line]


def _committed_as_is(path: Path, scope: Scope) -> bool:
    """Whether ``path`` is a tracked file of the repository, unchanged since HEAD."""
    if not _tracked(path, scope):
        return False
    name = path.relative_to(repo_top(scope.cwd)).as_posix()
    changed = git(["diff", "--quiet", "HEAD", "--", name], cwd=repo_top(scope.cwd), check=False)
    return changed.returncode == 0


def _xdg_git() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "git"


def _remove_if_empty(folder: Path) -> list[str]:
    """Remove git's folder under ``~/.config`` when install's files were all it held (only
    that folder: a custom attributes file may sit in the home folder itself)."""
    if folder != _xdg_git():
        return []
    try:
        folder.rmdir()  # fails unless empty: never removes anything but the folder
    except OSError:
        return []
    return [f"removed the empty folder {folder}"]


def global_config_file() -> Path:
    """The file ``git config --global`` writes (git's order of choice)."""
    configured = os.environ.get("GIT_CONFIG_GLOBAL")
    if configured:
        return Path(configured)
    home = Path(os.path.expanduser("~/.gitconfig"))
    xdg = _xdg_git() / "config"
    return xdg if not home.exists() and xdg.exists() else home


def remove_empty_config(path: Path) -> list[str]:
    """Delete a configuration file that uninstall left without any setting."""
    try:
        if not path.is_file() or path.read_bytes().strip():
            return []
        path.unlink()
    except OSError:
        return []
    return [f"removed the empty {path}", *_remove_if_empty(path.parent)]


def _pattern(line: str) -> str | None:
    parts = line.split()
    return parts[0] if parts and not parts[0].startswith("#") else None


def _read_lines(path: Path) -> tuple[list[str], str]:
    """An attributes file's lines and its line ending (bytes that are not UTF-8 kept as is)."""
    text = read_bytes(str(path)).decode("utf-8", "surrogateescape")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    if lines and not lines[-1]:
        lines.pop()
    return lines, newline


def _write_lines(path: Path, lines: list[str], newline: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (newline.join(lines) + newline).encode("utf-8", "surrogateescape"))


# -- the pre-push hook's cache ------------------------------------------------------


def uninstall_cache(cwd: Path) -> list[str]:
    """Remove the pre-push hook's verdict cache (and our folder under .git if empty)."""
    root = cache_root(common_dir(open_repo(cwd)))
    if not root.exists():
        return []
    shutil.rmtree(root, ignore_errors=True)
    try:
        root.parent.rmdir()  # .git/vcontext, when nothing else of ours is left there
    except OSError:
        pass
    return [f"removed the verdict cache {root}"]
