"""The performance benchmark: bench/run.py (the command line and the report) over a module per
benchmark (overhead, corpus, growth, loading, tools, generated) and what they share (common),
its null implementation and generated workloads."""
