"""ran_score re-scoring on samples built in memory: the replay of stored judge answers and every refusal line.

One study: the reference states a pleural effusion and an enlarged heart, the candidate only the enlarged heart.
Out of the 21 label columns the two reports agree on 20 (label_agreement 20/21); over the corpus only
cardiomegaly has an F1 (1), every other label 0, so the macro F1 is 1/21. The honest sample's stored labels and
metadata are the scorer's own (`agreement_score`) for the labels its stored answers give.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rescore import rescoring_violations
from radiology_tasks.ran_score import rescoring as rs
from radiology_tasks.ran_score.rescoring import BREAKDOWN_TITLE, RESCORING
from radiology_tasks.ran_score.scorer import agreement_score
from radiology_tasks.ran_score.taxonomy import load_taxonomy, taxonomy_digest
from tests.ran_score.helpers import ASKED, batch_answer, label_answer

JUDGE = "openai-api/stubsvc/stub-judge"
REFERENCE = "Small left pleural effusion. Heart is enlarged."
CANDIDATE = "Heart is enlarged. No effusion."
REFERENCE_ANSWER = batch_answer(
    {"pleural_effusion": "Small left pleural effusion", "cardiomegaly": "Heart is enlarged"}
)
CANDIDATE_ANSWER = batch_answer({"cardiomegaly": "Heart is enlarged"})
DIGEST = taxonomy_digest(load_taxonomy())


def _attempt(report: str, answer: Any, *, label: str | None = None, stop_reason: str = "stop") -> dict[str, Any]:
    return {"report": report, "label": label, "answer": answer, "stop_reason": stop_reason, "input_tokens": 9}


ATTEMPTS = [_attempt("reference", REFERENCE_ANSWER), _attempt("candidate", CANDIDATE_ANSWER)]


def _run(samples: list[SampleEvidence], *, results: dict[str, float] | None = None, **args: Any) -> RunEvidence:
    run = RunEvidence(
        path=Path("ran.eval"),
        sha256="0" * 64,
        task="radiology_tasks/ran_score",
        task_version="1.2.0",
        task_args={"unscored": "worst", **args},
        status="success",
        model="none/none",
        judge=JUDGE,
        metadata={"taxonomy": {"digest": DIGEST}},
        scorer="finding_agreement",
        results={},
        samples=samples,
    )
    if results is None:
        results = rs._figures(rs._settings(run), samples)
    return replace(run, results=results)


def _sample(
    sample_id: str = "s1", attempts: list[dict[str, Any]] = ATTEMPTS, candidate: str = CANDIDATE, **args: Any
) -> SampleEvidence:
    """An honest sample: its stored labels, metadata and value are the scorer's for what `attempts` give."""
    metadata = {"reference_source": "judge", "candidate_source": "judge", "judge_attempts": attempts}
    bare = SampleEvidence(sample_id, 1, None, {}, metadata, candidate, [], True, target=REFERENCE)
    run = _run([], results={}, **args)
    settings = rs._settings(run)
    sides, lines = rs._reread(run, settings, bare)
    assert lines == []
    score = agreement_score(settings.taxonomy, sides, None, settings.policy, candidate)
    calls = [JudgeCall(JUDGE, 0.0, None, a["answer"]) for a in attempts if a["stop_reason"] != "error"]
    return replace(bare, values=dict(score.value), metadata={**metadata, **score.metadata}, judge_calls=calls)


def _with(sample: SampleEvidence, **metadata: Any) -> SampleEvidence:
    return replace(sample, metadata={**sample.metadata, **metadata})


def test_the_honest_sample_gives_the_hand_worked_figures_and_no_line():
    sample = _sample()
    run = _run([sample])
    assert sample.values == {"label_agreement": pytest.approx(20 / 21)}
    assert RESCORING.expected(run, sample) == {"label_agreement": pytest.approx(20 / 21)}
    assert run.results["ran_score"] == pytest.approx(1 / 21)
    assert (run.results["f1_cardiomegaly"], run.results["f1_pleural_effusion"]) == (1.0, 0.0)
    assert run.results["label_agreement_mean"] == pytest.approx(20 / 21)
    assert RESCORING.run_checks(run) == []
    assert rescoring_violations(run) == []
    ranked = RESCORING.ranked(run)
    assert (ranked.key, ranked.bounded, ranked.corpus, ranked.per_sample) == (
        "ran_score",
        True,
        True,
        "label_agreement",
    )


def test_the_corpus_score_is_the_macro_f1_over_the_samples_labels():
    sample = _sample()
    assert RESCORING.corpus_score([sample]) == pytest.approx(1 / 21)
    assert RESCORING.corpus_score([sample, sample]) == pytest.approx(1 / 21), "repeats count again"
    failed = replace(sample, error="boom", metadata={**sample.metadata, "reference_labels": {"Only": 1}})
    assert RESCORING.corpus_score([failed, sample]) == pytest.approx(1 / 21), "columns come from a scored sample"
    assert RESCORING.breakdown(_run([sample]))[BREAKDOWN_TITLE]["Cardiomegaly"] == 1.0


def test_the_corpus_score_applies_the_samples_policy():
    unread = _attempt("candidate", "not json")
    sample = _sample(attempts=[ATTEMPTS[0], unread, unread], judge_retries=1)
    assert sample.metadata["unscored_policy"] == "worst"
    worst = RESCORING.corpus_score([sample])
    excluded = _sample(attempts=[ATTEMPTS[0], unread, unread], judge_retries=1, unscored="exclude")
    assert excluded.metadata["unscored_policy"] == "exclude"
    assert worst == pytest.approx(0.0) and math.isnan(RESCORING.corpus_score([excluded]))
    no_policy = _with(sample, unscored_policy=None)
    assert RESCORING.corpus_score([no_policy]) == worst, "worst is the default"


def test_answers_are_every_attempt_but_rejected_requests():
    rejected = _attempt("candidate", "HTTP 400: bad request", stop_reason="error")
    sample = _with(_sample(), judge_attempts=[*ATTEMPTS, rejected])
    assert RESCORING.answers(sample) == [REFERENCE_ANSWER, CANDIDATE_ANSWER]
    assert RESCORING.answers(_with(sample, judge_attempts=None)) == []


def test_an_edited_value_is_named_by_the_generic_check():
    sample = replace(_sample(), values={"label_agreement": 1.0})
    run = _run([sample], results=_run([_sample()]).results)
    assert rescoring_violations(run)[0] == (
        f"sample s1: logged label_agreement 1 but its stored judge answer gives {20 / 21:.6g}"
    )


def _sample_lines(run: RunEvidence) -> list[str]:
    return [line for line in RESCORING.run_checks(run) if line.startswith("sample")]


def test_stored_labels_must_be_what_the_answers_give():
    sample = _sample()
    forged = dict(sample.metadata["candidate_labels"], **{"Pleural Effusion": 1})
    run = _run([_with(sample, candidate_labels=forged)], results=_run([sample]).results)
    assert _sample_lines(run) == [
        "sample s1: its stored candidate labels are not what its stored judge answers give "
        "(Pleural Effusion: logged 1, answers give 0)"
    ]
    many = dict(sample.metadata["reference_labels"], Atelectasis=1, Edema=1, Fracture=1, Pneumonia=1)
    run = _run([_with(sample, reference_labels=many)], results=_run([sample]).results)
    assert _sample_lines(run) == [
        "sample s1: its stored reference labels are not what its stored judge answers give (Atelectasis: logged 1, "
        "answers give 0; Edema: logged 1, answers give 0; Fracture: logged 1, answers give 0 and 1 more)"
    ]
    three = dict(sample.metadata["reference_labels"], Atelectasis=1, Edema=1, Fracture=1)
    run = _run([_with(sample, reference_labels=three)], results=_run([sample]).results)
    assert _sample_lines(run)[0].endswith("Fracture: logged 1, answers give 0)")


def test_an_edited_answer_changes_the_expected_value():
    edited = [ATTEMPTS[0], _attempt("candidate", REFERENCE_ANSWER)]
    sample = _with(_sample(), judge_attempts=edited)
    assert RESCORING.expected(_run([], results={}), sample) == {"label_agreement": 1.0}


@pytest.mark.parametrize(
    ("attempts", "problem"),
    [
        (ATTEMPTS[:1], "the task would have asked the judge again, but the log stores no answer"),
        ([*ATTEMPTS, ATTEMPTS[1]], "1 stored judge answer(s) are ones the task would not have asked for"),
        ([ATTEMPTS[0], _attempt("candidate", None)], "a stored judge attempt has no answer text"),
        (
            [ATTEMPTS[0], _attempt("candidate", CANDIDATE_ANSWER, stop_reason="finished")],
            "a stored judge attempt is not one a judge call records (Input should be ",
        ),
    ],
)
def test_stored_answers_the_task_could_not_have_read_are_named(attempts, problem):
    sample = _with(_sample(), judge_attempts=attempts)
    run = _run([sample], results=_run([_sample()]).results)
    lines = [line for line in RESCORING.run_checks(run) if "report:" in line]
    assert len(lines) == 1 and lines[0].startswith(f"sample s1: candidate report: {problem}"), lines


def test_a_rejected_request_is_replayed_as_the_providers_refusal():
    rejected = _attempt("candidate", "HTTP 400: bad request", stop_reason="error")
    sample = _sample(attempts=[ATTEMPTS[0], rejected])
    assert sample.values == {"label_agreement": 0.0}, "the candidate is unscored, counted as the worst value"
    assert sample.metadata["candidate_unscored"]
    assert RESCORING.run_checks(_run([sample])) == []


def test_retries_follow_the_runs_setting():
    unread = _attempt("candidate", "not json")
    sample = _sample(attempts=[ATTEMPTS[0], unread, ATTEMPTS[1]])
    assert sample.values == {"label_agreement": pytest.approx(20 / 21)}, "one retry by default"
    no_retry = _run([sample], results=_run([sample]).results, judge_retries=0)
    assert "sample s1: candidate report: 1 stored judge answer(s) are ones the task would not have asked for" in (
        RESCORING.run_checks(no_retry)
    )
    two = _run([sample], results=_run([sample]).results, judge_retries="2")
    assert RESCORING.run_checks(two) == []


def test_per_label_answers_are_matched_to_the_label_asked():
    said = {
        "reference": {"pleural_effusion": "Small left pleural effusion", "cardiomegaly": "Heart is enlarged"},
        "candidate": {"cardiomegaly": "Heart is enlarged"},
    }
    attempts = [
        _attempt(side, label_answer(said[side].get(key)), label=key) for side in said for key in reversed(ASKED)
    ]
    sample = _sample(attempts=attempts, extraction="per_label")
    assert sample.values == {"label_agreement": pytest.approx(20 / 21)}
    run = _run([sample], extraction="per_label")
    assert RESCORING.run_checks(run) == []
    swapped = [{**a, "label": "edema"} if a["label"] == "cardiomegaly" else a for a in attempts]
    swapped = [
        {**a, "label": "cardiomegaly"} if a["answer"] == label_answer(None) and a["label"] == "edema" else a
        for a in swapped
    ]
    lines = _sample_lines(replace(run, samples=[_with(sample, judge_attempts=swapped)]))
    assert "Cardiomegaly: logged 1, answers give 0" in lines[0] and "Edema: logged 0, answers give 1" in lines[0]
    as_batch = _run([sample], results=run.results)
    assert _sample_lines(as_batch)[0].startswith("sample s1: reference report: ")


def test_settings_the_task_does_not_accept_are_named():
    sample = _sample()
    run = _run([sample], results={}, extraction="bogus")
    assert RESCORING.run_checks(run) == [
        "the run's settings cannot be used here: -T extraction 'bogus' is not one the task accepts"
    ]
    assert RESCORING.expected(run, sample) == {} and RESCORING.breakdown(run) is None
    bad_policy = _run([sample], results={}, unscored="never")
    assert RESCORING.run_checks(bad_policy)[0].startswith("the run's settings cannot be used here: ")
    missing = _run([sample], results={}, taxonomy="/nonexistent/taxonomy.yaml")
    assert RESCORING.run_checks(missing) == [
        "the run's settings cannot be used here: -T taxonomy: no such file /nonexistent/taxonomy.yaml"
    ]


def test_a_taxonomy_of_the_runs_own_is_named(tmp_path):
    from radiology_tasks.ran_score.taxonomy import bundled_taxonomy_path

    own = tmp_path / "taxonomy.yaml"
    own.write_text(
        bundled_taxonomy_path().read_text(encoding="utf-8").replace("Enlargement of the heart.", "An enlarged heart.")
    )
    sample = _sample()
    run = _run([sample], results=_run([sample]).results, taxonomy=str(own))
    digest = taxonomy_digest(load_taxonomy(str(own)))
    assert digest != DIGEST
    lines = RESCORING.run_checks(run)
    assert lines[:2] == [
        f"the taxonomy here (digest {digest}) is not the one the run recorded ({DIGEST})",
        "the run used a taxonomy of its own (-T taxonomy), not the released one, so its labels differ",
    ]
    unrecorded = replace(_run([sample]), metadata={})
    assert RESCORING.run_checks(unrecorded) == [
        f"the taxonomy here (digest {DIGEST}) is not the one the run recorded (None)"
    ]


def test_label_files_and_policies_are_named():
    sample = _sample()
    run = _run([sample], reference_labels="ref.csv", candidate_labels="cand.csv")
    assert RESCORING.run_checks(run) == [
        "-T reference_labels: labels read from a file cannot be checked against judge answers",
        "-T candidate_labels: labels read from a file cannot be checked against judge answers",
    ]
    unrecorded = _run([_with(sample, unscored_policy=None)], results=run.results)
    assert RESCORING.run_checks(unrecorded) == [
        "sample s1: records no unscored policy (logs before ran_score 1.2.0 do not)"
    ]
    other = _run([_with(sample, unscored_policy="exclude")], results=run.results)
    assert RESCORING.run_checks(other) == ["sample s1: scored under unscored=exclude, not the run's worst"]
    failed = replace(_with(sample, unscored_policy=None), error="boom")
    assert RESCORING.run_checks(_run([sample, failed], results=run.results)) == []


def test_logged_figures_are_compared_and_missing_ones_named():
    run = _run([_sample()])
    assert RESCORING.run_checks(replace(run, results={**run.results, "ran_score": 0.5})) == [
        f"results: logged ran_score 0.5 but the samples give {1 / 21:.6g}"
    ]
    assert RESCORING.run_checks(replace(run, results={**run.results, "ran_score": math.nan})) == [
        f"results: logged ran_score missing but the samples give {1 / 21:.6g}"
    ]
    # From 1.4.0 the log keeps the ranked Ran Score and leaves the rest to the report: dropping it is refused, an
    # unlogged secondary figure claims nothing, and a logged one (an older run's) is still compared.
    dropped = {k: v for k, v in run.results.items() if k != "ran_score"}
    assert RESCORING.run_checks(replace(run, results=dropped)) == ["results: ran_score is missing"]
    assert RESCORING.run_checks(replace(run, results={"ran_score": run.results["ran_score"]})) == []
    assert RESCORING.run_checks(replace(run, results={"ran_score": run.results["ran_score"], "micro_f1": 0.9})) == [
        f"results: logged micro_f1 0.9 but the samples give {run.results['micro_f1']:.6g}"
    ]
    close = replace(run, results={**run.results, "ran_score": 1 / 21 + 1e-10})
    assert RESCORING.run_checks(close) == []


def test_label_sources_other_than_the_judge():
    judged = _sample("s1")
    cached = _with(_sample("s2"), reference_source="cache", judge_attempts=[ATTEMPTS[1]])
    run = _run([judged, cached])
    assert RESCORING.run_checks(run) == [], "a reference read earlier in the run is checked against that reading"
    alone = _run([cached], results=run.results)
    assert RESCORING.run_checks(alone)[0] == (
        "sample s2: its reference labels come from the label cache of an earlier run, so no judge answer in this "
        "log gives them (run with -T label_cache=off)"
    )
    failed_judged = replace(judged, error="boom")
    assert RESCORING.run_checks(_run([failed_judged, cached], results=run.results))[0].startswith(
        "sample s2: its reference labels come from the label cache"
    )
    other_text = replace(judged, target="Another report.")
    assert RESCORING.run_checks(_run([other_text, cached], results=run.results))[0].startswith(
        "sample s2: its reference labels come from the label cache"
    ), "only a reading of the same reference text stands for it"
    from_file = _with(judged, candidate_source="file", judge_attempts=[ATTEMPTS[0]])
    assert RESCORING.run_checks(_run([from_file])) == []
    unknown = _with(judged, candidate_source=None)
    assert RESCORING.run_checks(_run([unknown], results=_run([judged]).results)) == [
        "sample s1: its candidate labels have no source a judge answer gives (None)"
    ]
    cached_candidate = _with(judged, candidate_source="cache")
    assert RESCORING.run_checks(_run([cached_candidate], results=_run([judged]).results)) == [
        "sample s1: its candidate labels have no source a judge answer gives ('cache')"
    ]


def test_stored_labels_stand_in_where_no_answer_gives_them():
    sample = _with(_sample(), candidate_source="file", candidate_unscored={"Edema": "grader_failed: cut"})
    labels = rs._stored(
        load_taxonomy(), replace(sample, metadata={**sample.metadata, "candidate_labels": {}}), "candidate"
    )
    assert labels.unscored["edema"] == ("grader_failed", "cut")
    assert labels.unscored["fracture"] == ("unscored", "")
    assert labels.labels["cardiomegaly"] is None and labels.source == "file"


def test_an_empty_candidate_is_not_asked_about():
    empty = _sample(attempts=ATTEMPTS[:1], candidate="")
    run = _run([empty])
    assert RESCORING.run_checks(run) == []
    sides, lines = rs._reread(run, rs._settings(run), empty)
    assert lines == [] and sides["candidate"].unscored["cardiomegaly"][0] == "no_response"


def test_labels_no_answer_gives_are_taken_as_stored():
    sample = _sample()
    dropped = _with(sample, judge_attempts=ATTEMPTS[:1])
    run = _run([dropped], results=_run([sample]).results)
    assert RESCORING.expected(run, dropped) == {"label_agreement": pytest.approx(20 / 21)}
    cached = _with(sample, reference_source="cache", judge_attempts=ATTEMPTS[1:])
    assert RESCORING.expected(_run([cached], results={}), cached) == {"label_agreement": pytest.approx(20 / 21)}
    judged = _with(_sample("s0"), candidate_source="file")
    assert RESCORING.expected(_run([judged, cached], results={}), cached) == {"label_agreement": pytest.approx(20 / 21)}


def test_the_stored_labels_mark_only_those_without_a_value_unscored():
    sample = _sample()
    stored = rs._stored(load_taxonomy(), sample, "candidate")
    assert stored.unscored == {} and stored.labels["cardiomegaly"] == 1
    partial = _with(sample, candidate_labels={**sample.metadata["candidate_labels"], "Edema": None})
    assert rs._stored(load_taxonomy(), partial, "candidate").unscored == {"edema": ("unscored", "")}


def test_a_rejected_candidate_counts_as_the_worst_value():
    rejected = _attempt("candidate", "HTTP 400: bad request", stop_reason="error")
    sample = _sample(attempts=[ATTEMPTS[0], rejected])
    assert RESCORING.expected(_run([], results={}), sample) == {"label_agreement": 0.0}
    excluded = _sample(attempts=[ATTEMPTS[0], rejected], unscored="exclude")
    run = _run([_sample("s0", unscored="exclude"), excluded], unscored="exclude")
    assert math.isnan(RESCORING.expected(run, excluded)["label_agreement"])
    assert RESCORING.run_checks(run) == [], "the corpus figures are the exclude policy's"
    assert RESCORING.breakdown(run)[BREAKDOWN_TITLE] == {column: 1.0 for column in ("Cardiomegaly",)} | {
        k: v for k, v in RESCORING.breakdown(run)[BREAKDOWN_TITLE].items() if k != "Cardiomegaly"
    }
    worst = replace(run, task_args={**run.task_args, "unscored": "worst"})
    assert any(line.startswith("results: logged") for line in RESCORING.run_checks(worst))


def test_the_tasks_defaults_are_worst_and_one_retry():
    sample = _sample()
    run = replace(_run([sample]), task_args={})
    assert RESCORING.run_checks(run) == []
    unread = _attempt("candidate", "not json")
    twice = _with(sample, judge_attempts=[ATTEMPTS[0], unread, unread, ATTEMPTS[1]])
    assert "sample s1: candidate report: 1 stored judge answer(s) are ones the task would not have asked for" in (
        RESCORING.run_checks(replace(run, samples=[twice]))
    )


def test_a_changed_taxonomy_file_is_read_again(tmp_path):
    from radiology_tasks.ran_score.taxonomy import bundled_taxonomy_path

    path = tmp_path / "taxonomy.yaml"
    text = bundled_taxonomy_path().read_text(encoding="utf-8")
    path.write_text(text)
    first = rs._taxonomy(str(path))
    assert taxonomy_digest(first) == DIGEST
    path.write_text(text.replace("Enlargement of the heart.", "An enlarged heart, any degree."))
    assert taxonomy_digest(rs._taxonomy(str(path))) != DIGEST
    assert rs._taxonomy(None) is rs._taxonomy(None), "the bundled taxonomy is parsed once"


def test_logged_figures_missing_or_at_the_tolerance():
    run = _run([_sample()])
    assert RESCORING.run_checks(replace(run, results={**run.results, "ran_score": None})) == [
        f"results: logged ran_score missing but the samples give {1 / 21:.6g}"
    ]
    assert run.results["decisions_left_out"] == 0.0
    assert RESCORING.run_checks(replace(run, results={**run.results, "decisions_left_out": 1e-9})) == []
    assert len(RESCORING.run_checks(replace(run, results={**run.results, "decisions_left_out": 2e-9}))) == 1


def test_the_corpus_score_of_samples_without_labels():
    failed = replace(_sample(), error="boom")
    assert math.isnan(RESCORING.corpus_score([failed]))


def test_an_empty_reference_is_still_asked_about():
    sample = replace(_sample(), target="")
    run = _run([sample], results={})
    assert rs._reread(run, rs._settings(run), sample)[1] == []


SIDES_ASKED = ("reference", "candidate")


def test_a_per_label_answer_never_stored_names_the_label():
    attempts = [_attempt(side, label_answer(None), label=key) for side in SIDES_ASKED for key in ASKED[1:]]
    bare = SampleEvidence(
        "s1",
        1,
        None,
        {},
        {"reference_source": "judge", "candidate_source": "judge", "judge_attempts": attempts},
        CANDIDATE,
        [],
        True,
        target=REFERENCE,
    )
    run = _run([], results={}, extraction="per_label")
    lines = rs._reread(run, rs._settings(run), bare)[1]
    assert lines == [
        f"sample s1: {side} report: the task would have asked the judge about {ASKED[0]} again, but the log stores "
        "no answer"
        for side in SIDES_ASKED
    ]


def test_the_corpus_figures_follow_the_runs_policy_for_an_unread_candidate():
    rejected = _attempt("candidate", "HTTP 400: bad request", stop_reason="error")
    excluded = _run(
        [_sample("s0", unscored="exclude"), _sample(attempts=[ATTEMPTS[0], rejected], unscored="exclude")],
        unscored="exclude",
    )
    # Left out: the corpus is the first study alone (cardiomegaly found, the effusion missed).
    assert (excluded.results["decisions_left_out"], excluded.results["decisions_filled_in"]) == (21.0, 0.0)
    assert (excluded.results["ran_score"], excluded.results["f1_cardiomegaly"]) == (pytest.approx(1 / 21), 1.0)
    worst = _run([_sample("s0"), _sample(attempts=[ATTEMPTS[0], rejected])])
    # Filled in as misses: cardiomegaly is found once and missed once, F1 = 2 / 3.
    assert (worst.results["decisions_left_out"], worst.results["decisions_filled_in"]) == (0.0, 21.0)
    assert worst.results["f1_cardiomegaly"] == pytest.approx(2 / 3)
    assert worst.results["ran_score"] == pytest.approx(2 / 3 / 21)
