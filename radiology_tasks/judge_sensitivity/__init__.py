"""Judge sensitivity (issue 10) and CT-FineBench sensitivity sets (issue 8): variants of references, judged."""
