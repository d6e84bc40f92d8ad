"""The branch-per-agent workflow: fork, sync and status (PRODUCT.md, rule M11)."""
