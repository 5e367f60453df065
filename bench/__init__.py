"""cardroom's benchmark suite: `python -m bench --quick` or `--full` (see bench/README.md)."""
