"""Ranking-intuition tests: the share of cases whose candidates a metric orders as clinical intuition expects."""
