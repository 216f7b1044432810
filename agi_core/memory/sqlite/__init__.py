"""The SQLite backend's SQL, by concern: seal rows, checkpoints, RLM rows, long-term memory rows."""
