"""Judge ensembles read from small synthetic Inspect logs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
from inspect_ai.model import ModelConfig
from inspect_ai.scorer import Score
from scipy import stats

from radiology_tasks.green_vert.ensemble import ensemble_report, format_report

NAN = math.nan


def write_log(
    path: Path,
    rows: dict[str, tuple[Any, float | None]],
    *,
    task: str = "radiology_tasks/vert",
    grader: str = "openai/judge-a",
    dataset: str | None = "rate_eval_test",
    epochs: int = 1,
) -> str:
    """Write an Inspect log whose sample `id` has score value `rows[id][0]` and expert score `rows[id][1]`.

    A float value `v` becomes ``{"vert": v, "green": v / 2}``; a dict value is used as is.
    """
    samples = [
        EvalSample(
            id=sample_id,
            epoch=epoch,
            input="x",
            target="",
            scores={
                "report_judge": Score(
                    value={"vert": value, "green": value / 2} if isinstance(value, float) else value,
                    metadata={"expert_score": expert},
                )
            },
        )
        for epoch in range(1, epochs + 1)
        for sample_id, (value, expert) in rows.items()
    ]
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created="2025-01-01T00:00:00+00:00",
            task=task,
            dataset=EvalDataset(name=dataset),
            model="none",
            model_roles={"grader": ModelConfig(model=grader)},
            config=EvalConfig(),
        ),
        samples=samples,
    )
    write_eval_log(log, str(path))
    return str(path)


def _rows(ids: list[str], judge: list[float], expert: list[float | None]) -> dict[str, tuple[Any, float | None]]:
    return {i: (j, e) for i, j, e in zip(ids, judge, expert)}


RNG = np.random.default_rng(42)
IDS = [f"s{i:02d}" for i in range(30)]
EXPERT = list(RNG.integers(0, 6, size=30) / 5)
JUDGES = [list(np.clip(np.asarray(EXPERT) + RNG.normal(0, s, 30), 0, 1)) for s in (0.2, 0.3, 0.4)]


@pytest.fixture
def three_logs(tmp_path: Path) -> list[str]:
    return [
        write_log(tmp_path / f"judge{k}.json", _rows(IDS, judge, EXPERT), grader=f"openai/judge-{k}")
        for k, judge in enumerate(JUDGES)
    ]


def test_random_split_compares_everything_on_the_held_out_samples(three_logs: list[str]) -> None:
    report = ensemble_report(three_logs, train_fraction=0.5, seed=3, n_resamples=50)
    assert report.n_train == 15 and report.n_eval == 15
    assert sorted(report.train_ids + report.eval_ids) == IDS
    row = {sample_id: k for k, sample_id in enumerate(IDS)}
    train = [row[i] for i in report.train_ids]
    held = [row[i] for i in report.eval_ids]
    x = np.column_stack(JUDGES)
    y = np.asarray(EXPERT)

    design = np.column_stack([np.ones(len(train)), x[train]])
    coefficients = np.linalg.lstsq(design, y[train], rcond=None)[0]
    assert report.intercept == pytest.approx(coefficients[0], abs=1e-10)
    assert report.weights == pytest.approx(list(coefficients[1:]), abs=1e-10)
    predicted = np.column_stack([np.ones(len(held)), x[held]]) @ coefficients
    assert report.regression.kendall_tau == pytest.approx(stats.kendalltau(predicted, y[held]).statistic, abs=1e-12)
    assert report.average.kendall_tau == pytest.approx(
        stats.kendalltau(x[held].mean(axis=1), y[held]).statistic, abs=1e-12
    )
    for k, judge in enumerate(report.judges):
        assert judge.label == f"openai/judge-{k}"
        assert judge.score_key == "vert"
        assert judge.agreement.n_pairs == 15
        assert judge.agreement.kendall_tau == pytest.approx(stats.kendalltau(x[held, k], y[held]).statistic, abs=1e-12)


def test_split_is_seeded(three_logs: list[str]) -> None:
    first = ensemble_report(three_logs, seed=5, n_resamples=20)
    again = ensemble_report(three_logs, seed=5, n_resamples=20)
    other = ensemble_report(three_logs, seed=6, n_resamples=20)
    assert first == again
    assert first.eval_ids != other.eval_ids


def test_training_logs_fit_the_regression(tmp_path: Path) -> None:
    train_ids = [f"t{i}" for i in range(6)]
    j1 = [0.1, 0.5, 0.9, 0.3, 0.7, 0.2]
    j2 = [0.4, 0.1, 0.8, 0.9, 0.3, 0.6]
    truth = [0.1 + 0.5 * a + 0.3 * b for a, b in zip(j1, j2)]
    train = [
        write_log(tmp_path / "train1.json", _rows(train_ids, j1, truth), dataset="rate_eval_train"),
        write_log(tmp_path / "train2.json", _rows(train_ids, j2, truth), dataset="rate_eval_train", grader="g2"),
    ]
    eval_ids = [f"e{i}" for i in range(8)]
    e1 = [0.2, 0.4, 0.6, 0.8, 0.1, 0.3, 0.5, 0.9]
    e2 = [0.9, 0.1, 0.5, 0.4, 0.7, 0.2, 0.8, 0.3]  # no two predictions tie
    expert = [0.2, 0.4, 0.6, 0.6, 0.0, 0.2, 0.8, 0.8]
    logs = [
        write_log(tmp_path / "eval1.json", _rows(eval_ids, e1, expert)),
        write_log(tmp_path / "eval2.json", _rows(eval_ids, e2, expert), grader="g2"),
    ]
    report = ensemble_report(logs, train_logs=train, n_resamples=20)
    assert report.intercept == pytest.approx(0.1, abs=1e-10)
    assert report.weights == pytest.approx([0.5, 0.3], abs=1e-10)
    assert report.train_ids == train_ids and report.eval_ids == eval_ids
    predicted = [0.1 + 0.5 * a + 0.3 * b for a, b in zip(e1, e2)]
    assert report.regression.kendall_tau == pytest.approx(stats.kendalltau(predicted, expert).statistic, abs=1e-12)
    assert report.judges[1].agreement.kendall_tau == pytest.approx(stats.kendalltau(e2, expert).statistic, abs=1e-12)
    assert "training logs" in report.train_source


def test_exclusions_are_counted(tmp_path: Path) -> None:
    ids = [str(i) for i in range(1, 11)]
    judge = [0.1 * i for i in range(1, 11)]
    expert = [0.1 * i for i in range(1, 11)]
    expert[3] = None  # id 4 has no expert score
    first = _rows(ids, judge, expert)
    second = _rows(ids[:9], judge[:9], expert[:9])  # id 10 missing here
    second["11"] = (0.5, 0.5)  # id 11 only here
    second["3"] = ({"vert": NAN, "green": NAN}, expert[2])  # unscored here
    logs = [write_log(tmp_path / "a.json", first), write_log(tmp_path / "b.json", second, grader="g2")]
    report = ensemble_report(logs, n_resamples=10)
    assert report.excluded == {"missing_from_some_log": 2, "unscored": 1, "no_expert_score": 1}
    assert sorted(report.train_ids + report.eval_ids) == sorted(["1", "2", "5", "6", "7", "8", "9"])
    assert "2 missing_from_some_log, 1 unscored, 1 no_expert_score" in format_report(report)


def test_score_key_choice(tmp_path: Path) -> None:
    green_rows = {i: ({"green": v, "green_ec": 1 - v}, e) for i, v, e in zip(IDS, JUDGES[0], EXPERT)}
    green_logs = [write_log(tmp_path / f"g{k}.json", green_rows, task="green", grader=f"m{k}") for k in range(2)]
    assert [j.score_key for j in ensemble_report(green_logs, n_resamples=0).judges] == ["green", "green"]
    # A task name that is no score key falls back to vert.
    other = [
        write_log(tmp_path / f"o{k}.json", _rows(IDS, JUDGES[k], EXPERT), task="mine", grader=f"m{k}") for k in range(2)
    ]
    assert ensemble_report(other, n_resamples=0).judges[0].score_key == "vert"
    chosen = ensemble_report(other, score_key="green", n_resamples=0)
    assert chosen.judges[0].score_key == "green"


def test_error_counts_flip_the_judges_but_not_the_regression(tmp_path: Path) -> None:
    rows = [{i: ({"green_ec": 5 * (1 - v)}, e) for i, v, e in zip(IDS, judge, EXPERT)} for judge in JUDGES[:2]]
    logs = [write_log(tmp_path / f"ec{k}.json", r, grader=f"m{k}") for k, r in enumerate(rows)]
    report = ensemble_report(logs, score_key="green_ec", higher_is_better=False, n_resamples=0)
    assert report.judges[0].agreement.sign == -1 and report.judges[0].agreement.kendall_tau > 0
    assert report.average.kendall_tau > 0
    assert report.regression.sign == 1 and report.regression.kendall_tau > 0


def test_same_model_twice_is_labelled_by_file(tmp_path: Path) -> None:
    logs = [write_log(tmp_path / f"run{k}.json", _rows(IDS, JUDGES[k], EXPERT)) for k in range(2)]
    labels = [j.label for j in ensemble_report(logs, n_resamples=0).judges]
    assert labels == ["openai/judge-a (run0.json)", "openai/judge-a (run1.json)"]


def test_format_report(three_logs: list[str]) -> None:
    report = ensemble_report(three_logs, seed=1, n_resamples=20)
    text = format_report(report)
    assert f"on {report.n_eval} held-out samples" in text
    assert f"regression ensemble  {report.regression.kendall_tau:>7.4f}" in text
    for judge in report.judges:
        assert judge.label in text


def test_errors(tmp_path: Path) -> None:
    rows = _rows(IDS, JUDGES[0], EXPERT)
    good = write_log(tmp_path / "good.json", rows)
    with pytest.raises(ValueError, match="at least two judge logs"):
        ensemble_report([good])
    other_data = write_log(tmp_path / "other.json", rows, dataset="radeval")
    with pytest.raises(ValueError, match="different datasets: radeval, rate_eval_test"):
        ensemble_report([good, other_data])
    disjoint = write_log(tmp_path / "disjoint.json", {f"x{i}": (0.5, 0.5) for i in range(3)})
    with pytest.raises(ValueError, match="share no sample ids"):
        ensemble_report([good, disjoint])
    no_expert = write_log(tmp_path / "noexpert.json", _rows(IDS, JUDGES[1], [None] * 30))
    with pytest.raises(ValueError, match="noexpert.json: no sample has an expert score"):
        ensemble_report([good, no_expert])
    with pytest.raises(ValueError, match="no score key among rubric"):
        ensemble_report([good, good], score_key="rubric")
    epochs = write_log(tmp_path / "epochs.json", rows, epochs=2)
    with pytest.raises(ValueError, match="appears more than once"):
        ensemble_report([good, epochs])
    changed = write_log(tmp_path / "changed.json", {**rows, "s00": (0.5, 0.123)})
    with pytest.raises(ValueError, match="sample s00 has different expert scores"):
        ensemble_report([good, changed])
    with pytest.raises(ValueError, match="needs at least 3 training samples"):
        ensemble_report([good, good], train_fraction=0.05)
    with pytest.raises(ValueError, match="training samples are also evaluation samples"):
        ensemble_report([good, good], train_logs=[good, good])
    with pytest.raises(ValueError, match="one training log per judge"):
        ensemble_report([good, good], train_logs=[good])


@pytest.mark.parametrize("seed", [0, 4])
def test_seed_draws_the_split_and_the_bootstrap(three_logs: list[str], seed: int) -> None:
    from radiology_tasks.core.agreement import correlate

    report = ensemble_report(three_logs, train_fraction=0.4, seed=seed, n_resamples=60)
    # The documented split: numpy.random.default_rng(seed).permutation of the shared samples, sorted by id;
    # the first round(0.4 * 30) = 12 go to the fit.
    order = np.random.default_rng(seed).permutation(30)
    assert report.train_ids == [IDS[i] for i in order[:12]]
    assert report.eval_ids == [IDS[i] for i in order[12:]]
    held = [IDS.index(i) for i in report.eval_ids]
    expected = correlate([JUDGES[1][i] for i in held], [EXPERT[i] for i in held], n_resamples=60, seed=seed)
    assert report.judges[1].agreement == expected


def test_training_logs_are_used_instead_of_a_split(tmp_path: Path, three_logs: list[str]) -> None:
    train_ids = [f"t{i}" for i in range(8)]
    rng = np.random.default_rng(7)
    truth = list(rng.uniform(0, 1, 8))
    train = [
        write_log(
            tmp_path / f"train{k}.json",
            _rows(train_ids, list(rng.uniform(0, 1, 8)), truth),
            dataset="rate_eval_train",
            grader=f"openai/judge-{k}",
        )
        for k in range(3)
    ]
    report = ensemble_report(three_logs, train_logs=train, train_fraction=0.5, seed=3, n_resamples=20)
    assert report.train_ids == train_ids
    assert report.eval_ids == IDS
    assert report.excluded_train == {"missing_from_some_log": 0, "unscored": 0, "no_expert_score": 0}


# --- undefined statistics: a reason in place of every NaN --------------------------------------------


def test_a_judge_with_one_score_for_everything_is_explained(tmp_path: Path) -> None:
    constant = [1.0] * 30
    logs = [
        write_log(tmp_path / "good.json", _rows(IDS, JUDGES[0], EXPERT), grader="openai/judge-0"),
        write_log(tmp_path / "flat.json", _rows(IDS, constant, EXPERT), grader="llama-cpp/smollm2-135m"),
    ]
    report = ensemble_report(logs, seed=0, n_resamples=50)
    assert math.isnan(report.judges[1].agreement.kendall_tau)
    reason = (
        "llama-cpp/smollm2-135m's vert is 1 on all 15 held-out samples with both values: a constant has no correlation"
    )
    assert report.undefined == {"llama-cpp/smollm2-135m": reason}
    text = format_report(report)
    assert f"llama-cpp/smollm2-135m        -  undefined: {reason}\n" in text
    assert "nan" not in text.lower()
    # The working judge keeps its number and interval.
    low, high = report.judges[0].agreement.kendall_tau_ci
    (line,) = [line for line in text.splitlines() if line.startswith("openai/judge-0 ")]
    assert line.split() == [
        "openai/judge-0",
        f"{report.judges[0].agreement.kendall_tau:.4f}",
        f"[{low:.4f},",
        f"{high:.4f}]",
    ]


def test_constant_expert_scores_and_predictions_are_explained(tmp_path: Path) -> None:
    flat = [write_log(tmp_path / f"flat{k}.json", _rows(IDS, [0.5] * 30, EXPERT), grader=f"m{k}") for k in range(2)]
    report = ensemble_report(flat, seed=0, n_resamples=20)
    assert report.undefined == {
        "m0": "m0's vert is 0.5 on all 15 held-out samples with both values: a constant has no correlation",
        "m1": "m1's vert is 0.5 on all 15 held-out samples with both values: a constant has no correlation",
        "average ensemble": "the judges' average is 0.5 on all 15 held-out samples with both values: "
        "a constant has no correlation",
        "regression ensemble": f"the regression's prediction is {report.intercept + 0.5 * sum(report.weights):g} "
        "on all 15 held-out samples with both values: a constant has no correlation",
    }
    same_rating = [
        write_log(tmp_path / f"rated{k}.json", _rows(IDS, JUDGES[k], [0.6] * 30), grader=f"m{k}") for k in range(2)
    ]
    report = ensemble_report(same_rating, seed=0, n_resamples=20)
    expected = "the expert score is 0.6 on all 15 held-out samples with both values: a constant has no correlation"
    assert set(report.undefined.values()) == {expected} and len(report.undefined) == 4
    text = format_report(report)
    assert text.count(f"undefined: {expected}") == 4 and "nan" not in text.lower()


def test_a_missing_interval_is_explained(tmp_path: Path, three_logs: list[str]) -> None:
    report = ensemble_report(three_logs, seed=0, n_resamples=0)
    assert set(report.undefined.values()) == {"no bootstrap resamples were drawn (resamples = 0)"}
    text = format_report(report)
    tau = report.judges[0].agreement.kendall_tau
    assert (
        f"{'openai/judge-0':<19}  {tau:>7.4f}  no interval: no bootstrap resamples were drawn (resamples = 0)" in text
    )
    assert "nan" not in text.lower()


def test_the_command_prints_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from radiology_tasks.cli import main

    logs = [
        write_log(tmp_path / "good.json", _rows(IDS, JUDGES[0], EXPERT), grader="openai/judge-0"),
        write_log(tmp_path / "flat.json", _rows(IDS, [0.0] * 30, EXPERT), grader="llama-cpp/smollm2-135m"),
    ]
    assert main(["ensemble", *logs, "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "llama-cpp/smollm2-135m        -  undefined: llama-cpp/smollm2-135m's vert is 0 on all 15" in out
    assert "nan" not in out.lower()


def test_weights_a_constant_or_duplicate_judge_leaves_open_are_said_to_be_one_fit_among_many(tmp_path: Path) -> None:
    good = write_log(tmp_path / "good.json", _rows(IDS, JUDGES[0], EXPERT), grader="m0")
    flat = write_log(tmp_path / "flat.json", _rows(IDS, [0.5] * 30, EXPERT), grader="m1")
    report = ensemble_report([good, flat], n_resamples=0)
    assert report.weights_not_unique == "m1 gave every training sample the same score"
    assert "\nthese weights are one fit among many: m1 gave every training sample the same score\n" in format_report(
        report
    )
    twice = write_log(tmp_path / "twice.json", _rows(IDS, JUDGES[0], EXPERT), grader="m2")
    report = ensemble_report([good, twice], n_resamples=0)
    assert (
        report.weights_not_unique == "the judges' scores on the training samples are linear combinations of each other"
    )
    # Distinct judges pin the weights down, and nothing is said.
    other = write_log(tmp_path / "other.json", _rows(IDS, JUDGES[1], EXPERT), grader="m3")
    report = ensemble_report([good, other], n_resamples=0)
    assert report.weights_not_unique is None and "one fit among many" not in format_report(report)
