"""The merge driver's arguments have one place (``setup.boot.DRIVER_ARGUMENTS``): the
command line install gives git (``%O %A %B -p %P -l %L``), the shell form's fallback to
``git merge-file`` when the program is gone, and BOOT's when the package does not import
all read each argument where git puts it (PRODUCT.md, "Installing never breaks git": the
fallback merges the right files by lines, whichever way the driver stops)."""

from __future__ import annotations

import re

from git_vcontext.setup import boot, config


def _args(value: str) -> list[str]:
    """The placeholders after the driver's command, as git gets them."""
    return value[value.rindex("}; vcontext_") :].split()[2:]


def test_the_driver_is_given_its_arguments_in_the_order_of_the_one_table() -> None:
    entries = config.config_entries("/x/git-vcontext", ("/x/python", ["/x/site"]))
    outer = _args(entries["merge.vcontext.driver"])
    inner = _args(entries[f"merge.{config.BASE_DRIVER}.driver"])
    assert outer == [*boot.DRIVER_ARGUMENTS, *boot.LABEL_ARGUMENTS]
    assert inner == list(boot.DRIVER_ARGUMENTS)


def test_the_shell_fallback_reads_each_argument_where_the_table_puts_it() -> None:
    value = config.config_entries("/x/git-vcontext")["merge.vcontext.driver"]
    shell = {f"${i + 1}": arg for i, arg in enumerate(_args(value))}
    merge = re.search(r'--marker-size="(\$\d)" .* "(\$\d)" "(\$\d)" "(\$\d)"', value)
    assert merge is not None, value
    assert [shell[m] for m in merge.groups()] == ["%L", "%A", "%O", "%B"]  # ours base theirs
    said = re.search(r"uninstalled\?\): (\$\d) merged by lines", value)
    assert said is not None, value
    assert shell[said.group(1)] == "%P"


def test_boot_falls_back_to_merge_file_with_the_tables_positions() -> None:
    code = boot.BOOT
    args = boot.DRIVER_ARGUMENTS
    files = re.search(r"a\[(\d)\], a\[(\d)\], a\[(\d)\]\]\)", code)
    assert files is not None, code
    assert [args[int(i)] for i in files.groups()] == ["%A", "%O", "%B"]  # ours base theirs
    assert f'a.index("{args[args.index("%P") - 1]}")' in code
    assert f'a.index("{args[args.index("%L") - 1]}")' in code
    default = re.search(r"else a\[(\d)\]\n", code)
    assert default is not None, code
    assert args[int(default.group(1))] == "%A"  # no -p: the name of ours' file
