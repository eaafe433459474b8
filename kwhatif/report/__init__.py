"""Reports: one model per command (schedule, check, capacity, drain: plain data built from the
scheduler's records, with the exit policy) and formats/, one module per output format."""
