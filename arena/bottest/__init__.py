"""`arena bot test`'s harness (harness.py): a bot program against the referee's edge cases (the
handshake, a few matches per mode, labels omitted, an opponent who leaves, the next match on the same
process, concurrent matches), with a report of what passed and what to fix. The pre-flight of a
submission (arena.submissions.preflight) runs the same checks."""
