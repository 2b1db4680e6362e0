"""Benchmark harness (not part of the installed package): see bench/README.md."""
