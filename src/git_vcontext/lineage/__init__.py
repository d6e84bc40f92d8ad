"""The history of items: ``log`` and ``blame`` walks, pure (``gitio.revwalk`` reads git)."""
