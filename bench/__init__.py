"""The benchmark report: ``make bench`` runs every ``bench/bench_*.py`` in one process.

Each module exposes ``run() -> list[Row]``. A row compares our code with a
baseline measured in the same run, so the ratio means something on any machine.
"""
