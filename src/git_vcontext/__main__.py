"""``python -m git_vcontext``: the same as the ``git-vcontext`` command."""

from __future__ import annotations

import sys

from .entry import main

if __name__ == "__main__":
    sys.exit(main())
