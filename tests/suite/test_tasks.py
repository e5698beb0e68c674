"""The baselines and metric_suite tasks end to end, offline; -T baselines on a judge task; suite-report."""

from __future__ import annotations

import math
import sys

import pytest
from inspect_ai import eval as inspect_eval
from sacrebleu.metrics import BLEU
from scipy import stats

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.cli import main
from radiology_tasks.core.errors import InputError
from radiology_tasks.green_vert.tasks import vert
from radiology_tasks.scorers.lexical import lexical_scores
from radiology_tasks.suite.report import read_suite, suite_report_command, suite_tables
from radiology_tasks.suite.tasks import metric_suite
from tests.conftest import GOOD_ROWS, write_jsonl
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub
from tests.report_values import assert_summary_only, report_values


def run_offline(task, tmp_path):
    (log,) = inspect_eval(task, model="none", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory):
    """The README's command: BLEU and ROUGE-L on the bundled demo, no model, demo pos/neg rows paired by id."""
    return run_offline(metric_suite(metrics="bleu,rouge_l", sensitivity="ids"), tmp_path_factory.mktemp("demo"))


def per_sample(log, key, scorer="suite_scorer"):
    return {str(s.id): s.scores[scorer].value[key] for s in log.samples}


def test_demo_suite_scores_every_sample_with_sacrebleu_and_rouge(demo_log):
    assert len(demo_log.samples) == 41
    for sample in demo_log.samples:
        value = sample.scores["suite_scorer"].value
        expected, _ = lexical_scores(sample.target, sample.output.completion, list(value))
        assert value == pytest.approx(expected)
        assert set(value) == {"bleu_1", "bleu_2", "bleu_3", "bleu_4", "rouge_l"}


def test_demo_suite_metrics_are_scipy_on_the_logged_scores(demo_log):
    # The log keeps the first key's summary; the report recomputes the rest from the log alone.
    assert_summary_only(demo_log, {"bleu_2_vs_rouge_l_kendall", "rouge_l_kendall_tau", "corpus_bleu_2"})
    metrics = report_values(demo_log)
    bleu_2, rouge_l = per_sample(demo_log, "bleu_2"), per_sample(demo_log, "rouge_l")
    ids = list(bleu_2)
    xs, ys = [bleu_2[i] for i in ids], [rouge_l[i] for i in ids]
    assert metrics["bleu_2_vs_rouge_l_kendall"] == pytest.approx(stats.kendalltau(xs, ys).statistic)
    assert metrics["bleu_2_vs_rouge_l_pearson"] == pytest.approx(stats.pearsonr(xs, ys).statistic)
    expert = {str(s.id): s.scores["suite_scorer"].metadata["expert_score"] for s in demo_log.samples}
    assert metrics["rouge_l_kendall_tau"] == pytest.approx(stats.kendalltau(ys, [expert[i] for i in ids]).statistic)
    low, high = metrics["rouge_l_kendall_tau_ci_low"], metrics["rouge_l_kendall_tau_ci_high"]
    assert low <= metrics["rouge_l_kendall_tau"] <= high
    hypotheses = [s.output.completion for s in demo_log.samples]
    references = [[s.target for s in demo_log.samples]]
    corpus = BLEU(max_ngram_order=2).corpus_score(hypotheses, references).score / 100
    assert metrics["corpus_bleu_2"] == pytest.approx(corpus)


def test_demo_pos_neg_pairs_paraphrases_with_planted_errors(demo_log):
    metrics = report_values(demo_log)
    assert metrics["pos_neg_pairs"] == 14
    bleu_2 = per_sample(demo_log, "bleu_2")
    stems = [i.removesuffix("-para") for i in bleu_2 if i.endswith("-para")]
    pos = [bleu_2[f"{s}-para"] for s in stems]
    neg = [bleu_2[f"{s}-err"] for s in stems]
    assert metrics["bleu_2_pos_mean"] == pytest.approx(sum(pos) / 14)
    assert metrics["bleu_2_gap"] == pytest.approx((sum(pos) - sum(neg)) / 14)
    assert metrics["bleu_2_pos_better"] == pytest.approx(sum(p > n for p, n in zip(pos, neg)) / 14)


def sets_dir(tmp_path):
    folder = tmp_path / "sets"
    folder.mkdir()
    reference = GOOD_ROWS[0]["reference"]
    write_jsonl(
        folder / "pos.jsonl",
        [
            {
                "id": "s1-pos",
                "reference": reference,
                "candidate": "No pneumothorax. A small left effusion.",
                "kind": "pos",
                "source_id": "s1",
            },
            {
                "id": "s2-pos",
                "reference": "Right lower lobe consolidation.",
                "candidate": "Consolidation in the right lower lobe.",
                "kind": "pos",
                "source_id": "s2",
            },
        ],
    )
    write_jsonl(
        folder / "neg.jsonl",
        [
            {
                "id": "s2-neg",
                "reference": "Right lower lobe consolidation.",
                "candidate": "Left lower lobe consolidation.",
                "kind": "neg",
                "source_id": "s2",
            },
            {
                "id": "s1-neg",
                "reference": reference,
                "candidate": "Small right pleural effusion. No pneumothorax.",
                "kind": "neg",
                "source_id": "s1",
            },
        ],
    )
    return folder


def test_sensitivity_directory_adds_the_sets_and_pairs_them_by_source(tmp_path):
    log = run_offline(metric_suite(metrics="rouge_l,chrf", sensitivity=str(sets_dir(tmp_path))), tmp_path)
    assert sorted(str(s.id) for s in log.samples) == ["s1-neg", "s1-pos", "s2-neg", "s2-pos"]
    metrics = report_values(log)
    rouge = per_sample(log, "rouge_l")
    assert metrics["pos_neg_pairs"] == 2
    assert metrics["rouge_l_pos_mean"] == pytest.approx((rouge["s1-pos"] + rouge["s2-pos"]) / 2)
    assert metrics["rouge_l_neg_mean"] == pytest.approx((rouge["s1-neg"] + rouge["s2-neg"]) / 2)
    data = write_jsonl(tmp_path / "d.jsonl", GOOD_ROWS)
    with_data = metric_suite(metrics="rouge_l", data=str(data), sensitivity=str(tmp_path / "sets"))
    assert sorted(str(s.id) for s in with_data.dataset) == ["r1", "r2", "s1-neg", "s1-pos", "s2-neg", "s2-pos"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"metrics": "bleu,meteor"}, "unknown metric 'meteor'"),
        ({"metrics": "ran_score"}, "run radiology_tasks/ran_score on the same rows"),
        ({"metrics": ""}, "-T metrics names no metric"),
        ({"metrics": "rouge_l", "sensitivity": "no/such/dir"}, "no no/such/dir/pos.jsonl"),
    ],
)
def test_bad_suite_parameters_fail_in_one_line(arguments, message):
    with pytest.raises(InputError, match=message):
        metric_suite(**arguments)


def test_ct_finebench_needs_questions_on_every_row(tmp_path):
    with pytest.raises(InputError, match="ct_finebench needs questions .* 2 of 2 rows have none, the first 'r1'"):
        metric_suite(metrics="bleu_2,ct_finebench", data=str(write_jsonl(tmp_path / "d.jsonl", GOOD_ROWS)))


def test_baselines_task_scores_and_flags_an_empty_candidate(tmp_path, pairs_file):
    log = run_offline(baselines(baselines="bleu_2,rouge_l", data=str(pairs_file(GOOD_ROWS))), tmp_path)
    scores = {str(s.id): s.scores["lexical_baselines"] for s in log.samples}
    expected, _ = lexical_scores(GOOD_ROWS[1]["reference"], GOOD_ROWS[1]["candidate"], ["bleu_2", "rouge_l"])
    assert scores["r2"].value == pytest.approx(expected)
    metrics = report_values(log)
    assert metrics["bleu_2_mean"] == pytest.approx((scores["r1"].value["bleu_2"] + scores["r2"].value["bleu_2"]) / 2)
    assert metrics["corpus_pairs"] == 2
    with pytest.raises(InputError, match="unknown lexical metric 'bleu_5'"):
        baselines(baselines="bleu_5")


def test_vert_with_baselines_keeps_the_judge_score_and_its_metrics(monkeypatch, pairs_file, tmp_path):
    with openai_stub(lambda body: assessment({"a": 1}, 2, 0.7)) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            vert(data=str(pairs_file(GOOD_ROWS)), baselines="bleu_2,rouge_l"),
            model="none",
            model_roles={"grader": "openai-api/stubsvc/stub-judge"},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert log.status == "success", log.error
    for sample in log.samples:
        score = sample.scores["with_baselines"]
        assert score.value["vert"] == 0.7 and score.value["green_ec"] == 1.0
        expected, _ = lexical_scores(sample.target, sample.output.completion, ["bleu_2", "rouge_l"])
        assert {k: score.value[k] for k in expected} == pytest.approx(expected)
        assert score.metadata["predicted_significant"]["a"] == 1  # the judge's metadata stays at the top
    # The judge's summary is logged; the baselines' figures are the report's, computed from the log.
    assert_summary_only(log, {"bleu_2_mean", "rouge_l_kendall_tau", "corpus_bleu_2", "green_mean"})


def test_suite_report_writes_the_tables_of_a_suite_log(demo_log, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["suite-report", demo_log.location, "--out", str(out), "--resamples", "200"]) == 0
    printed = capsys.readouterr().out
    assert "## Paraphrases (pos) against minimal clinically wrong edits (neg): 14 pairs" in printed
    assert "no kendall_heatmap.png" not in printed
    assert {p.name for p in out.iterdir()} == {
        "kendall.csv",
        "pearson.csv",
        "expert_agreement.csv",
        "pos_neg.csv",
        "suite.md",
        "kendall_heatmap.png",
    }
    data = read_suite([demo_log.location])
    tables = suite_tables(data, n_resamples=0)
    metrics = report_values(demo_log)
    cells = {(c.first, c.second): c for c in tables.correlations}
    assert cells["bleu_1", "rouge_l"].kendall == pytest.approx(metrics["bleu_1_vs_rouge_l_kendall"])
    rows = {r.metric: r for r in tables.pos_neg}
    assert rows["rouge_l"].gap == pytest.approx(metrics["rouge_l_gap"])
    kendall_csv = [line.split(",") for line in (out / "kendall.csv").read_text().splitlines()]
    assert kendall_csv[0] == ["metric", "bleu_1", "bleu_2", "bleu_3", "bleu_4", "rouge_l", "undefined"]
    assert kendall_csv[1][0] == "bleu_1"
    assert float(kendall_csv[1][5]) == pytest.approx(cells["bleu_1", "rouge_l"].kendall)
    pos_neg_csv = {line.split(",")[0]: line.split(",") for line in (out / "pos_neg.csv").read_text().splitlines()}
    assert float(pos_neg_csv["rouge_l"][3]) == pytest.approx(rows["rouge_l"].gap, abs=1e-12)


def test_suite_report_without_matplotlib_writes_no_heatmap(demo_log, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    suite_report_command(
        [demo_log.location], str(tmp_path / "r"), keys="bleu_2,rouge_l", pairs_by_id=False, resamples=0, seed=0
    )
    assert not (tmp_path / "r" / "kendall_heatmap.png").exists()
    out = capsys.readouterr().out
    assert "no kendall_heatmap.png: the heatmap needs matplotlib (pip install 'radiology-tasks[plot]')" in out
    assert (tmp_path / "r" / "kendall.csv").read_text().splitlines()[0] == "metric,bleu_2,rouge_l,undefined"


def test_suite_report_joins_single_metric_logs_by_sample_id(tmp_path, pairs_file, monkeypatch):
    data = str(pairs_file(GOOD_ROWS))
    lexical = run_offline(baselines(baselines="bleu_2", data=data), tmp_path / "a")
    suite = run_offline(metric_suite(metrics="rouge_l", data=data, seed=1), tmp_path / "b")
    joined = read_suite([lexical.location, suite.location])
    assert joined.ids == ["r1", "r2"]
    assert list(joined.values) == ["bleu_2", "rouge_l"]
    assert joined.values["rouge_l"] == pytest.approx([per_sample(suite, "rouge_l")[i] for i in ("r1", "r2")])
    assert joined.expert == pytest.approx([0.8, 0.4])
    with pytest.raises(ValueError, match="score 'bleu_2' is given by .* and by"):
        read_suite([lexical.location, lexical.location])
    assert main(["suite-report", lexical.location, "--out", str(tmp_path / "o"), "--keys", "chrf"]) == 2


def test_a_filled_in_score_is_not_correlated(tmp_path, pairs_file):
    rows = [dict(GOOD_ROWS[0]), dict(GOOD_ROWS[1])]
    log = run_offline(baselines(baselines="rouge_l", data=str(pairs_file(rows))), tmp_path)
    sample = log.samples[0]
    sample.scores["lexical_baselines"].metadata["filled_in"] = ["rouge_l"]
    from inspect_ai.log import write_eval_log

    write_eval_log(log, log.location)
    data = read_suite([log.location])
    assert data.values["rouge_l"][0] is None and data.values["rouge_l"][1] is not None
    assert not math.isnan(data.values["rouge_l"][1])


def test_sensitivity_without_any_pair_fails_in_one_line(tmp_path, pairs_file):
    with pytest.raises(InputError, match="no pos/neg pair found among the rows .*-para/-pos"):
        metric_suite(metrics="rouge_l", data=str(pairs_file(GOOD_ROWS)), sensitivity="ids")


@pytest.mark.parametrize(("policy", "expected"), [("exclude", None), ("worst", 0.0)])
def test_an_empty_generated_report_is_unscored_with_its_reason(tmp_path, pairs_file, policy, expected):
    from inspect_ai.model import get_model

    from tests.judge_answers import mock_output

    writer = get_model("mockllm/model", custom_outputs=[mock_output(""), mock_output("Small left pleural effusion.")])
    task = baselines(baselines="rouge_l", data=str(pairs_file(GOOD_ROWS)), generate=True, unscored=policy)
    (log,) = inspect_eval(task, model=writer, display="none", log_dir=str(tmp_path / "logs"), max_samples=1)
    assert log.status == "success", log.error
    by_output = {bool(s.output.completion): s for s in log.samples}
    written, empty = by_output[True].scores["lexical_baselines"], by_output[False].scores["lexical_baselines"]
    expected_written, _ = lexical_scores(by_output[True].target, "Small left pleural effusion.", ["rouge_l"])
    assert written.value == pytest.approx(expected_written) and written.metadata["unscored"] == {}
    assert empty.metadata["unscored"] == {"rouge_l": "no_response"} and empty.reason == "no_response"
    if expected is None:
        assert math.isnan(empty.value["rouge_l"]) and empty.metadata["filled_in"] == []
    else:
        assert empty.value["rouge_l"] == expected and empty.metadata["filled_in"] == ["rouge_l"]
    assert report_values(log)["corpus_pairs"] == 1
