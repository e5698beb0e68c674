"""CT-FineBench logs re-scored from their stored judge answers: an honest log agrees, an edited one is named.

Three demo reports are judged by a scripted judge behind the local OpenAI-compatible stub; the log is read as
the leaderboard reads it (`read_run`) and checked with the family's `Rescoring` hooks, called directly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalMetric

from radiology_tasks.core.family import family_of
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench.family import FAMILY
from radiology_tasks.ct_finebench.rescoring import RESCORING
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence, read_run
from radiology_tasks.leaderboard.rescore import rescoring_violations
from radiology_tasks.leaderboard.rules import Rescoring
from tests.ct_finebench.stub_judge import SCORER, answer, asked_ids, candidate_in, is_extraction, items_in
from tests.leaderboard.runs import edited
from tests.openai_stub import openai_stub

DEMO = [pair for pair in load_pairs("demo").pairs if pair.qa][:3]
# The questions of these three reports: q1 diameter (8 mm), q2 prior diameter (5 mm), q3 lobe, q4 density,
# q5 margins, q6 emphysema type.
EXTRACTED: list[dict[str, str | None]] = [
    {"q1": "9 mm", "q2": "5 mm", "q3": "right upper lobe", "q4": "solid", "q5": None, "q6": "paraseptal"},
    {"q1": "8 mm", "q2": None, "q3": "right upper lobe", "q4": "solid", "q5": "spiculated", "q6": None},
    {"q1": "12 mm", "q2": "5 mm", "q3": "left upper lobe", "q4": "solid", "q5": None, "q6": None},
]
GRADES = {"right upper lobe": 1, "solid": 1, "spiculated": 1, "paraseptal": 0.5, "left upper lobe": 0}
# By hand: report 0: 0.5 (9 vs 8 mm, 12.5%) + 1 + 1 + 1 + 0 + 0.5 = 4/6; report 1: 1 + 0 + 1 + 1 + 1 + 0 = 4/6;
# report 2: 0 (12 vs 8 mm, 50%) + 1 + 0 + 1 + 0 + 0 = 2/6.
HAND_SCORES = [4 / 6, 4 / 6, 2 / 6]


def scripted(body: dict[str, Any]) -> str:
    """The answers above; the first report's first extraction leaves out q4, which a follow-up asks alone."""
    if not is_extraction(body):
        return answer({key: GRADES[candidate] for key, (_, _, candidate) in items_in(body).items()})
    index = next(i for i, pair in enumerate(DEMO) if pair.candidate == candidate_in(body))
    ids = asked_ids(body)
    left_out = {"q4"} if index == 0 and len(ids) > 1 else set()
    return answer({key: EXTRACTED[index][key] for key in ids if key not in left_out})


def _run(directory: Path, monkeypatch: pytest.MonkeyPatch, **task_args: Any) -> Path:
    with openai_stub(scripted) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            ct_finebench(limit=3, **task_args),
            model="none",
            model_roles={"grader": "openai-api/stubsvc/stub-judge"},
            log_dir=str(directory),
            display="none",
        )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def batch_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _run(tmp_path_factory.mktemp("batch"), monkeypatch)


def differences(run: RunEvidence, rescoring: Rescoring = RESCORING) -> list[str]:
    """What the leaderboard's re-scoring refuses in `run`, then a line when the logged run mean is not the samples'."""
    assert rescoring is family_of(run.short_task).rescoring(run.short_task)
    run_level = rescoring.run_checks(run)
    lines = rescoring_violations(run)  # the samples' lines, then the run-level ones
    assert lines[len(lines) - len(run_level) :] == run_level
    mean = [s.values[rescoring.ranked(run).key] for s in run.samples if s.error is None]
    if abs(run.results["ct_finebench_mean"] - sum(v for v in mean if v is not None) / len(mean)) > 1e-9:
        lines.insert(len(lines) - len(run_level), "run: ct_finebench_mean")
    return lines


def change(path: Path, name: str, edit: Callable[[EvalLog], None]) -> RunEvidence:
    return read_run(edited(path, edit, name))


def score_of(log: EvalLog, index: int) -> Any:
    """The score of the `index`-th report of `DEMO` in `log`."""
    return next(s for s in log.samples or [] if s.id == DEMO[index].id).scores[SCORER]  # type: ignore[index]


def test_the_family_names_its_rescoring_and_ranks_the_bounded_mean():
    assert FAMILY.rescoring("ct_finebench") is RESCORING
    assert FAMILY.version == "1.5.0"
    ranked = RESCORING.ranked(read_run_stub())
    assert (ranked.key, ranked.bounded, ranked.corpus) == ("ct_finebench", True, False)


def read_run_stub() -> RunEvidence:
    return RunEvidence(
        Path("x"), "", "radiology_tasks/ct_finebench", "1.3.0", {}, "success", "none", None, {}, None, {}
    )


def test_an_honest_log_gives_no_difference_and_the_hand_computed_scores(batch_log):
    run = read_run(batch_log)
    by_id = {s.id: s for s in run.samples}
    assert [by_id[p.id].values["ct_finebench"] for p in DEMO] == pytest.approx(HAND_SCORES)
    assert [RESCORING.expected(run, by_id[p.id]) for p in DEMO] == [
        {"ct_finebench": pytest.approx(s)} for s in HAND_SCORES
    ]
    assert differences(run) == []
    # Every answer the judge gave is stored: the first report's two extraction calls and one comparison call.
    first = by_id[DEMO[0].id]
    assert len(RESCORING.answers(first)) == len(first.judge_calls) == 3
    assert first.metadata["extraction_judge"]["read_from"] == {"q1": 0, "q2": 0, "q3": 0, "q4": 1, "q5": 0, "q6": 0}


def test_breakdown_is_the_mean_grade_by_answer_type_and_attribute(batch_log):
    tables = RESCORING.breakdown(read_run(batch_log))  # type: ignore[misc]
    assert tables is not None
    by_type, by_attribute = tables["Mean grade by answer type"], tables["Mean grade by attribute"]
    # numeric: 0.5, 1 | 1, 0 | 0, 1; location: 1, 1, 0; categorical: density 1, 1, 1; margin 0, 1, 0; type .5, 0, 0
    assert by_type == pytest.approx({"numeric": 3.5 / 6, "location": 2 / 3, "categorical": 4.5 / 9})
    assert by_attribute == pytest.approx(
        {"size": 0.5, "prior size": 2 / 3, "location": 2 / 3, "density": 1.0, "margin": 1 / 3, "type": 0.5 / 3}
    )


def test_an_edited_sample_score_is_named(batch_log):
    def edit(log: EvalLog) -> None:
        score_of(log, 2).value["ct_finebench"] = 0.9

    lines = differences(change(batch_log, "score.eval", edit))
    assert any(line.startswith(f"sample {DEMO[2].id}: logged ct_finebench 0.9") for line in lines), lines


def test_an_edited_stored_judge_answer_is_named(batch_log):
    def edit(log: EvalLog) -> None:
        attempt = score_of(log, 2).metadata["comparison_judge"]["attempts"][0]
        attempt["answer"] = answer({"q3": 1, "q4": 1})

    lines = differences(change(batch_log, "answer.eval", edit))
    sample = DEMO[2].id
    assert f"sample {sample}: the stored judge answer is not one the judge returned in this run" in lines
    # The grade read from the edited answer no longer matches the logged one, and the answers no longer match.
    assert any(line.startswith(f"sample {sample}: question q3 logged grade 0.0") for line in lines), lines
    assert any(line.startswith(f"sample {sample}: stores 2 judge answers") for line in lines), lines


def test_an_edited_extraction_answer_is_named(batch_log):
    def edit(log: EvalLog) -> None:
        attempt = score_of(log, 2).metadata["extraction_judge"]["attempts"][0]
        attempt["answer"] = attempt["answer"].replace("12 mm", "8 mm")

    lines = differences(change(batch_log, "extracted.eval", edit))
    assert f"sample {DEMO[2].id}: the stored judge answer is not one the judge returned in this run" in lines
    assert any("question q1 logged extracted_answer '12 mm'" in line for line in lines), lines


def test_an_edited_per_question_grade_is_named(batch_log):
    def edit(log: EvalLog) -> None:
        question = score_of(log, 1).metadata["questions"][1]
        question |= {"grade": 1.0, "answered": True, "extracted_answer": "5 mm"}

    lines = differences(change(batch_log, "question.eval", edit))
    assert f"sample {DEMO[1].id}: question q2 logged grade 1.0 but its stored judge answers give 0.0" in lines
    assert all(line.startswith(f"sample {DEMO[1].id}: question q2") for line in lines), lines


def test_a_question_left_without_its_answer_is_named(batch_log):
    def edit(log: EvalLog) -> None:
        score = score_of(log, 2)
        del score.metadata["extraction_judge"]["read_from"]["q1"]
        score.metadata["questions"][0] |= {
            "extracted_answer": None,
            "answered": None,
            "grade": None,
            "graded_by": None,
            "unscored_reason": "invalid_response_format",
        }
        score.value["ct_finebench"] = 2 / 5

    lines = differences(change(batch_log, "dropped.eval", edit))
    # The score and question agree with the answers left, so only the answer the judge did give names the sample
    # (the run's means, not edited here, differ too).
    assert [line for line in lines if line.startswith("sample")] == [
        f"sample {DEMO[2].id}: question q1 is logged without an answer, but the judge's first answer gives one"
    ]


def test_edited_run_level_means_are_named(batch_log):
    def edit(log: EvalLog) -> None:
        # Runs of 1.4.0 leave the breakdown to the report; a log that claims one (as older runs did) is compared.
        metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
        metrics["type_numeric_mean"] = EvalMetric(name="type_numeric_mean", value=0.9)
        metrics["attribute_margin_mean"] = EvalMetric(name="attribute_margin_mean", value=1.0)

    lines = differences(change(batch_log, "means.eval", edit))
    assert sorted(lines) == [
        f"run: logged attribute_margin_mean 1 but the samples' stored judge answers give {1 / 3:.6g}",
        f"run: logged type_numeric_mean 0.9 but the samples' stored judge answers give {3.5 / 6:.6g}",
    ]


def test_per_question_mode_and_exclude_policy_give_no_difference(tmp_path, monkeypatch):
    run = read_run(_run(tmp_path, monkeypatch, qa_mode="per_question", unscored="exclude"))
    by_id = {s.id: s for s in run.samples}
    assert [by_id[p.id].values["ct_finebench"] for p in DEMO] == pytest.approx(HAND_SCORES)
    assert differences(run) == []
    # One call per question and step: six extractions, and a comparison for each judged answer (3, 3, 2).
    assert [len(RESCORING.answers(by_id[p.id])) for p in DEMO] == [9, 9, 8]


def _empty(metadata: dict[str, Any], candidate: str | None = None, calls: int = 0) -> SampleEvidence:
    from radiology_tasks.leaderboard.evidence import JudgeCall

    judge_calls = [JudgeCall("j", 0.0, None, "{}")] * calls
    return SampleEvidence("e1", 1, None, {"ct_finebench": 0.0}, metadata, candidate, judge_calls, True)


@pytest.mark.parametrize(("policy", "value"), [("worst", 0.0), ("exclude", math.nan)])
def test_an_empty_candidate_scores_as_the_scorer_scores_it(policy, value):
    run = read_run_stub()
    run.task_args["unscored"] = policy
    expected = RESCORING.expected(run, _empty({"unscored": {"ct_finebench": "no_response"}}))
    assert math.isnan(expected["ct_finebench"]) if math.isnan(value) else expected == {"ct_finebench": value}


def test_a_sample_claiming_an_empty_candidate_with_judge_calls_is_named():
    run = read_run_stub()
    honest = RunEvidence(**{**run.__dict__, "samples": [_empty({})]})
    forged = RunEvidence(**{**run.__dict__, "samples": [_empty({}, candidate="A report.", calls=2)]})
    assert [line for line in RESCORING.run_checks(honest) if line.startswith("sample")] == []
    assert any(line.startswith("sample e1: logged as an empty candidate") for line in RESCORING.run_checks(forged))


DEMO_ALL = load_pairs("demo").pairs
ALL_DEMO = [pair for pair in DEMO_ALL if pair.qa]


def oracle(body: dict[str, Any]) -> str:
    """Extraction: every reference answer for the demo's own candidates, "unclear" for any other candidate;
    comparison: 1 when the answers are equal."""
    if is_extraction(body):
        pair = next((p for p in ALL_DEMO if p.candidate == candidate_in(body)), None)
        if pair is None:
            return answer(dict.fromkeys(asked_ids(body), "unclear"))
        return answer({key: pair.qa[int(key[1:]) - 1].answer for key in asked_ids(body)})
    return answer({key: int(reference == candidate) for key, (_, reference, candidate) in items_in(body).items()})


def test_the_leaderboard_s_checks_pass_a_whole_demo_run_and_name_an_edited_sample(tmp_path, monkeypatch):
    from radiology_tasks.leaderboard.checks import run_violations

    with openai_stub(oracle) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            ct_finebench(),
            model="none",
            model_roles={"grader": "openai-api/stubsvc/stub-judge"},
            log_dir=str(tmp_path),
            display="none",
        )
    path = Path(log.location)
    # Every demo row with questions is a sample; the X-ray and MRI rows without any are not expected.
    assert run_violations(read_run(path)) == []

    def edit(edited_log: EvalLog) -> None:
        question = score_of(edited_log, 0).metadata["questions"][0]
        question["grade"] = 0.0

    assert run_violations(read_run(edited(path, edit, "edited.eval"))) == [
        f"sample {DEMO[0].id}: question q1 logged grade 0.0 but its stored judge answers give 1.0"
    ]


def test_two_systems_on_the_demo_questions_are_submitted_and_ranked_with_their_breakdown(tmp_path, monkeypatch):
    from radiology_tasks.leaderboard.board import Settings, build_leaderboard
    from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle

    # System B writes the same terse report for every study: the oracle cannot answer from it.
    terse = tmp_path / "terse.jsonl"
    terse.write_text("".join(json.dumps({"id": p.id, "candidate": "No acute findings."}) + "\n" for p in DEMO_ALL))
    bundles = []
    with openai_stub(oracle) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        for name, args in (("A", {}), ("B", {"candidates": str(terse)})):
            (log,) = inspect_eval(
                ct_finebench(**args),
                model="none",
                model_roles={"grader": "openai-api/stubsvc/stub-judge"},
                log_dir=str(tmp_path / name),
                display="none",
            )
            bundles.append(tmp_path / f"bundle-{name}")
            write_bundle([Path(log.location)], bundles[-1], SystemCard(name=f"system {name}"))
    leaderboard = build_leaderboard(bundles, tmp_path / "site", Settings(resamples=50))
    assert leaderboard["not_ranked"] == []
    (board,) = leaderboard["boards"]
    assert (board["task"], board["score"], board["n_samples"]) == ("ct_finebench", "ct_finebench", len(ALL_DEMO))
    first, second = board["entries"]
    assert (first["system"], first["score"]) == ("system A", 1.0), "the oracle answers the demo's own candidates"
    assert second["system"] == "system B" and second["score"] < 0.5
    assert set(first["breakdown"]) == {"Mean grade by answer type", "Mean grade by attribute"}
    assert first["breakdown"]["Mean grade by attribute"]["size"] == 1.0


def _step_attempts(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        a for step in ("extraction_judge", "comparison_judge") for a in (metadata.get(step) or {}).get("attempts") or []
    ]


def test_a_log_from_before_attempts_recorded_token_counted_truncation_still_re_scores(batch_log):
    """Attempts logged before `truncated_by_tokens` existed lack it; such a log re-scores as it did."""
    assert all("truncated_by_tokens" in a for s in read_run(batch_log).samples for a in _step_attempts(s.metadata))

    def before(log: EvalLog) -> None:
        for sample in log.samples or []:
            for attempt in _step_attempts(sample.scores[SCORER].metadata or {}):  # type: ignore[index]
                del attempt["truncated_by_tokens"]

    run = change(batch_log, "before-the-field.eval", before)
    assert not any("truncated_by_tokens" in a for s in run.samples for a in _step_attempts(s.metadata))
    assert differences(run) == []
