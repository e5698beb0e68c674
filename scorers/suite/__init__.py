"""Pure logic of the metric suite: the RadEval adapter and the suite's tables (correlations, pos/neg)."""
