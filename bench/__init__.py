"""cardroom's benchmark suite: `python -m bench --quick` or `--full` (docs/benchmarks.md)."""
