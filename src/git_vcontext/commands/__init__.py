"""One use case per module: ``run(**options) -> exit code``; no click here."""
