"""``sync --push``: publish, integrate under a lease, push; and the server's integration."""
