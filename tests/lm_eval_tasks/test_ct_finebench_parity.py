"""CT-FineBench: the lm-eval task asks the Inspect task's extraction prompt and grades numeric answers alike.

The Inspect task has a judge compare non-numeric answers; the lm-eval task matches them in code. With a
comparison judge that gives 1 exactly when the answers are the same words (case aside), the two report scores
agree; a paraphrase the judge would accept scores 0 in the lm-eval task (see the family README).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.scorers.ct_finebench.questions import numbered_questions
from tests.lm_eval_tasks.harnesses import prompts, run_inspect, run_lm_eval
from tests.report_values import report_values

pytest.importorskip("lm_eval")
pytestmark = pytest.mark.slow  # whole evaluations in both harnesses

LIMIT = 4
PAIRS = [pair for pair in load_pairs().pairs if pair.qa][:LIMIT]
_QUESTION = re.compile(r"^(q\d+): (.+)$", re.M)
_ITEM = re.compile(
    r'<item id="(q\d+)">.*?<reference_answer>(.*?)</reference_answer>.*?<candidate_answer>(.*?)</candidate_answer>',
    re.S,
)


def _scaled(reference: str, factor: float, unit: str | None = None) -> str:
    """The reference's first number times `factor`, with `unit` in place of the one written after it."""
    match = re.search(r"\d+(?:\.\d+)?", reference)
    assert match is not None, reference
    rest = reference[match.end() :] if unit is None else f" {unit}"
    return f"{float(match.group()) * factor:g}{rest}"


def _extracted(reference: str, number: int, numeric: bool) -> str | None:
    """A scripted answer by the question's place: missing, right, a little off, or the same in other words.

    Numeric answers 15% off earn 0.5 and the same size in other units 1, which only numeric grading gives.
    """
    match number % 4:
        case 0:
            return None
        case 1:
            return reference
        case 2:
            return _scaled(reference, 1.15) if numeric else f"not {reference}"
        case _:
            if not numeric:
                return reference.upper()
            if "cm" in reference:
                return _scaled(reference, 10, "mm")
            return _scaled(reference, 0.1, "cm") if "mm" in reference else f"about {reference}"


def _reply(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    if "<item id=" in prompt:
        # A judge that only forgives case, so it agrees with the lm-eval task's matching on these answers.
        return json.dumps({key: int(ref.casefold() == cand.casefold()) for key, ref, cand in _ITEM.findall(prompt)})
    (pair,) = [pair for pair in PAIRS if pair.candidate in prompt]
    questions = {q.qa.question: q for q in numbered_questions(pair.qa)}
    answers = {}
    for key, text in _QUESTION.findall(prompt):
        question = questions[text.strip()]
        answers[key] = _extracted(question.qa.answer, int(key[1:]) + len(pair.id), question.graded_in_code)
    return json.dumps(answers)


def test_same_extraction_prompt_and_report_scores(monkeypatch):
    inspect_run = run_inspect(ct_finebench(limit=LIMIT), _reply, monkeypatch)
    lm_run = run_lm_eval(["radiology_ct_finebench_qa"], _reply, limit=LIMIT)

    extraction_prompts = [p for p in prompts(inspect_run.requests) if "<item id=" not in p]
    assert sorted(extraction_prompts) == sorted(prompts(lm_run.requests))
    assert len(lm_run.requests) == LIMIT

    lm_samples = {s["doc"]["id"]: s for s in lm_run.output["samples"]["radiology_ct_finebench_qa"]}
    numeric: list[float] = []
    for sample in inspect_run.output.samples:
        score = sample.scores["qa_comparison"]
        assert lm_samples[sample.id]["ct_finebench"] == pytest.approx(score.value["ct_finebench"]), sample.id
        numeric += [q["grade"] for q in score.metadata["questions"] if q["answer_type"] == "numeric"]
    assert set(numeric) == {0.0, 0.5, 1.0}, "the scripted answers should earn every grade"

    metrics = report_values(inspect_run.output)
    aggregates = lm_run.output["results"]["radiology_ct_finebench_qa"]
    assert aggregates["ct_finebench,none"] == pytest.approx(metrics["ct_finebench_mean"])
    assert aggregates["numeric_grade,none"] == pytest.approx(sum(numeric) / len(numeric))
    assert aggregates["parse_failure,none"] == metrics["parse_failure_rate"] == 0.0
    for correlation in ("kendall_tau", "spearman"):
        assert aggregates[f"ct_finebench_{correlation},none"] == pytest.approx(metrics[f"ct_finebench_{correlation}"])
