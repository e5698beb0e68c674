"""Inspect entry point: importing this registers the package's tasks, scorers, solvers and model provider.

The tasks come from the families `radiology_tasks.families` lists, so a new family needs no line here. Every
`inspect` process imports this module, so it (and what it imports) must stay light: no scipy, numpy, pandas,
datasets or llama_cpp at module level. It registers no Inspect hook: Inspect would announce one before every
evaluation, of any package's tasks (`radiology_tasks.core.report_hook` says when ours is registered).
"""

from radiology_tasks.core.family import families
from radiology_tasks.core.llama_cpp_provider import llama_cpp_api
from radiology_tasks.core.solvers import generate_report, replay_candidate

for _family in families():
    globals().update(_family.task_functions())
    _family.register()

__all__ = ["generate_report", "llama_cpp_api", "replay_candidate"]
