"""The performance benchmark (bench/run.py), its null implementation and generated workloads."""
