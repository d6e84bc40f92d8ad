"""Old import paths of the library API the README documents, kept working: the conflicts
listing and the resolve session now live in ``git_vcontext.conflicts``."""
