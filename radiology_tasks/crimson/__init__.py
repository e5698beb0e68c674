"""CRIMSON: a clinically grounded LLM-judge metric for radiology reports, scored in code from the judge's findings."""
