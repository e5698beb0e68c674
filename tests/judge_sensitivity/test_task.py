"""The judge_sensitivity task end to end, with fixed injector, checker and judge answers served on 127.0.0.1.

The injector marks each variant it makes ("..., variant a2."), so the judge stub can answer as the
hand-worked set (`tests.judge_sensitivity.hand_worked`) says, and the task's metrics must come out exactly
as worked out there.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import resolve_sample_attachments

from radiology_tasks.core.errors import InputError
from radiology_tasks.judge_sensitivity.records import SensitivityRecord
from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity
from tests.judge_answers import assessment
from tests.judge_sensitivity.hand_worked import EXCLUDED, EXPECTED, JUDGED, UNREADABLE
from tests.judge_sensitivity.stub_models import (
    INJECT,
    candidate_of,
    injection,
    kind_of,
    paraphrase_answer,
    prompt_of,
    verdict,
)
from tests.openai_stub import StubReply, openai_stub
from tests.report_values import assert_summary_only, report_values

REFERENCES = {
    "R1": "Small left pleural effusion. No pneumothorax. Heart size is normal. Mild degenerative change of the spine.",
    "R2": "Right upper lobe nodule measures 8 mm. No consolidation. No pleural effusion.",
}
ROLES = {"grader": "openai-api/stubsvc/judge", "injector": "openai-api/stubsvc/injector"}
CATEGORY = re.compile(r"## The error to introduce\n\((\w)\)")
MARK = re.compile(r"variant (\w)(\d)")


@pytest.fixture
def references(pairs_file):
    rows = [{"id": k, "reference": v, "modality": "CT", "anatomy": "chest"} for k, v in REFERENCES.items()]
    return str(pairs_file(rows))


def source_of(text: str) -> str:
    return "R1" if "Heart size" in text or "degenerative" in text else "R2"


def variant_of(candidate: str) -> tuple[str, str]:
    """(reference, variant name) of a candidate the stub injector made."""
    mark = MARK.search(candidate)
    return source_of(candidate), (f"{mark.group(1)}{mark.group(2)}" if mark else "paraphrase")


def marked_injection(prompt: str) -> str:
    category = CATEGORY.search(prompt).group(1)  # type: ignore[union-attr]
    n = INJECT.search(prompt).group(1)  # type: ignore[union-attr]
    if JUDGED[source_of(prompt)].get(f"{category}{n}") == EXCLUDED:
        return injection(prompt, changed=[0])  # one change where n were asked for: fails its check every time
    return injection(prompt, change=lambda s: s.rstrip(".") + f", variant {category}{n}.")


def hand_worked_judge(candidate: str) -> str:
    source, name = variant_of(candidate)
    judged = JUDGED[source][name]
    if judged == UNREADABLE:
        return "I cannot judge this report."
    counts, score = judged  # type: ignore[misc]
    return assessment(counts, 3, score)


def stub(judge: Callable[[str], str] = hand_worked_judge, **overrides: Callable[[str], object]) -> Callable:
    """A reply function: the injector and checker answer validly unless `overrides` says otherwise."""
    answers = {
        "inject": marked_injection,
        "paraphrase": paraphrase_answer,
        "plausibility": lambda p: verdict(True),
        "paraphrase_check": lambda p: verdict(True),
        "differences": lambda p: json.dumps({"differences": ["the candidate adds a finding"]}),
        "judge": lambda p: judge(candidate_of(p)),
    } | overrides
    return lambda body: answers[kind_of(prompt_of(body))](prompt_of(body))


def run(task, reply, monkeypatch, roles=ROLES):
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "none")
        (log,) = inspect_eval(task, model="none", model_roles=roles, display="none")
    assert log.status == "success", log.error
    return log, server


JUDGED_KEYS = {
    *("prompt", "passes", "variant", "detail", "judge", "constraint", "matched", "formula_check"),
    *("expert_score", "expert_significant", "expert_insignificant", "expert_raters", "expert_group"),
    *("judge_answer", "judge_answer_attempt", "judge_attempts", "judge_retried", "judge_truncated"),
    *("judge_calls", "judge_input_tokens", "judge_output_tokens", "filled_categories", "quoted_sections"),
    *("predicted_significant", "predicted_insignificant", "unscored", "unscored_detail", "filled_in"),
}
"""The keys a variant judged in one pass records, as every release wrote them."""

TWO_PASS_KEYS = {
    *("prompt", "passes", "variant", "judge", "differences", "differences_constraint", "differences_attempts"),
    *("constraint", "judge_answer", "judge_answer_attempt", "judge_attempts", "judge_retried", "judge_truncated"),
    *("judge_calls", "judge_input_tokens", "judge_output_tokens", "matched"),
    *("predicted_significant", "predicted_insignificant", "unscored", "unscored_detail", "filled_in"),
}
"""The keys a variant judged in two passes records."""

EXCLUDED_KEYS = {"prompt", "passes", "variant", "unscored", "unscored_detail", "filled_in"}
"""The keys a variant that could not be made records."""


def assert_recorded(score, keys: set[str]) -> None:
    """The score's metadata holds exactly `keys`, and is what its typed record holds."""
    assert set(score.metadata) == keys
    assert SensitivityRecord.read(score.metadata).metadata() == score.metadata


def metrics_of(log) -> dict[str, float]:
    """Every figure of the run, as `radiology-tasks report` computes them from the log."""
    return report_values(log)


def requests_by_kind(server) -> Counter:
    return Counter((r["model"], kind_of(prompt_of(r))) for r in server.requests)


def test_the_hand_worked_set_gives_exactly_the_hand_worked_metrics(monkeypatch, references) -> None:
    log, server = run(judge_sensitivity(data=references), stub(), monkeypatch)
    metrics = metrics_of(log)
    assert {k: metrics[k] for k in EXPECTED} == pytest.approx(EXPECTED)
    # The log keeps the summary (the mean, the three shares); the report recomputes the rest from it.
    assert_summary_only(log, {"discrimination_n", "monotonicity", "judge_count_n1", "excluded", "parse_failure_rate"})
    samples = {s.id: s for s in log.samples}
    assert len(samples) == 14
    # The count a leaderboard without the data checks a redacted run against.
    assert log.eval.metadata["data"]["samples"] == 14
    # R1 b3 was asked for 3 changes and given 1, five times: excluded, counted, never judged.
    excluded = samples["R1:error-b-3"]
    attempts = excluded.metadata["variant"]["attempts"]
    assert [a["problem"] for a in attempts] == ["wrong_change_count"] * 5
    assert all(a["answer"] and a["check_answers"] == [] for a in attempts)
    score = excluded.scores["sensitivity_judge"]
    assert score.reason == "scoring_failed" and all(math.isnan(v) for v in score.value.values())
    assert score.metadata["variant"]["excluded"] == "failed_check"
    assert_recorded(score, EXCLUDED_KEYS)
    assert_recorded(samples["R1:error-a-1"].scores["sensitivity_judge"], JUDGED_KEYS)
    # R2 b1's answer is unreadable: unscored=worst fills vert in with 0, which no sensitivity metric uses.
    unreadable = samples["R2:error-b-1"].scores["sensitivity_judge"]
    assert unreadable.value["vert"] == 0.0 and unreadable.metadata["filled_in"] == ["vert", "green", "green_f1"]
    assert unreadable.reason == "grader_failed"
    assert metrics["unscored"] == 2.0 and metrics["parse_failure_rate"] == pytest.approx(1 / 14)
    # Every made variant: one injector call and one check; the excluded one: five calls and no check.
    calls = requests_by_kind(server)
    assert calls[("injector", "inject")] == 11 + 5 and calls[("injector", "plausibility")] == 11
    assert calls[("injector", "paraphrase")] == 2 and calls[("injector", "paraphrase_check")] == 2
    assert calls[("judge", "judge")] == 13 + 1  # R2 b1 asked once more (judge_retries=1)


def test_an_unreadable_answer_then_a_valid_one(monkeypatch, references) -> None:
    tries = Counter()

    def first_broken(prompt: str) -> str:
        tries["inject"] += 1
        return "Here are the changes you asked for." if tries["inject"] == 1 else marked_injection(prompt)

    task = judge_sensitivity(data=references, limit=1, categories="a", max_errors=1, paraphrases=0)
    log, _ = run(task, stub(inject=first_broken), monkeypatch)
    variant = log.samples[0].metadata["variant"]
    assert [a["problem"] for a in variant["attempts"]] == ["invalid_json", None]
    assert variant["constraint"] == "constraint: response_schema 'injection' (backend openai-api/stubsvc/injector)"
    assert variant["attempts"][0]["answer"] == "Here are the changes you asked for."
    assert variant["attempts"][0]["detail"].startswith("invalid_json: Expecting value")
    assert variant["text"] == REFERENCES["R1"].replace("effusion.", "effusion, variant a1.", 1)
    # The second attempt bypasses the cache with a new seed and a sampling temperature.
    first, second = variant["attempts"]
    assert (first["temperature"], second["temperature"]) == (0.0, 0.7) and second["seed"] == first["seed"] + 1


def test_an_implausible_verdict_then_a_plausible_one(monkeypatch, references) -> None:
    verdicts = iter([verdict(False, "a thyroid finding on a chest CT"), verdict(True, "ok")])
    task = judge_sensitivity(data=references, limit=1, categories="a", max_errors=1, paraphrases=0)
    log, server = run(task, stub(plausibility=lambda p: next(verdicts)), monkeypatch)
    variant = log.samples[0].metadata["variant"]
    assert [a["problem"] for a in variant["attempts"]] == ["implausible", None]
    assert variant["attempts"][0]["detail"] == "a thyroid finding on a chest CT"
    assert json.loads(variant["attempts"][0]["check_answers"][0])["plausible"] is False
    assert variant["excluded"] is None and variant["changes"][0]["sentence_index"] == 0
    assert requests_by_kind(server)[("injector", "plausibility")] == 2


def test_five_failed_attempts_exclude_the_variant_with_the_last_reason(monkeypatch, references) -> None:
    answers = iter(
        ["not json", '{"changes_detail": []}', "", json.dumps({"sentences": []}), "still not json", "unused"]
    )
    task = judge_sensitivity(data=references, limit=1, categories="a", max_errors=1, paraphrases=0)
    log, server = run(task, stub(inject=lambda p: next(answers)), monkeypatch)
    sample = log.samples[0]
    variant = sample.metadata["variant"]
    problems = [a["problem"] for a in variant["attempts"]]
    assert problems == ["invalid_json", "wrong_shape", "empty_answer", "wrong_shape", "invalid_json"]
    assert variant["excluded"] == "invalid_answer" and variant["exclusion_detail"].startswith("invalid_json: ")
    assert metrics_of(log)["excluded_invalid_answer"] == 1.0 and metrics_of(log)["excluded"] == 1.0
    assert len(server.requests) == 5  # no check, no judge
    assert math.isnan(metrics_of(log)["discrimination"])


def test_a_wrong_number_of_changed_sentences_is_never_sent_to_the_checker(monkeypatch, references) -> None:
    task = judge_sensitivity(data=references, limit=1, categories="c", max_errors=2, paraphrases=0, injector_attempts=2)
    log, server = run(task, stub(inject=lambda p: injection(p, changed=[0, 1, 2])), monkeypatch)
    for sample in log.samples:
        assert {a["problem"] for a in sample.metadata["variant"]["attempts"]} == {"wrong_change_count"}
    assert requests_by_kind(server) == Counter({("injector", "inject"): 4})


def test_too_few_sentences_and_a_context_overflow_end_without_retries(monkeypatch, pairs_file) -> None:
    data = str(pairs_file([{"id": "short", "reference": "Small effusion. No pneumothorax."}]))
    overflow = StubReply(status=400, error={"message": "This model's maximum context length is 10 tokens"})
    task = judge_sensitivity(data=data, categories="a", max_errors=3, paraphrases=0)
    log, server = run(task, stub(inject=lambda p: overflow), monkeypatch)
    variants = {s.id: s.metadata["variant"] for s in log.samples}
    assert variants["short:error-a-3"]["excluded"] == "too_few_sentences"
    assert variants["short:error-a-3"]["attempts"] == []
    for n in (1, 2):
        attempts = variants[f"short:error-a-{n}"]["attempts"]
        assert [a["problem"] for a in attempts] == ["judge_context_exceeded"]
        assert variants[f"short:error-a-{n}"]["excluded"] == "injector_failure"
    metrics = metrics_of(log)
    assert (metrics["excluded_too_few_sentences"], metrics["excluded_injector_failure"]) == (1.0, 2.0)
    assert len(server.requests) == 2


def test_two_passes_list_then_classify_and_the_log_keeps_both(monkeypatch, references) -> None:
    task = judge_sensitivity(data=references, passes=2)
    log, server = run(task, stub(), monkeypatch)
    assert {k: metrics_of(log)[k] for k in EXPECTED} == pytest.approx(EXPECTED)
    sample = resolve_sample_attachments(next(s for s in log.samples if s.id == "R1:error-a-2"))
    judge_calls = [e for e in sample.events if e.event == "model" and e.role == "grader"]
    assert len(judge_calls) == 2
    first, second = (call.input[-1].text for call in judge_calls)
    assert kind_of(first) == "differences" and "## Differences found in a first reading" in second
    assert "1. the candidate adds a finding" in second and "[Overall Accuracy Score]:" in second
    score = sample.scores["sensitivity_judge"]
    assert score.metadata["differences"] == ["the candidate adds a finding"]
    assert score.metadata["judge_calls"] == 2 and len(score.metadata["differences_attempts"]) == 1
    assert score.metadata["passes"] == 2
    assert_recorded(score, TWO_PASS_KEYS)
    assert metrics_of(log)["judge_calls_per_sample"] == pytest.approx((13 * 2 + 1) / 14)


def test_an_unreadable_first_pass_leaves_the_variant_unscored_without_a_second_call(monkeypatch, references) -> None:
    task = judge_sensitivity(data=references, limit=1, categories="a", max_errors=1, paraphrases=0, passes=2)
    log, server = run(task, stub(differences=lambda p: "The reports differ."), monkeypatch)
    score = log.samples[0].scores["sensitivity_judge"]
    assert score.reason == "grader_failed"
    assert score.metadata["unscored_detail"]["vert"].startswith("differences: invalid_json")
    assert len(score.metadata["differences_attempts"]) == 2  # asked again once (judge_retries=1)
    assert requests_by_kind(server)[("judge", "judge")] == 0
    assert_recorded(
        score,
        TWO_PASS_KEYS
        - {"constraint", "matched", "predicted_significant", "predicted_insignificant"}
        - {"judge_answer", "judge_answer_attempt", "judge_attempts"},
    )


def test_green_prompt_counts_only_significant_errors_as_penalties(monkeypatch, references) -> None:
    log, _ = run(judge_sensitivity(data=references, prompt="green"), stub(), monkeypatch)
    metrics = metrics_of(log)
    # Hand-worked set without the score comparison: R1 a2 is no longer penalised (7 / 10).
    assert metrics["discrimination"] == pytest.approx(0.7) and metrics["robustness"] == 0.5


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"prompt": "score"}, "prompt must be one of green, vert, formula, rubric"),
        ({"passes": 3}, "passes must be 1 or 2"),
        ({"categories": "a,x"}, "unknown error categories"),
        ({"max_errors": 0}, "max_errors must be between 1 and 9"),
        ({"paraphrases": -1}, "paraphrases must be >= 0"),
        ({"injector_attempts": 0}, r"injector attempts \(-T injector_attempts, --attempts\) must be at least 1"),
        ({"injector_temperature": -1}, "injector temperature .* must be >= 0"),
        ({"limit": 0}, "limit must be at least 1"),
        ({"limit": "abc"}, "limit must be a whole number, got 'abc'"),
        ({"max_errors": 2.5}, "max_errors must be a whole number"),
        ({"passes": True}, "passes must be a whole number"),
        ({"injector_temperature": "hot"}, "injector_temperature must be a number"),
        ({"judge_max_tokens": 0}, "judge_max_tokens must be at least 1"),
        ({"constrain": "regex"}, "constrain must be one of"),
        ({"judge_retries": -1}, "judge_retries must be at least 0"),
        ({"unscored": "zero"}, "unscored must be one of worst, exclude; got .zero."),
        ({"zero_matched": "never"}, "zero_matched must be one of perfect_if_no_errors"),
        ({"missing_categories": "lenient"}, "missing_categories must be one of zero, strict"),
        ({"detail": "short"}, "detail must be one of full, brief"),
        ({"seed": "x"}, "seed must be a whole number"),
    ],
)
def test_bad_parameters_are_refused_when_the_task_is_built(arguments, message) -> None:
    with pytest.raises(InputError, match=message):
        judge_sensitivity(**arguments)


def test_no_injector_bound_is_a_clear_error(monkeypatch, references) -> None:
    task = judge_sensitivity(data=references, limit=1, categories="a", max_errors=1, paraphrases=0)
    with openai_stub(stub()) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "none")
        (log,) = inspect_eval(task, model="none", model_roles={"grader": ROLES["grader"]}, display="none")
    assert log.status == "error" and "--model-role injector=" in log.error.message
