"""The shell around the core: processes, time, concurrency, the CLI and the pytest plugin."""
