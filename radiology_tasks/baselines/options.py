"""``-T baselines`` of the judge tasks, declared and documented once (see `radiology_tasks.core.task_options`)."""

from __future__ import annotations

from dataclasses import dataclass

from radiology_tasks.baselines.scorer import checked_lexical_keys, metric_names
from radiology_tasks.core.task_options import option


@dataclass(frozen=True)
class BaselineOptions:
    """The lexical metrics a judge task scores beside its judge, checked as `-T` gave them when built."""

    baselines: str | list[str] | None = option(
        None,
        "Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all four orders), "
        "`bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.",
    )

    def __post_init__(self) -> None:
        if self.baselines is not None:
            checked_lexical_keys(metric_names(self.baselines, "baselines"), "baselines")
