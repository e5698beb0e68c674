"""The run's summary metrics, `radiology-tasks report` (recomputing every metric from a log) and the hook's line."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.core.family import add_family, family_of, remove_family
from radiology_tasks.core.metrics import (
    bootstrap_mean_interval,
    expert_agreement,
    judge_calls,
    mean_interval,
    undefined_reason,
    unscored_share,
)
from radiology_tasks.core.report_hook import report_line
from radiology_tasks.core.run_report import build_report, compute_figures
from radiology_tasks.core.run_report_output import html_page, markdown, report_command
from radiology_tasks.green_vert.tasks import vert
from tests.judge_answers import assessment, mock_output
from tests.toy_families import ToyFamily

OLD_LOGS = Path(__file__).parents[1] / "fixtures" / "old_logs"

AGREEMENT_INTERVALS = {
    f"{key}_{name}_ci_{side}"
    for key in ("vert", "green", "green_ec", "ct_finebench", "ran_score", "crimson")
    for name in ("kendall_tau", "spearman", "pearson")
    for side in ("low", "high")
}
"""Interval names whose rule changed after the old-log fixtures were written (constant resamples now count)."""


def sample(i: int, vert_score: float, expert: float | None = None, **metadata: Any) -> SampleScore:
    return SampleScore(
        score=Score(value={"vert": vert_score}, metadata={"expert_score": expert, **metadata}), sample_id=f"s{i}"
    )


def call(metric: Any, scores: list[SampleScore]) -> dict[str, float]:
    return dict(metric(scores))


def test_mean_interval_is_seeded_and_does_not_depend_on_the_order_samples_finished() -> None:
    scores = [sample(i, v) for i, v in enumerate([0.1, 0.4, 0.5, 0.9, 0.7, float("nan")])]
    first = call(mean_interval("vert"), scores)
    assert call(mean_interval("vert"), list(reversed(scores))) == first
    low, high = first["vert_ci_low"], first["vert_ci_high"]
    assert low < sum([0.1, 0.4, 0.5, 0.9, 0.7]) / 5 < high  # the NaN sample is skipped as in the mean
    assert (low, high) == bootstrap_mean_interval([0.1, 0.4, 0.5, 0.9, 0.7])  # in the order of the ids
    assert call(mean_interval("vert", seed=1), scores) != first
    assert call(mean_interval("vert"), scores[:1]) == {}  # one number has no interval
    assert call(mean_interval("vert"), [sample(i, 0.5) for i in range(3)]) == {"vert_ci_low": 0.5, "vert_ci_high": 0.5}


def test_agreement_bootstrap_does_not_depend_on_sample_order() -> None:
    scores = [sample(i, v, e) for i, (v, e) in enumerate([(0.1, 0.2), (0.5, 0.4), (0.3, 0.9), (0.8, 0.7), (0.9, 1.0)])]
    assert call(expert_agreement("vert"), scores) == call(expert_agreement("vert"), scores[::-1])


def test_brief_metrics_give_shares_and_leave_out_what_is_undefined() -> None:
    scores = [
        sample(0, 0.5, 0.2, judge_calls=1, judge_input_tokens=100, judge_output_tokens=20),
        sample(1, 0.5, 0.9, judge_calls=2, judge_input_tokens=300, judge_output_tokens=60, judge_retried=True),
        SampleScore(score=Score(value={"vert": 0.0}, metadata={"unscored": {"vert": "x"}, "filled_in": ["vert"]})),
    ]
    # A constant judge has no tau: the summary leaves it out rather than showing nan.
    assert call(expert_agreement("vert", brief=True), scores) == {}
    full = call(expert_agreement("vert"), scores)
    assert math.isnan(full["vert_kendall_tau"]) and full["vert_n_pairs"] == 2
    assert call(unscored_share("vert"), scores) == {"unscored_share": pytest.approx(1 / 3)}
    assert call(judge_calls(brief=True), scores) == {
        "judge_calls_per_sample": 1.0,
        "judge_tokens_per_sample": pytest.approx(480 / 3),
    }
    assert "retried" in call(judge_calls(), scores)
    varied = [sample(i, v, e) for i, (v, e) in enumerate([(0.1, 0.2), (0.5, 0.4), (0.3, 0.9), (0.8, 0.7)])]
    assert set(call(expert_agreement("vert", brief=True), varied)) == {
        "vert_kendall_tau",
        "vert_kendall_tau_ci_low",
        "vert_kendall_tau_ci_high",
    }


def test_undefined_statistics_get_a_reason_not_a_nan() -> None:
    constant = [sample(i, 0.5, e) for i, e in enumerate([0.1, 0.4, 0.9])]
    computed = compute_figures([expert_agreement("vert")], constant, {}, kind="secondary", scorer="j")
    figures = {f.name: f for f in computed}
    tau = figures["vert_kendall_tau"]
    assert tau.value is None and "the same vert (0.5)" in (tau.reason or "")
    assert figures["vert_n_pairs"].value == 3 and figures["vert_n_pairs"].reason is None
    lonely = [sample(0, 0.3, 0.5), sample(1, 0.7)]
    assert "only 1 sample(s)" in undefined_reason("radiology_tasks/expert_agreement", "vert_kendall_tau", lonely)
    flat_experts = [sample(i, v, 0.5) for i, v in enumerate([0.1, 0.4, 0.9])]
    assert "experts gave all 3" in undefined_reason("x/expert_agreement", "vert_spearman_ci_low", flat_experts)
    assert "4+ significant" in undefined_reason("x/error_count_bias", "bias_4+", constant)


def test_report_recomputes_an_old_log_and_says_why_a_value_is_missing(tmp_path: Path) -> None:
    report = build_report(OLD_LOGS / "vert.eval")
    assert report.task == "vert" and report.family == "green_vert" and len(report.samples) == 4
    by_name = {f.name: f for f in [*report.headline, *report.secondary]}
    # Values this version still logs equal the old log's: the same @metric functions compute them.
    assert by_name["vert_mean"].matches_log is True
    assert by_name["green_mean"].matches_log is True and by_name["parse_failure_rate"].matches_log is True
    assert by_name["vert_ci_low"].logged is None  # the interval is new
    for figure in by_name.values():
        assert (figure.value is None) == (figure.reason is not None)
    text = markdown(report)
    assert " nan" not in text.lower().replace("logged as nan", "")
    assert "| vert_mean |" in text
    page = html_page(report)
    assert page.count("<svg") >= 1 and "vert: distribution over" in page


def test_report_flags_a_logged_headline_value_the_samples_do_not_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(OLD_LOGS / "vert.eval"))
    assert log.results is not None
    log.results.scores[0].metrics["vert_mean"].value += 0.1
    # As if the current version had written it: a difference is then the log's, not a change of rules.
    log.eval.task_version = family_of("vert").version  # type: ignore[union-attr]
    edited = tmp_path / "edited.eval"
    write_eval_log(log, str(edited))
    report = build_report(edited)
    assert not report.headline_matches and not report.written_by_older_rules
    differing = [f.name for f in report.headline if f.matches_log is False]
    assert "vert_mean" in differing and set(differing) - {"vert_mean"} <= AGREEMENT_INTERVALS
    assert report_command(str(edited), str(tmp_path / "out")) == 1
    assert "SOME HEADLINE VALUES DIFFER" in capsys.readouterr().out


def test_an_older_log_whose_interval_rule_changed_is_reported_not_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The fixture was written by green/vert 1.4.0, which left resamples with a constant side out of the
    # agreement interval; 1.5.0 counts them as unknown, so the interval moves and the report says why.
    report = build_report(OLD_LOGS / "vert.eval")
    assert report.written_by_older_rules and not report.headline_matches
    assert {f.name for f in report.headline if f.matches_log is False} <= AGREEMENT_INTERVALS
    assert report_command(str(OLD_LOGS / "vert.eval"), str(tmp_path / "out")) == 0
    printed = capsys.readouterr().out
    assert f"which version {report.task_version} wrote" in printed and "DIFFER FROM THE LOG" not in printed


def test_report_command_writes_markdown_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert report_command(str(OLD_LOGS / "green.eval"), str(tmp_path / "out")) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("# Run report: green") and "green_mean" in printed
    assert (tmp_path / "out" / "report.md").read_text().startswith("# Run report: green")
    assert "<svg" in (tmp_path / "out" / "report.html").read_text()


def test_every_family_declares_its_report_metrics_for_its_old_log() -> None:
    for path in sorted(OLD_LOGS.glob("*.eval")):
        report = build_report(path)
        assert report.headline, path.name
        # Only the agreement intervals, whose rule changed after these logs were written, may differ.
        differing = {f.name for f in report.headline if f.matches_log is False}
        assert differing <= AGREEMENT_INTERVALS, (path.name, differing)
        assert family_of(report.task) is not None
        for figure in [*report.headline, *report.secondary]:
            assert (figure.value is None) == bool(figure.reason), (path.name, figure)


@pytest.mark.parametrize(
    ("log", "name", "reason"),
    [
        ("ct_finebench.eval", "type_existence_mean", "no graded question has answer type existence in these 3"),
        ("ct_finebench.eval", "ct_finebench_kendall_tau", "the same ct_finebench (0.5)"),
        ("judge_sensitivity.eval", "monotonicity", "no (reference, error type) series"),
        ("green.eval", "bias_4+", "no expert-rated report has 4+ significant error(s)"),
    ],
)
def test_families_explain_their_undefined_figures(log: str, name: str, reason: str) -> None:
    figure = next(f for f in build_report(OLD_LOGS / log).secondary if f.name == name)
    assert figure.value is None and reason in (figure.reason or "")


def test_ran_score_explains_a_label_no_report_could_be_compared_on() -> None:
    from radiology_tasks.ran_score.run_metrics import explain_undefined

    reason = explain_undefined("radiology_tasks/ran_per_label", "f1_pleural_effusion", [])
    assert reason is not None and "pleural_effusion" in reason
    assert explain_undefined("radiology_tasks/mean_of", "label_agreement_mean", []) is None


def small_vert_run(tmp_path: Path, display: str) -> Any:
    rows = [
        {
            "id": f"p{i}",
            "reference": "No effusion.",
            "candidate": f"Small effusion {i}.",
            "expert_score": i + 1,
            "expert_score_max": 5,
        }
        for i in range(4)
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("\n".join(__import__("json").dumps(r) for r in rows) + "\n")
    answers = iter([mock_output(assessment({"b": n % 3}, matched=2, score=0.2 * n)) for n in range(4)])
    judge = get_model("mockllm/model", custom_outputs=answers)
    (log,) = inspect_eval(
        vert(data=str(data)), model="none", model_roles={"grader": judge}, display=display, log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.slow
@pytest.mark.parametrize("display", ["plain", "rich"])
def test_a_run_logs_only_its_headline_and_the_hook_names_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], display: str
) -> None:
    log = small_vert_run(tmp_path, display)
    logged = [name for score in log.results.scores for name in score.metrics]
    assert logged == [
        "vert_mean",
        "vert_ci_low",
        "vert_ci_high",
        "vert_kendall_tau",
        "vert_kendall_tau_ci_low",
        "vert_kendall_tau_ci_high",
        "unscored_share",
        "judge_calls_per_sample",
        "judge_tokens_per_sample",
    ]
    out = capsys.readouterr().out
    line = report_line(log)
    assert line is not None and line.startswith("All metrics: radiology-tasks report ")
    assert out.rstrip().endswith(line)
    report = build_report(log.location)
    assert report.headline_matches and [f.name for f in report.headline] == logged
    assert {"green_mean", "vert_spearman", "retried", "parse_failure_rate"} <= {f.name for f in report.secondary}


def test_no_hook_line_for_a_family_without_report_metrics() -> None:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(OLD_LOGS / "vert.eval"), header_only=True)
    assert report_line(log) is not None
    add_family(ToyFamily("toy_no_report", ("toy_task",)))
    try:
        log.eval.task = "radiology_tasks/toy_task"
        assert report_line(log) is None
    finally:
        remove_family("toy_no_report")


def test_no_hook_line_without_a_display(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small_vert_run(tmp_path, "none")
    assert "radiology-tasks report" not in capsys.readouterr().out


def test_epochs_are_reduced_by_their_mean_and_another_reducer_is_refused(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    from radiology_tasks.core.errors import InputError

    log = read_eval_log(str(OLD_LOGS / "vert.eval"))
    assert log.samples is not None
    second = [sample.model_copy(deep=True) for sample in log.samples]
    for sample in second:
        sample.epoch = 2
        sample.scores["report_judge"].value["vert"] = 0.0  # type: ignore[index]
    first_values = [s.scores["report_judge"].value["vert"] for s in log.samples]  # type: ignore[index]
    log.samples = [*log.samples, *second]
    twice = tmp_path / "twice.eval"
    write_eval_log(log, str(twice))
    report = build_report(twice)
    assert len(report.samples) == 4
    mean = next(f for f in report.headline if f.name == "vert_mean")
    assert mean.value == pytest.approx(sum(v / 2 for v in first_values) / 4)
    log.eval.config.epochs_reducer = ["max"]
    write_eval_log(log, str(twice))
    with pytest.raises(InputError, match="reduced its epochs with max"):
        build_report(twice)


def _old_vert() -> Any:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(OLD_LOGS / "vert.eval"))


def test_a_sample_without_the_scorer_s_score_is_named() -> None:
    from radiology_tasks.core.errors import InputError
    from radiology_tasks.core.run_report import report_of

    log = _old_vert()
    first = log.samples[0]
    first.scores = {}
    with pytest.raises(InputError) as error:
        report_of(log, "runs/vert.eval")
    assert str(error.value) == (f"{log.location}: sample {first.id} (epoch {first.epoch}) has no 'report_judge' score")


def test_another_reducer_over_one_epoch_reports_and_over_two_is_refused_whole() -> None:
    from radiology_tasks.core.errors import InputError
    from radiology_tasks.core.run_report import report_of, sample_scores

    log = _old_vert()
    log.eval.config.epochs_reducer = ["max", "median"]
    single = sample_scores(log, "report_judge")  # one epoch: nothing is reduced, whatever the reducer
    assert [s.sample_id for s in single] == [s.id for s in log.samples]
    assert [s.sample_metadata for s in single] == [s.metadata for s in log.samples]
    assert [s.score.value for s in single] == [s.scores["report_judge"].value for s in log.samples]
    repeated = log.samples[0].model_copy(deep=True)
    repeated.epoch = 2
    log.samples = [*log.samples, repeated]
    with pytest.raises(InputError) as error:
        report_of(log)
    assert str(error.value) == (
        f"{log.location}: the run reduced its epochs with max, median; the report reduces them by the mean only"
    )


def test_a_log_outside_every_family_without_samples_or_unreadable_is_refused(tmp_path: Path) -> None:
    from radiology_tasks.core.errors import InputError
    from radiology_tasks.core.run_report import report_of

    log = _old_vert()
    log.eval.task = "someone_else/other_task"
    with pytest.raises(InputError) as error:
        report_of(log, "here.eval")
    assert str(error.value) == "here.eval: task someone_else/other_task belongs to no radiology-tasks family"
    log = _old_vert()
    log.samples = []
    with pytest.raises(InputError) as error:
        report_of(log, "here.eval")
    assert str(error.value) == "here.eval: the log holds no samples (was it written with --no-log-samples?)"
    broken = tmp_path / "broken.eval"
    broken.write_text("not a log")
    with pytest.raises(InputError) as error:
        build_report(broken)
    assert str(error.value).startswith(f"{broken}: not a readable Inspect log (")


def test_a_family_without_report_metrics_is_refused_by_name() -> None:
    from radiology_tasks.core.errors import InputError
    from radiology_tasks.core.run_report import report_of

    add_family(ToyFamily("plain_toy", ("plain_toy_task",)))
    try:
        log = _old_vert()
        log.eval.task = "radiology_tasks/plain_toy_task"
        with pytest.raises(InputError) as error:
            report_of(log, "toy.eval")
        assert str(error.value) == "toy.eval: the plain_toy family does not declare its report metrics"
    finally:
        remove_family("plain_toy")


def test_the_report_records_the_log_s_identity_and_what_no_metric_recomputes() -> None:
    from inspect_ai.log import EvalMetric

    from radiology_tasks.core.run_report import report_of

    log = _old_vert()
    log.results.scores[0].metrics["retired_figure"] = EvalMetric(name="retired_figure", value=0.25)
    report = report_of(log)
    assert report.log == log.location and report.task == "vert" and report.family == "green_vert"
    assert report.task_version == str(log.eval.task_version) and report.current_version == family_of("vert").version
    assert report.scorer == "report_judge" and report.task_args == dict(log.eval.task_args)
    names = {f.name for f in [*report.headline, *report.secondary]}
    logged = {name for group in log.results.scores for name in group.metrics}
    assert report.not_recomputed == {"retired_figure": 0.25} and set(report.not_recomputed) == logged - names
    # Without results (a log cut short), the scorer is the one the samples hold.
    log.results = None
    bare = report_of(log, "bare.eval")
    assert bare.scorer == "report_judge" and bare.log == "bare.eval"
    assert all(f.logged is None for f in bare.headline) and bare.not_recomputed == {}


def test_logged_metrics_keep_the_first_scorer_s_value_of_a_name() -> None:
    from inspect_ai.log import EvalMetric, EvalScore

    from radiology_tasks.core.run_report import logged_metrics

    log = _old_vert()
    first = log.results.scores[0]
    other = EvalScore(name="other", scorer="other", metrics={"vert_mean": EvalMetric(name="vert_mean", value=-5)})
    log.results.scores = [first, other]
    values = logged_metrics(log)
    assert values["vert_mean"] == first.metrics["vert_mean"].value and isinstance(values["vert_mean"], float)
    assert set(values) == set(first.metrics)


def test_figures_take_each_key_once_and_the_family_s_own_reason_first() -> None:
    from inspect_ai.scorer import metric

    from radiology_tasks.core.family import ReportMetrics

    @metric(name="toy_scalar")
    def scalar() -> Any:
        return lambda scores: float("nan")

    @metric(name="toy_pair")
    def pair() -> Any:
        return lambda scores: {"toy_scalar": 1.0, "toy_other": 2.0}

    samples = [sample(0, 1.0)]
    said = ReportMetrics([], [], explain=lambda name, key, _: f"{name} says why {key}")
    figures = compute_figures([scalar(), pair()], samples, {"toy_other": 2.0}, said, kind="headline", scorer="j")
    assert [(f.name, f.value, f.logged) for f in figures] == [("toy_scalar", None, None), ("toy_other", 2.0, 2.0)]
    assert figures[0].reason == "toy_scalar says why toy_scalar" and figures[1].reason is None
    generic = compute_figures(
        [scalar()], samples, {}, ReportMetrics([], [], explain=lambda *_: None), kind="secondary", scorer="j"
    )
    assert generic[0].reason and "says why" not in generic[0].reason
