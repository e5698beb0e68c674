"""CT-FineBench: the task, the `qa_extraction` solver, the `qa_comparison` scorer and their metrics."""
