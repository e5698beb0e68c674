"""Judges ranked against every expert truth the data carries: ReXVal's error counts, RadPref's preferences.

The runs are built in memory over data files written in the public layouts; the leaderboard reads what the experts
said from those files, so a log that records other annotations is refused and ranked on the data's all the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from radiology_tasks.core.agreement import Preferences
from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.metrics import expert_metadata
from radiology_tasks.core.orientation import LOWER_IS_BETTER, Orientation
from radiology_tasks.leaderboard.board import Settings, Submission, expert_points
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.experts import expert_violations
from radiology_tasks.leaderboard.judges import (
    CONSTANT,
    NO_POINTS,
    PREFERENCE,
    PREFERENCE_LABEL,
    PREFERENCE_NOTE,
    TAU,
    TRUTH_LABELS,
    judge_boards,
)
from radiology_tasks.leaderboard.redact import HASH_ONLY_UNCHECKED_DATA
from radiology_tasks.leaderboard.rescore import rescoring_violations
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
from radiology_tasks.scorers.leaderboard.agreement import preference_interval, tau_difference_test
from tests.leaderboard.memory_runs import memory_run, sample
from tests.real_layouts import REXVAL_CANDIDATES, rexval_copy
from tests.toy_families import ToyFamily

SETTINGS = Settings(confidence=0.9, resamples=200, seed=3)
Key = tuple[int, str, int, int, bool]


class _Judge(Rescoring):
    """A toy judge task ranked on `key` and compared with the experts on it."""

    def __init__(self, key: str) -> None:
        self.key = key

    def ranked(self, run: RunEvidence) -> RankedScore:
        return RankedScore(self.key)

    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        return {}

    def agreement_key(self, run: RunEvidence) -> str:
        return self.key


@pytest.fixture(autouse=True)
def toy_families() -> Iterator[None]:
    add_family(ToyFamily("toy_truth", ("toy_truth",), rules={"toy_truth": _Judge("vert")}))
    add_family(
        ToyFamily(
            "toy_count", ("toy_count",), rules={"toy_count": _Judge("count")}, orientations={"count": LOWER_IS_BETTER}
        )
    )
    coarse = {"grade": Orientation(tie_tolerance=0.05)}
    add_family(ToyFamily("toy_grade", ("toy_grade",), rules={"toy_grade": _Judge("grade")}, orientations=coarse))
    yield
    for name in ("toy_truth", "toy_count", "toy_grade"):
        remove_family(name)


def _errors() -> dict[Key, int]:
    """ReXVal errors with tied means: raters who split one total differently (as in test_rexval_agreement)."""
    errors: dict[Key, int] = {}
    errors |= {(1, "bertscore", 1, rater, True): 1 for rater in range(4)}
    errors |= {(1, "bertscore", 2, rater, True): 1 for rater in range(6)}
    errors |= {(1, "s_emb", 1, rater, True): 1 for rater in range(5)}
    errors |= {(1, "s_emb", 2, rater, True): 1 for rater in range(5)}
    errors |= {(1, "s_emb", 4, rater, False): 1 for rater in range(2)}
    errors |= {(1, "bleu", 1, rater, True): 2 for rater in range(6)}
    errors |= {(1, "radgraph", 3, rater, True): 1 for rater in range(6)}
    errors |= {(1, "radgraph", 5, rater, False): 1 for rater in range(6)}
    errors |= {(0, "s_emb", 3, 2, True): 1, (0, "bleu", 6, 0, False): 3, (0, "radgraph", 2, 4, True): 1}
    return errors


IDS = [f"{study}-{candidate}" for study in (0, 1) for candidate in REXVAL_CANDIDATES]


def _mean_totals(errors: dict[Key, int], *, significant_only: bool) -> dict[str, Fraction]:
    totals = dict.fromkeys(IDS, Fraction(0))
    for (study, candidate, _, _, significant), count in errors.items():
        if significant or not significant_only:
            totals[f"{study}-{candidate}"] += Fraction(count, 6)
    return totals


@pytest.fixture
def rexval(tmp_path: Path) -> Path:
    return rexval_copy(tmp_path / "ReXVal", _errors())


def _logged(data: Path) -> dict[str, dict[str, Any]]:
    """What an honest scorer records about the experts for each pair of `data`."""
    return {pair.id: expert_metadata(pair) for pair in load_pairs(str(data)).pairs}


def _submission(
    data: Path,
    judge: str,
    scores: dict[str, float | None],
    *,
    task: str = "toy_truth",
    key: str = "vert",
    **changes: Any,
) -> Submission:
    """A judges-track run of `task` whose judge gave each sample its score under `key`, logging the data's experts."""
    experts = _logged(data)
    samples = [
        replace(
            sample(sample_id, values={key: value}, **experts[sample_id]),
            judge_calls=[JudgeCall(judge, 0.0, None, "")],
        )
        for sample_id, value in scores.items()
    ]
    run = memory_run(data, samples, task=f"radiology_tasks/{task}", judge=judge, sha256=judge[-1] * 64, **changes)
    return Submission({"name": judge}, "judges", data.parent / "logs" / f"{judge[-1]}.eval", run)


CLOSE = [0.95, 0.7, 0.8, 0.6, 0.5, 0.4, 0.45, 0.2]
NOISY = [0.3, 0.9, 0.1, 0.6, 0.8, 0.2, 0.7, 0.4]


def test_rexval_judges_are_ranked_against_significant_and_total_errors(rexval, tmp_path):
    close = _submission(rexval, "openai/a", dict(zip(IDS, CLOSE, strict=True)))
    noisy = _submission(rexval, "openai/b", dict(zip(IDS, NOISY, strict=True)))
    boards, not_ranked = judge_boards([noisy, close], tmp_path / "site", SETTINGS)
    assert not_ranked == []
    assert [(b["id"], b["truth"]) for b in boards] == [
        ("judges-toy_truth-vert-rexval-significant_errors", "significant_errors"),
        ("judges-toy_truth-vert-rexval-total_errors", "total_errors"),
    ], "ReXVal has no expert score: no board against one"
    for board, significant_only in zip(boards, (True, False), strict=True):
        means = _mean_totals(_errors(), significant_only=significant_only)
        assert len(set(means.values())) < len(IDS), "the copy holds tied means"
        truth = [-float(means[i]) for i in IDS]  # fewer errors is better
        expected = {
            j: stats.kendalltau(scores, truth, variant="b").statistic for j, scores in (("a", CLOSE), ("b", NOISY))
        }
        assert expected["a"] > expected["b"]
        assert [e["system"] for e in board["entries"]] == ["openai/a", "openai/b"]
        for entry in board["entries"]:
            assert entry["score"] == pytest.approx(expected[entry["system"][-1]], abs=1e-12)
            assert entry["measures"][TAU]["value"] == entry["score"] and entry["n"] == 8
            assert entry["ci_low"] <= entry["score"] <= entry["ci_high"]
        assert board["statistic"] == TRUTH_LABELS[board["truth"]] and board["measures"] == [TAU]
        assert "the fewer errors, the better the candidate" in board["note"] and PREFERENCE_NOTE not in board["note"]
        (test,) = board["significance"]["tests"]
        ordered = sorted(range(8), key=lambda i: IDS[i])  # the board pairs samples in id order
        paired = tau_difference_test(
            [(truth[i], CLOSE[i]) for i in ordered], [(truth[i], NOISY[i]) for i in ordered], resamples=200, seed=3
        )
        assert (test["difference"], test["paired_bootstrap_p"], test["n"]) == (paired.difference, paired.bootstrap_p, 8)
    assert "clinically significant errors per candidate" in boards[0]["note"]
    assert "errors of any significance per candidate" in boards[1]["note"]


def test_a_lower_is_better_score_is_negated_so_agreement_is_positive(rexval, tmp_path):
    # A judge that counts exactly the radiologists' significant errors agrees perfectly with them.
    counts = {i: 6 * float(m) for i, m in _mean_totals(_errors(), significant_only=True).items()}
    run = _submission(rexval, "openai/c", counts, task="toy_count", key="count")
    boards, _ = judge_boards([run], tmp_path, SETTINGS)
    assert boards[0]["truth"] == "significant_errors" and boards[0]["entries"][0]["score"] == pytest.approx(1.0)


def test_a_truth_a_judge_cannot_be_ranked_on_is_named_and_the_others_still_ranked(rexval, tmp_path):
    # Two samples scored: 10/6 significant errors each, 0 and 2/6 insignificant ones (the second is worse).
    scores: dict[str, float | None] = dict.fromkeys(IDS)
    scores["1-bertscore"], scores["1-s_emb"] = 0.8, 0.3
    (board,), (row,) = judge_boards([_submission(rexval, "openai/d", scores)], tmp_path, SETTINGS)
    assert row["reasons"] == [CONSTANT["significant_errors"]]
    assert (board["truth"], board["entries"][0]["score"], board["entries"][0]["n"]) == ("total_errors", 1.0, 2)


RADPREF = {
    # study: (mean rating of candidate a, of candidate b) over three raters on 1-5
    "r1": (Fraction(13, 3), Fraction(7, 3)),
    "r2": (Fraction(2), Fraction(4)),
    "r3": (Fraction(3), Fraction(3)),  # equal means: no preference
    "r4": (Fraction(5), Fraction(1)),
    "r5": (Fraction(11, 3), Fraction(10, 3)),
    "r6": (Fraction(1), Fraction(2)),
}


def _radpref(folder: Path, name: str = "radpref.jsonl") -> Path:
    """Six studies of two candidates rated 1-5 by three radiologists, as a flat file keyed by `study_id`."""
    path = folder / name
    rows = [
        {
            "id": f"{study}-{side}",
            "study_id": study,
            "reference": f"Reference of {study}.",
            "candidate": f"Candidate {side} of {study}.",
            "expert_score": float(mean),
            "expert_score_min": 1,
            "expert_score_max": 5,
            "expert_raters": 3,
        }
        for study, means in RADPREF.items()
        for side, mean in zip("ab", means, strict=True)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _by_study(pairs: dict[str, tuple[float, float]]) -> dict[str, float]:
    return {f"{study}-{side}": score for study, both in pairs.items() for side, score in zip("ab", both, strict=True)}


# Against the radiologists' preferences: right on r1, r2 and r6, wrong on r4, tied on r5 (r3 has none).
RIGHT = _by_study(
    {"r1": (0.9, 0.2), "r2": (0.3, 0.8), "r3": (0.5, 0.6), "r4": (0.4, 0.7), "r5": (0.6, 0.6), "r6": (0.1, 0.5)}
)
# Right on r4 only, wrong on r1, r2 and r5, tied on r6.
WRONG = _by_study(
    {"r1": (0.2, 0.9), "r2": (0.8, 0.3), "r3": (0.5, 0.5), "r4": (0.9, 0.1), "r5": (0.5, 0.7), "r6": (0.5, 0.5)}
)
# Every pair tied, the studies apart.
TIED = _by_study({f"r{i}": (i / 10, i / 10) for i in range(1, 7)})


def test_radpref_shows_preference_accuracy_beside_tau_with_ties_apart(tmp_path):
    data = _radpref(tmp_path)
    runs = [_submission(data, f"openai/{n}", s) for n, s in (("w", WRONG), ("t", TIED), ("r", RIGHT))]
    (board,), not_ranked = judge_boards(runs, tmp_path / "site", SETTINGS)
    assert not_ranked == [] and board["truth"] == "score" and board["id"] == f"judges-toy_truth-vert-{data}"
    assert board["measures"] == [TAU, PREFERENCE]
    assert board["measure_labels"][PREFERENCE] == PREFERENCE_LABEL
    assert board["measure_units"] == {TAU: "samples", PREFERENCE: "pairs"}
    assert board["note"].endswith(PREFERENCE_NOTE)
    experts = [float((m - 1) / 4) for means in RADPREF.values() for m in means]
    entries = {e["system"]: e for e in board["entries"]}
    for name, scores in (("w", WRONG), ("t", TIED), ("r", RIGHT)):
        tau = stats.kendalltau(experts, list(scores.values()), variant="b").statistic
        assert entries[f"openai/{name}"]["score"] == pytest.approx(tau, abs=1e-12)
    # Ranked by tau, not by accuracy.
    assert [e["system"] for e in board["entries"]] == sorted(entries, key=lambda s: -entries[s]["score"])
    # Studies with a preference, in id order: r1, r2, r4, r5, r6 (right, wrong, ties per study).
    right = [Preferences(1, 1, 0, 0, 1.0), Preferences(1, 1, 0, 0, 1.0), Preferences(1, 0, 1, 0, 0.0)]
    right += [Preferences(1, 0, 0, 1, float("nan")), Preferences(1, 1, 0, 0, 1.0)]
    interval = preference_interval(right, confidence=0.9, resamples=200, seed=3)
    assert entries["openai/r"]["measures"][PREFERENCE] == {
        "value": 0.75,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "n": 5,
        "right": 3,
        "wrong": 1,
        "ties": 1,
    }
    assert interval.low < 0.75 < interval.high == 1.0
    assert entries["openai/w"]["measures"][PREFERENCE] | {"ci_low": 0, "ci_high": 0} == {
        "value": 0.25,
        "ci_low": 0,
        "ci_high": 0,
        "n": 5,
        "right": 1,
        "wrong": 3,
        "ties": 1,
    }
    assert entries["openai/t"]["measures"][PREFERENCE] is None
    assert entries["openai/t"]["empty"] == {
        PREFERENCE: "no value: the judge's vert ties all 5 pairs the experts rated differently"
    }
    # The preference is not a paired test's statistic: tau's tests only.
    assert {t["n"] for t in board["significance"]["tests"]} == {12}


def test_a_preference_interval_counts_undefined_resamples_at_the_bounds():
    studies = [Preferences(1, 1, 0, 0, 1.0), Preferences(1, 0, 1, 0, 0.0), Preferences(2, 0, 0, 2, float("nan"))]
    interval = preference_interval(studies, confidence=0.8, resamples=500, seed=7)
    assert (interval.accuracy, interval.pairs, interval.right, interval.wrong, interval.ties) == (0.5, 4, 1, 1, 2)
    assert interval.studies == 3
    rows = np.random.default_rng(7).integers(0, 3, size=(500, 3))
    right, wrong = np.array([1, 0, 0])[rows].sum(axis=1), np.array([0, 1, 0])[rows].sum(axis=1)
    decided = right + wrong
    undefined = decided == 0
    assert 0 < undefined.sum() < 500, "the example must hold both kinds of resample"
    shares = np.where(undefined, 0.0, right / np.where(undefined, 1, decided))
    low = np.percentile(np.where(undefined, 0.0, shares), 10)
    high = np.percentile(np.where(undefined, 1.0, shares), 90)
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))
    one = preference_interval([Preferences(3, 2, 1, 0, 2 / 3)])
    assert (one.accuracy, one.low, one.high) == (pytest.approx(2 / 3), pytest.approx(2 / 3), pytest.approx(2 / 3))
    with pytest.raises(ValueError, match="no pair is ordered"):
        preference_interval([Preferences(1, 0, 0, 1, float("nan"))])


def _vert_run(data: Path, forge: dict[str, dict[str, Any]] | None = None, drop: str | None = None) -> RunEvidence:
    """A clean vert run (the real family's re-scoring) over `data`, each sample logging the data's experts,
    with `forge` (sample id -> fields) written over them and the field `drop` left out of every sample."""
    experts = _logged(data)
    samples = []
    for sample_id, fields in experts.items():
        logged = {**fields, **(forge or {}).get(sample_id, {})}
        logged.pop(drop, None)
        samples.append(sample(sample_id, **logged))
    return memory_run(data, samples)


def test_logged_expert_annotations_are_checked_against_the_data(rexval, tmp_path):
    assert rescoring_violations(_vert_run(rexval)) == []
    honest = _logged(rexval)["1-bleu"]["expert_significant"]
    forged = {"1-bleu": {"expert_significant": {**honest, "a": 0.0}}}
    assert rescoring_violations(_vert_run(rexval, forged)) == [
        'sample 1-bleu: logged expert_significant {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0, "f": 0.0} is not '
        'the data\'s {"a": 2.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0, "f": 0.0}'
    ]
    radpref = _radpref(tmp_path)
    lines = rescoring_violations(_vert_run(radpref, {"r4-b": {"expert_score": 1.0}, "r1-a": {"expert_group": "x"}}))
    assert lines == [
        'sample r1-a: logged expert_group "x" is not the data\'s "' + _logged(radpref)["r1-a"]["expert_group"] + '"',
        "sample r4-b: logged expert_score 1.0 is not the data's 0.0",
    ]
    # A log written before a field existed is read without it: the board takes that field from the data.
    assert expert_violations(_vert_run(radpref, drop="expert_group")) == []
    # Candidates the experts did not rate have no annotation to log.
    unrated = replace(_vert_run(radpref), task_args={**_vert_run(radpref).task_args, "generate": True})
    logged = _logged(radpref)["r1-a"]["expert_score"]
    assert expert_violations(unrated)[0] == f"sample r1-a: logged expert_score {logged} is not the data's none"


def test_the_board_reads_the_experts_from_the_data_whatever_the_log_says(tmp_path):
    data = _radpref(tmp_path)
    honest = _submission(data, "openai/h", RIGHT)
    (board,), _ = judge_boards([honest], tmp_path, SETTINGS)
    # Experts raised where the judge scored high would raise its tau; the data's annotation is ranked instead.
    flattering = {sample_id: {"expert_score": RIGHT[sample_id]} for sample_id in RIGHT}
    run = honest.run
    forged = replace(
        honest,
        run=replace(run, samples=[replace(s, metadata={**s.metadata, **flattering[s.id]}) for s in run.samples]),
    )
    (again,), _ = judge_boards([forged], tmp_path, SETTINGS)
    assert again["entries"][0]["measures"] == board["entries"][0]["measures"]
    assert again["entries"][0]["checks"] == "judge answers re-read"


def test_a_redacted_run_whose_data_is_absent_is_ranked_on_its_logged_experts_and_says_so(tmp_path):
    data = _radpref(tmp_path)
    submission = _submission(data, "openai/h", RIGHT)
    absent = tmp_path / "elsewhere" / "radpref.jsonl"
    run = submission.run
    redacted = replace(
        run,
        task_args={**run.task_args, "data": str(absent)},
        metadata={**run.metadata, "redaction": {"reason": "credentialed"}},
    )
    (board,), not_ranked = judge_boards([replace(submission, run=redacted)], tmp_path, SETTINGS)
    assert not_ranked == []
    (entry,) = board["entries"]
    assert entry["checks"] == HASH_ONLY_UNCHECKED_DATA
    experts = [float((m - 1) / 4) for means in RADPREF.values() for m in means]
    assert entry["score"] == pytest.approx(stats.kendalltau(experts, list(RIGHT.values())).statistic, abs=1e-12)
    assert entry["measures"][PREFERENCE]["value"] == 0.75
    assert expert_violations(redacted) == [], "nothing to check the log against"


def test_runs_on_other_data_never_share_a_board(rexval, tmp_path):
    other = rexval_copy(tmp_path / "other" / "ReXVal", {**_errors(), (0, "bleu", 1, 1, True): 4})
    radpref = _radpref(tmp_path)
    runs = [
        _submission(rexval, "openai/a", dict(zip(IDS, CLOSE, strict=True))),
        _submission(rexval, "openai/b", dict(zip(IDS, NOISY, strict=True))),
        _submission(other, "openai/c", dict(zip(IDS, NOISY, strict=True))),
        _submission(radpref, "openai/r", RIGHT),
    ]
    boards, not_ranked = judge_boards(runs, tmp_path / "site", SETTINGS)
    members = {b["id"]: [e["system"] for e in b["entries"]] for b in boards}
    assert members == {
        "judges-toy_truth-vert-rexval-significant_errors": ["openai/a", "openai/b"],
        "judges-toy_truth-vert-rexval-total_errors": ["openai/a", "openai/b"],
        f"judges-toy_truth-vert-{radpref}": ["openai/r"],
    }
    (row,) = not_ranked  # listed once, though left out of both ReXVal boards
    assert row["system"] == "openai/c" and row["reasons"][0].startswith("not comparable: data revision differs")


def test_a_judge_without_a_scored_pair_of_one_study_has_no_preference_accuracy_and_says_why(rexval, tmp_path):
    data = _radpref(tmp_path)
    halves = {sample_id: score if sample_id.endswith("-a") else None for sample_id, score in RIGHT.items()}
    (board,), not_ranked = judge_boards([_submission(data, "openai/h", halves)], tmp_path, SETTINGS)
    (entry,) = board["entries"]
    assert not_ranked == [] and entry["n"] == 6 and entry["measures"][PREFERENCE] is None
    assert entry["empty"] == {
        PREFERENCE: "no value: no two candidates of one study that the experts rated differently were both scored"
    }
    _, (row,) = judge_boards([_submission(rexval, "openai/u", dict.fromkeys(IDS))], tmp_path, SETTINGS)
    assert row["reasons"] == [NO_POINTS["significant_errors"], NO_POINTS["total_errors"]]


def test_logged_annotations_are_compared_field_by_field_up_to_rounding(tmp_path):
    data = _radpref(tmp_path)
    honest = _logged(data)
    score = honest["r2-a"]["expert_score"]
    forged = {
        "r1-a": {"expert_score": honest["r1-a"]["expert_score"] + 1e-12},  # a float's rounding: the same
        "r2-a": {"expert_score": score + 1e-6},
        "r3-a": {"expert_raters": True},  # the data says 3; a boolean is not a count
        "r4-a": {"expert_raters": 3.0},  # a whole float is the count
        "r5-a": {"expert_score": str(honest["r5-a"]["expert_score"])},
    }
    assert expert_violations(_vert_run(data, forged)) == [
        f"sample r2-a: logged expert_score {score + 1e-6} is not the data's {score}",
        "sample r3-a: logged expert_raters true is not the data's 3",
        f'sample r5-a: logged expert_score "{honest["r5-a"]["expert_score"]}" is not the data\'s '
        f"{honest['r5-a']['expert_score']}",
    ]


def test_counts_are_compared_key_by_key_and_shown_sorted(rexval):
    honest = _logged(rexval)["0-bleu"]["expert_insignificant"]
    reordered = dict(reversed(list(honest.items())))
    assert expert_violations(_vert_run(rexval, {"0-bleu": {"expert_insignificant": reordered}})) == []
    extra = {"0-bleu": {"expert_insignificant": {**reordered, "g": 0.0}}}
    shown = '{"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0, "f": 0.5}'
    assert expert_violations(_vert_run(rexval, extra)) == [
        f'sample 0-bleu: logged expert_insignificant {shown[:-1]}, "g": 0.0}} is not the data\'s {shown}'
    ]
    scalar = {"0-bleu": {"expert_insignificant": 0.5}}
    assert expert_violations(_vert_run(rexval, scalar)) == [
        f"sample 0-bleu: logged expert_insignificant 0.5 is not the data's {shown}"
    ]


def test_a_sample_that_failed_or_data_that_changed_since_the_run_is_not_compared(rexval):
    run = _vert_run(rexval, {"0-radgraph": {"expert_raters": 5}, "1-bleu": {"expert_raters": 5}})
    failed = replace(run, samples=[replace(s, error="boom") if s.id == "0-radgraph" else s for s in run.samples])
    assert expert_violations(failed) == ["sample 1-bleu: logged expert_raters 5 is not the data's 6"]
    grid = rexval / "6_valid_raters_per_rater_error_categories.csv"
    grid.write_text(grid.read_text().replace(",1\n", ",2\n", 1))
    assert expert_violations(run) == [], "the data check names the change, not every field it moves"


def test_a_judge_score_over_epochs_is_their_mean(tmp_path):
    data = _radpref(tmp_path)
    submission = _submission(data, "openai/e", RIGHT)
    run = submission.run
    again = [replace(s, epoch=2, values={"vert": 1.0 - s.values["vert"]}) for s in run.samples if s.id == "r1-a"]
    filled = [replace(s, epoch=3, values={"vert": 0.0}, metadata={**s.metadata, "filled_in": ["vert"]}) for s in again]
    (board,), _ = judge_boards(
        [replace(submission, run=replace(run, samples=[*run.samples, *again, *filled]))], tmp_path, SETTINGS
    )
    scores = {**RIGHT, "r1-a": (0.9 + 0.1) / 2}  # the filled-in epoch is not the judge's
    experts = [float((m - 1) / 4) for means in RADPREF.values() for m in means]
    tau = stats.kendalltau(experts, list(scores.values())).statistic
    assert board["entries"][0]["score"] == pytest.approx(tau, abs=1e-12) and board["entries"][0]["n"] == 12


def test_a_score_s_declared_tie_tolerance_makes_close_scores_a_tie_and_its_plot_shows_scores_as_given(tmp_path):
    data = _radpref(tmp_path)
    # r1's candidates 0.03 apart: within grade's tolerance of 0.05, so a tie, not a right preference.
    grades = {**RIGHT, "r1-a": 0.23}
    (board,), _ = judge_boards(
        [_submission(data, "openai/g", grades, task="toy_grade", key="grade")], tmp_path, SETTINGS
    )
    figure = board["entries"][0]["measures"][PREFERENCE]
    assert (figure["right"], figure["wrong"], figure["ties"], figure["value"]) == (2, 1, 2, 2 / 3)
    # The systems' scatter plot shows a lower-is-better count as the judge gave it, not negated.
    counts = _submission(data, "openai/c", {i: 10 * v for i, v in RIGHT.items()}, task="toy_count", key="count")
    points = expert_points(counts.run)
    assert [judge for _, judge in points] == pytest.approx([10 * v for v in RIGHT.values()])
    assert [expert for expert, _ in points] == pytest.approx([(m - 1) / 4 for ms in RADPREF.values() for m in ms])
