"""The metric suite: several metrics on the same samples, with their correlations, agreement and pos/neg table.

A shared host, not a metric family: `metric_suite` runs the lexical metrics, RadEval's model-based metrics and
the LLM judges every registered family adds (`radiology_tasks.core.family.Family.suite_metrics`), and names no
family. It is registered like a family (`family.py`) so its task, version, report metrics and `suite-report`
command are found where every task's are.
"""
