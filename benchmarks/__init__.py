"""Speed and memory measurements. Run with `.venv/bin/python -m benchmarks.<name>`; see docs/benchmarks.md."""
