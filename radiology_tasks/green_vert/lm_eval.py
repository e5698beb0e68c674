"""Hooks of the GREEN/VERT lm-eval tasks: the model under test is the judge of each report pair.

The prompt is rendered by the Inspect `report_judge` scorer's own `judge_prompt` (no examples, full detail),
the answer is read by the same `read_scores`, and a score the answer does not give is handled by the same
`judged_score` under the Inspect default ``unscored=worst``: a missing bounded score counts as 0 in the means,
an error count stays NaN, and neither is correlated with the experts.
"""

from __future__ import annotations

import math
from typing import cast

from radiology_tasks.core.unscored import ANSWER_FORMAT_REASONS, is_filled_in, judged_score, unscored_reason
from radiology_tasks.lm_eval_tasks.documents import report_pair
from radiology_tasks.report_judge.scorer import judge_prompt
from radiology_tasks.scorers.report_judge.reading import BOUNDED_KEYS, JudgePrompt, read_scores, score_keys

INVALID_RESPONSE_FORMAT = "invalid_response_format"


def document_prompt(prompt: JudgePrompt, doc: dict[str, object]) -> str:
    """The judge prompt of one document, rendered by the Inspect scorer's own function with its defaults."""
    pair = report_pair(doc)
    return judge_prompt(prompt, reference=pair.reference, candidate=pair.candidate or "")


def judge_results(prompt: JudgePrompt, doc: dict[str, object], results: list[str]) -> dict[str, object]:
    """Per-document values: every score, whether the answer could not be read, and what the correlations need.

    Returns:
        Each score key (0 for a bounded score the answer does not give, NaN for a missing error count);
        ``parse_failure`` (1.0 when the main score could not be read); and for the main score and
        ``green_ec``, ``<key>_kendall_tau`` and ``<key>_spearman`` as (judge score or None, expert score or
        None) pairs that the corpus aggregations correlate.
    """
    pair = report_pair(doc)
    keys = score_keys(prompt)
    reading = read_scores(results[0], prompt=prompt, candidate=pair.candidate)
    missing = {key: (INVALID_RESPONSE_FORMAT, problem) for key, problem in reading.problems.items()}
    score = judged_score(reading.values, missing, policy="worst", bounded=BOUNDED_KEYS)
    # judged_score gives every key a number (a bounded score left out as 0, an error count as NaN).
    values = cast(dict[str, float], score.value)
    expert = pair.expert.normalized_score if pair.expert else None
    out: dict[str, object] = dict(values)
    out["parse_failure"] = 1.0 if unscored_reason(score.metadata, keys[0]) in ANSWER_FORMAT_REASONS else 0.0
    for key in dict.fromkeys([keys[0], "green_ec"]):
        value = values[key]
        judged = None if is_filled_in(score.metadata, key) or math.isnan(value) else value
        for name in ("kendall_tau", "spearman"):
            out[f"{key}_{name}"] = (judged, expert)
    return out


def green_prompt(doc: dict[str, object]) -> str:
    """The GREEN prompt (error counts only)."""
    return document_prompt("green", doc)


def vert_prompt(doc: dict[str, object]) -> str:
    """The VERT prompt (error counts and a direct overall score)."""
    return document_prompt("vert", doc)


def formula_prompt(doc: dict[str, object]) -> str:
    """The VERT formula prompt (the judge computes M / (M + 2S + 0.5I))."""
    return document_prompt("formula", doc)


def rubric_prompt(doc: dict[str, object]) -> str:
    """The VERT rubric prompt (five score bands)."""
    return document_prompt("rubric", doc)


def green_results(doc: dict[str, object], results: list[str]) -> dict[str, object]:
    """Scores of a GREEN answer."""
    return judge_results("green", doc, results)


def vert_results(doc: dict[str, object], results: list[str]) -> dict[str, object]:
    """Scores of a VERT answer."""
    return judge_results("vert", doc, results)


def formula_results(doc: dict[str, object], results: list[str]) -> dict[str, object]:
    """Scores of a formula-prompt answer."""
    return judge_results("formula", doc, results)


def rubric_results(doc: dict[str, object], results: list[str]) -> dict[str, object]:
    """Scores of a rubric-prompt answer."""
    return judge_results("rubric", doc, results)
