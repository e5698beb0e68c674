"""Classic baselines (BLEU, chrF, ROUGE-L), model-based metrics through RadEval, and the metric-suite task."""
