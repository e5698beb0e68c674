"""Pure logic of the classic baselines and the metric suite: lexical metrics, the RadEval adapter, suite tables."""
