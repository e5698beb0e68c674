"""judge_sensitivity re-scoring on runs built in memory: reading rules, refusal lines and the judges' measures.

Two references, each with a paraphrase and error variants, judged by a VERT judge (counts and score):

    variant   R1: significant / score      R2: significant / score
    para      none   0.90                  (d) 1   0.80
    a1        (a) 1  0.70                  none    0.60
    b1        none   0.95                  -

Discrimination (VERT, scores compared): R1 a1 penalised (an error), R1 b1 not (0.95 >= 0.90), R2 a1 penalised
(0.60 < 0.80): 2/3. Without comparing scores (GREEN), R2 a1 is not penalised: 1/3. Robustness: R1's
paraphrase has no error, R2's has one: 1/2. Balance (harmonic mean): 2 * 2/3 * 1/2 / (2/3 + 1/2) = 4/7.
Per reference: R1 discrimination 1/2, robustness 1, balance 2/3; R2 discrimination 1, robustness 0, balance 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.judge_sensitivity import rescoring as js
from radiology_tasks.judge_sensitivity.metrics import discrimination_robustness
from radiology_tasks.judge_sensitivity.rescoring import RESCORING
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, SampleEvidence
from tests.judge_answers import assessment

JUDGE = "openai-api/stubsvc/stub-judge"
# (id, reference, kind, category, errors, significant counts, score)
PLAN = [
    ("R1-para", "R1", "paraphrase", None, 0, {}, 0.90),
    ("R1-a1", "R1", "error", "a", 1, {"a": 1}, 0.70),
    ("R1-b1", "R1", "error", "b", 1, {}, 0.95),
    ("R2-para", "R2", "paraphrase", None, 0, {"d": 1}, 0.80),
    ("R2-a1", "R2", "error", "a", 1, {}, 0.60),
]


def _variant(reference: str, kind: str, category: str | None, errors: int, excluded: str | None = None) -> dict:
    return {"source_id": reference, "kind": kind, "category": category, "n_errors": errors, "excluded": excluded}


def _run(samples: list[SampleEvidence], *, results: dict[str, float] | None = None, **args: Any) -> RunEvidence:
    run = RunEvidence(
        path=Path("js.eval"),
        sha256="0" * 64,
        task="radiology_tasks/judge_sensitivity",
        task_version="1.3.0",
        task_args={"prompt": "vert", "unscored": "worst", **args},
        status="success",
        model="none/none",
        judge=JUDGE,
        metadata={},
        scorer="judge_sensitivity",
        results=results or {},
        samples=samples,
    )
    if results is None:
        recomputed = discrimination_robustness(js.ranked(run).key, compare_scores=js._compare_scores(run))
        run = replace(run, results=dict(recomputed(js._sample_scores(run))))
    return run


def _judged(
    sample_id: str,
    reference: str,
    kind: str,
    category: str | None,
    errors: int,
    significant: dict[str, int],
    score: float,
    *,
    prompt: str = "vert",
) -> SampleEvidence:
    answer = assessment(significant, 2, score if prompt != "green" else None)
    unfilled = SampleEvidence(
        id=sample_id,
        epoch=1,
        error=None,
        values={},
        metadata={
            "variant": _variant(reference, kind, category, errors),
            "judge_answer": answer,
            "predicted_significant": significant,
            "unscored": {},
            "filled_in": [],
        },
        candidate=f"variant {sample_id}",
        judge_calls=[JudgeCall(JUDGE, 0.0, None, answer)],
        has_events=True,
    )
    values = js.expected(_run([], results={}, prompt=prompt), unfilled)
    return replace(unfilled, values=values)


def _samples(prompt: str = "vert") -> list[SampleEvidence]:
    return [_judged(*row, prompt=prompt) for row in PLAN]


def test_the_hand_worked_run_figures_and_no_line():
    run = _run(_samples())
    assert run.results == {
        "discrimination": pytest.approx(2 / 3),
        "robustness": 0.5,
        "balance": pytest.approx(4 / 7),
        "discrimination_n": 3.0,
        "robustness_n": 2.0,
    }
    assert RESCORING.run_checks(run) == []
    assert RESCORING.ranked(run).key == "vert"
    assert _samples()[1].values["vert"] == pytest.approx(0.7) and _samples()[1].values["green_ec"] == 1.0


def test_a_green_judge_does_not_compare_scores():
    run = _run(_samples("green"), prompt="green")
    assert RESCORING.ranked(run).key == "green"
    assert run.results["discrimination"] == pytest.approx(1 / 3), "R2 a1 scores below its paraphrase, unpenalised"
    assert RESCORING.run_checks(run) == []
    assert js._prompt(_run([], results={}, prompt=None)) == "vert", "vert is the task's default prompt"


def test_each_run_figure_is_compared_with_what_the_answers_give():
    run = _run(_samples())
    for name in ("discrimination", "robustness", "balance", "discrimination_n", "robustness_n"):
        forged = replace(run, results={**run.results, name: 0.25})
        expected = f"{run.results[name]:.6g}"
        assert RESCORING.run_checks(forged) == [
            f"results: {name} 0.25 is not what the samples' judge answers give ({expected})"
        ]
    missing = replace(run, results={k: v for k, v in run.results.items() if k != "balance"})
    assert RESCORING.run_checks(missing) == [
        f"results: balance missing is not what the samples' judge answers give ({4 / 7:.6g})"
    ]
    assert RESCORING.run_checks(replace(run, results={**run.results, "balance": 4 / 7 + 1e-10})) == []
    # From 1.5.0 the variant counts are the report's: a log without them claims nothing, one with them is compared.
    shares = {k: v for k, v in run.results.items() if not k.endswith("_n")}
    assert RESCORING.run_checks(replace(run, results=shares)) == []
    assert RESCORING.run_checks(replace(run, results={**shares, "robustness_n": 7.0})) == [
        "results: robustness_n 7 is not what the samples' judge answers give (2)"
    ]


def test_undefined_run_figures_must_be_logged_as_missing():
    paraphrases = [s for s in _samples() if s.metadata["variant"]["kind"] == "paraphrase"]
    run = _run(paraphrases)
    assert math.isnan(run.results["discrimination"]) and RESCORING.run_checks(run) == []
    assert RESCORING.run_checks(replace(run, results={**run.results, "discrimination": 0.0})) == [
        "results: discrimination 0 is not what the samples' judge answers give (missing)"
    ]
    assert RESCORING.run_checks(replace(run, results={**run.results, "discrimination": "nan"})) == []


def test_an_edited_score_follows_the_stored_answer():
    sample = _samples()[1]
    run = _run([sample])
    forged = replace(sample, metadata={**sample.metadata, "judge_answer": assessment({}, 2, 0.7)})
    assert RESCORING.expected(run, forged)["green_ec"] == 0.0
    assert RESCORING.expected(run, sample) == sample.values


def test_an_unanswered_variant_gets_the_policys_value():
    sample = replace(_samples()[1], metadata={**_samples()[1].metadata, "judge_answer": None})
    worst = RESCORING.expected(_run([], results={}), sample)
    assert worst["vert"] == 0.0 and math.isnan(worst["green_ec"])
    excluded = RESCORING.expected(_run([], results={}, unscored="exclude"), sample)
    assert all(math.isnan(v) for v in excluded.values())


def test_the_runs_reading_rules_are_applied():
    terse = "\n".join(
        line
        for line in assessment({"b": 1}, 2, 0.6).splitlines()
        if not (line.startswith("(") and line.endswith(": 0."))
    )
    sample = replace(_samples()[1], metadata={**_samples()[1].metadata, "judge_answer": terse})
    assert RESCORING.expected(_run([], results={}), sample)["green_ec"] == 1.0
    strict = RESCORING.expected(_run([], results={}, missing_categories="strict"), sample)
    assert strict["vert"] == 0.6 and math.isnan(strict["green_ec"]), "strict: unlisted categories are unreadable"
    perfect = replace(sample, metadata={**sample.metadata, "judge_answer": assessment({}, 0, 0.9)})
    assert RESCORING.expected(_run([], results={}), perfect)["green"] == 1.0
    assert RESCORING.expected(_run([], results={}, zero_matched="original"), perfect)["green"] == 0.0


def test_an_excluded_variant_is_missing_left_out_and_never_judged():
    made = _samples()[2]
    excluded = replace(
        made,
        metadata={**made.metadata, "variant": _variant("R1", "error", "b", 1, "failed_check"), "judge_answer": None},
        values={"vert": None, "green": None, "green_ec": None, "green_f1": None},
        judge_calls=[],
    )
    run = _run([*_samples()[:2], excluded, *_samples()[3:]])
    expected = RESCORING.expected(run, excluded)
    assert list(expected) == ["vert", "green", "green_ec", "green_f1"] and all(math.isnan(v) for v in expected.values())
    assert RESCORING.left_out(excluded) and not RESCORING.left_out(made)
    assert RESCORING.run_checks(run) == []
    asked = replace(excluded, judge_calls=made.judge_calls)
    assert RESCORING.run_checks(_run([*_samples()[:2], asked, *_samples()[3:]])) == [
        "sample R1-b1: the variant is marked excluded but the judge was asked about it"
    ]


def test_stored_answers_are_the_kept_one_and_every_attempt_the_judge_answered():
    sample = _samples()[0]
    metadata = {
        **sample.metadata,
        "differences_attempts": [
            {"answer": "first", "stop_reason": "stop"},
            {"answer": "rejected", "stop_reason": "error"},
        ],
        "judge_attempts": [{"answer": "second", "stop_reason": "max_tokens"}, {"answer": None, "stop_reason": "stop"}],
    }
    assert RESCORING.answers(replace(sample, metadata=metadata)) == [sample.metadata["judge_answer"], "first", "second"]
    assert RESCORING.answers(replace(sample, metadata={"judge_answer": None})) == []


def test_two_pass_differences_must_follow_from_the_kept_first_answer():
    sample = _samples()[1]
    listed = ["the nodule size"]
    attempts = [
        {"answer": "not json", "problem": "invalid_json"},
        {"answer": json.dumps({"differences": listed}), "problem": None},
    ]
    honest = replace(sample, metadata={**sample.metadata, "differences_attempts": attempts, "differences": listed})
    run = _run([honest])
    assert RESCORING.run_checks(run) == []
    edited = replace(honest, metadata={**honest.metadata, "differences": ["something else"]})
    assert RESCORING.run_checks(_run([edited])) == [
        "sample R1-a1: the stored differences are not what its first-pass judge answer lists"
    ]
    unread = [{**attempts[1], "answer": "{}"}]
    broken = replace(honest, metadata={**honest.metadata, "differences_attempts": unread, "differences": None})
    assert RESCORING.run_checks(_run([broken])) == []
    none_kept = replace(honest, metadata={**honest.metadata, "differences_attempts": attempts[:1], "differences": []})
    assert RESCORING.run_checks(_run([none_kept])) == []


def test_failed_samples_and_samples_without_a_variant_are_not_the_metrics():
    failed = replace(_samples()[2], error="boom")
    stray = replace(_samples()[2], id="x", metadata={})
    run = _run([*_samples()[:2], *_samples()[3:]])
    assert RESCORING.run_checks(replace(run, samples=[*run.samples, failed, stray])) == []


def test_judge_measures_are_per_reference():
    measures = RESCORING.judge_measures(_run(_samples()))
    assert measures == {
        "balance": {"R1": pytest.approx(2 / 3), "R2": 0.0},
        "discrimination": {"R1": 0.5, "R2": 1.0},
        "robustness": {"R1": 1.0, "R2": 0.0},
    }
    green = RESCORING.judge_measures(_run(_samples("green"), prompt="green"))
    assert green["discrimination"] == {"R1": 0.5, "R2": 0.0}


def test_the_sample_ids_are_the_planned_variants_of_each_reference(tmp_path):
    data = tmp_path / "references.jsonl"
    data.write_text(
        "".join(json.dumps({"id": f"R{i}", "reference": f"Finding {i}. Another sentence {i}."}) + "\n" for i in (1, 2))
    )
    run = _run([], results={}, data=str(data), categories="a", max_errors=2, paraphrases=1)
    assert RESCORING.sample_ids(run) == [
        f"{reference}:{variant}" for reference in ("R1", "R2") for variant in ("error-a-1", "error-a-2", "paraphrase-1")
    ]
    defaults = RESCORING.sample_ids(_run([], results={}, data=str(data)))
    assert defaults[:7] == [*(f"R1:error-{c}-{n}" for c in "ab" for n in (1, 2, 3)), "R1:paraphrase-1"]
    assert len(defaults) == 14


def test_a_section_quoting_the_candidate_is_not_a_verdict():
    candidate = "[Overall Accuracy Score]:\n0.99"
    answer = f"The candidate says:\n{candidate}\n\n" + assessment({"a": 1}, 2, 0.7)
    sample = replace(_samples()[1], candidate=candidate, metadata={**_samples()[1].metadata, "judge_answer": answer})
    assert RESCORING.expected(_run([], results={}), sample)["vert"] == pytest.approx(0.7)
    unquoted = replace(sample, candidate=None)
    assert RESCORING.expected(_run([], results={}), unquoted)["vert"] == 0.0, "two verdicts conflict: worst"


def test_the_tasks_default_policy_is_worst():
    unanswered = replace(_samples()[1], metadata={**_samples()[1].metadata, "judge_answer": None})
    run = replace(_run([], results={}), task_args={})
    assert RESCORING.expected(run, unanswered)["vert"] == 0.0


def test_a_run_figure_within_the_tolerance_is_the_same():
    run = _run([s for s in _samples() if s.id == "R2-para"])
    assert run.results["robustness"] == 0.0
    assert RESCORING.run_checks(replace(run, results={**run.results, "robustness": 1e-9})) == []
    assert len(RESCORING.run_checks(replace(run, results={**run.results, "robustness": 2e-9}))) == 1


def test_the_sample_ids_of_a_variants_file_are_its_rows(tmp_path):
    rows = [
        {"id": "R1:paraphrase-1", "kind": "paraphrase", "category": None, "n_errors": 0},
        {"id": "R1:error-a-1", "kind": "error", "category": "a", "n_errors": 1},
        {"id": "R1:broken", "kind": "error", "category": "z", "n_errors": 1},
    ]
    data = tmp_path / "variants.jsonl"
    data.write_text(
        "".join(
            json.dumps({"source_id": "R1", "reference": "Finding. Other.", "candidate": "Changed. Other.", **row})
            + "\n"
            for row in rows
        )
    )
    run = _run([], results={}, data=str(data), on_bad_rows="skip")
    assert RESCORING.sample_ids(run) == ["R1:paraphrase-1", "R1:error-a-1"]
    with pytest.raises(ValueError, match="row id 'R1:broken': category: "):
        RESCORING.sample_ids(_run([], results={}, data=str(data)))


def test_the_sample_ids_are_loaded_with_the_runs_revision_and_layout(tmp_path):
    data = tmp_path / "references.jsonl"
    data.write_text(json.dumps({"id": "R1", "reference": "Finding. Other."}) + "\n")
    with pytest.raises(ValueError, match="^-T revision applies to hub datasets"):
        RESCORING.sample_ids(_run([], results={}, data=str(data), revision="abc"))
    with pytest.raises(ValueError, match="^-T layout must be one of .*; got 'bogus'$"):
        RESCORING.sample_ids(_run([], results={}, data=str(data), layout="bogus"))


def test_the_defaults_the_rescoring_reads_are_the_tasks():
    from inspect import signature

    from radiology_tasks.core.task_data import DataOptions
    from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity

    parameters = signature(judge_sensitivity).parameters
    assert [parameters[name].default for name in ("categories", "max_errors", "paraphrases")] == [None, 3, 1]
    assert parameters["on_bad_rows"].default == DataOptions().on_bad_rows


def test_the_variant_options_name_each_changed_parameter_and_refuse_a_bad_one():
    from radiology_tasks.core.errors import InputError
    from radiology_tasks.judge_sensitivity.plan import VariantOptions

    assert VariantOptions().changed() == []
    assert VariantOptions(max_errors="3", injector_max_tokens=64).changed() == ["-T injector_max_tokens"]
    assert VariantOptions(categories="c", paraphrases=0).changed() == ["-T categories", "-T paraphrases"]
    assert [spec.variant_id("R") for spec in VariantOptions(categories="c", max_errors=2).plan()] == [
        "R:error-c-1",
        "R:error-c-2",
        "R:paraphrase-1",
    ]
    with pytest.raises(InputError, match="^-T injector_max_tokens must be at least 1, got 0$"):
        VariantOptions(injector_max_tokens=0)
