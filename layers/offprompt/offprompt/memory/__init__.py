"""Memory: conversation (runs, pruning, summary), task (off-prompt storage by type) and meta memory."""
