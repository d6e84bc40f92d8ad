"""Agent branches and in-process merges of their trees: what sync, ``sync --push``, the
pre-push check and conflicts stand on."""
