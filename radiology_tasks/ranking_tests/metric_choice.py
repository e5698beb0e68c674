"""Which metric the ranking task scores candidates with, and the scorer it reuses to do so.

Any metric the project scores per report pair can be tested: the lexical ones (`radiology_tasks.lexical`, no
model) and every LLM judge a family adds to `metric_suite` (`Family.suite_metrics`: GREEN, VERT, ... through the
``grader`` role). The family's own scorer scores each candidate; nothing is reimplemented here. Refused, each with
its one-line reason: ``bleu`` (four scores, pick one order), a judge whose family check refuses pairs without its
inputs (CT-FineBench needs questions per report), a judge that needs a solver step before scoring, and the names a
family's ``suite_notes`` send elsewhere (Ran Score is a corpus F1 over labels, with no score per candidate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from inspect_ai.scorer import Scorer

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import SuiteJudge, SuiteMetric, families, higher_is_better
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.records import ReportPair
from radiology_tasks.lexical import lexical_baselines
from radiology_tasks.scorers.lexical import LEXICAL_KEYS

Direction = Literal["auto", "higher", "lower"]
DIRECTIONS: tuple[Direction, ...] = ("auto", "higher", "lower")


@dataclass(frozen=True)
class ChosenMetric:
    """The metric a run tests: its name, the score key ranked, its direction, and how to build its scorer."""

    name: str
    key: str
    higher_is_better: bool
    judged: bool
    build: Callable[[], Scorer]
    templates: tuple[str, ...] = ()


def _suite_metrics() -> dict[str, tuple[SuiteMetric, tuple[str, ...]]]:
    """Each family's `metric_suite` judges, with the template folders of the family adding it."""
    found: dict[str, tuple[SuiteMetric, tuple[str, ...]]] = {}
    for family in families():
        found |= {name: (metric, family.templates) for name, metric in family.suite_metrics().items()}
    return found


def _notes() -> dict[str, str]:
    return {name: line for family in families() for name, line in family.suite_notes.items()}


def known_metrics() -> list[str]:
    """Every name ``-T metric`` accepts here."""
    return [*LEXICAL_KEYS, *_suite_metrics()]


def choose_metric(
    name: str, key: str | None, direction: Direction, judge: JudgeOptions, pairs: list[ReportPair]
) -> ChosenMetric:
    """The metric ``-T metric`` names, checked against the pairs it would score.

    Args:
        name: ``-T metric``.
        key: ``-T key``: the score key to rank on; None: the metric's main key.
        direction: ``-T direction``.
        judge: The judge settings (a failed candidate is always left unscored, whatever ``unscored`` says).
        pairs: One report pair per candidate, for the metric's own check of its inputs.

    Raises:
        InputError: naming the parameter, for a metric that cannot score candidates one by one, an unknown
            metric, a key the metric does not give, or an unknown direction.
    """
    if direction not in DIRECTIONS:
        raise InputError(f"-T direction must be one of {', '.join(DIRECTIONS)}; got {direction!r}")
    suite = _suite_metrics()
    templates: tuple[str, ...] = ()
    if name in LEXICAL_KEYS:
        keys: tuple[str, ...] = (name,)

        def build() -> Scorer:
            return lexical_baselines([name], "exclude")

        judged = False
    elif name in suite:
        metric, templates = suite[name]
        problem = metric.check(pairs) if metric.check is not None else None
        if problem is not None:
            raise InputError(f"-T metric={name}: {problem}")
        if metric.solver is not None:
            raise InputError(f"-T metric={name} needs a solver step before scoring, which ranking cases do not run")
        keys = metric.keys
        settings = SuiteJudge(replace(judge, unscored="exclude"))

        def build() -> Scorer:
            return metric.scorer(settings)

        judged = True
    elif name == "bleu":
        raise InputError("-T metric=bleu gives four scores: name one order (bleu_1 ... bleu_4)")
    elif name in _notes():
        raise InputError(f"-T metric={name}: a ranking test needs one score per candidate; {_notes()[name]}")
    else:
        raise InputError(f"-T metric: unknown metric {name!r} (known: {', '.join(known_metrics())})")
    ranked = key or keys[0]
    if ranked not in keys:
        raise InputError(f"-T key={ranked}: metric {name} gives {', '.join(keys)}")
    # `auto`: the direction the score's family declares (`radiology_tasks.core.orientation`).
    higher = higher_is_better(ranked) if direction == "auto" else direction == "higher"
    return ChosenMetric(name=name, key=ranked, higher_is_better=higher, judged=judged, build=build, templates=templates)
