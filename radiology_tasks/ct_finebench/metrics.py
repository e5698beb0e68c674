"""Metrics over the graded questions of every report: by answer type, by attribute, unanswered share.

They read ``Score.metadata["questions"]`` (`scorers.ct_finebench.report.GradedQuestion`) and pool the
questions of all reports, so a type or attribute mean is the mean grade of every such question in the run.
Unscored questions (no usable judge answer) are counted, never averaged in as 0.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.scorers.ct_finebench.questions import ANSWER_TYPES, metric_name

_NAN = float("nan")


def _questions(scores: list[SampleScore]) -> list[dict[str, Any]]:
    return [question for sample in scores for question in (sample.score.metadata or {}).get("questions") or []]


def _mean(grades: list[float]) -> float:
    return sum(grades) / len(grades) if grades else _NAN


@metric
def question_breakdown() -> Metric:
    """Mean grades by answer type and by attribute, the unanswered share, and question counts.

    Returns:
        A metric giving ``type_<type>_mean`` and ``type_<type>_n`` (graded questions) for each answer type
        (existence, categorical, location, numeric, other; NaN mean when there is none),
        ``attribute_<attribute>_mean`` for each attribute in the run (``size``, ``location``, ...),
        ``unanswered_share`` (questions the candidate leaves unanswered, over those whose extraction got an
        answer), and ``questions_total``, ``questions_graded``, ``questions_unanswered``,
        ``questions_unscored``.
    """

    def compute(scores: list[SampleScore]) -> Value:
        questions = _questions(scores)
        by_type: dict[str, list[float]] = {kind: [] for kind in ANSWER_TYPES}
        by_attribute: dict[str, list[float]] = defaultdict(list)
        for question in questions:
            if question.get("grade") is None:
                continue
            by_type.setdefault(question["answer_type"], []).append(float(question["grade"]))
            by_attribute[metric_name(question.get("attribute"))].append(float(question["grade"]))
        extracted = [q for q in questions if q.get("answered") is not None]
        unanswered = sum(1 for q in extracted if q["answered"] is False)
        values: dict[str, float] = {}
        for kind, grades in by_type.items():
            values[f"type_{kind}_mean"] = _mean(grades)
            values[f"type_{kind}_n"] = float(len(grades))
        for name in sorted(by_attribute):
            values[f"attribute_{name}_mean"] = _mean(by_attribute[name])
        graded = sum(len(grades) for grades in by_type.values())
        values |= {
            "unanswered_share": unanswered / len(extracted) if extracted else _NAN,
            "questions_total": float(len(questions)),
            "questions_graded": float(graded),
            "questions_unanswered": float(unanswered),
            "questions_unscored": float(len(questions) - graded),
        }
        return values

    return compute
