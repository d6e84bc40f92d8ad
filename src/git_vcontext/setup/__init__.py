"""What ``install`` and ``uninstall`` write and remove: git config, attributes, the hooks,
the server's integration."""
