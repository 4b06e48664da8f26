"""Deterministic budgets of the benchmarks (bench/): counts, never timings."""
