"""Judge sensitivity as a family: how a judge's score moves under injected errors and paraphrases."""

from __future__ import annotations

from radiology_tasks.rescored import RescoredFamily


class JudgeSensitivity(RescoredFamily):
    tasks = ("judge_sensitivity",)
    version = "1.6.0"
    templates = ("judge_sensitivity", "green_vert")
    mutation_tested = ("variant_sft.py", "variant_split.py", "variant_check.py")
    scorer_modules = ("radiology_tasks.judge_sensitivity.scorer", "radiology_tasks.judge_sensitivity.solvers")
    commands_module = "radiology_tasks.judge_sensitivity.family_commands"


FAMILY = JudgeSensitivity()
