"""The pre-push check: verdicts on pushed commits, cached by object id, and the same checks
on the merges ``sync`` makes."""
