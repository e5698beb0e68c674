"""The `radiology-tasks` command line on real logs and the demo data."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.cli import main
from radiology_tasks.core.catalog import dataset_names
from radiology_tasks.core.family import families
from radiology_tasks.core.layouts import all_layouts
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.green_vert.ensemble import ensemble_report, format_report
from radiology_tasks.green_vert.tasks import vert
from radiology_tasks.suite.judges import judge_metrics
from tests.conftest import write_jsonl
from tests.green_vert.test_ensemble import EXPERT, IDS, JUDGES, write_log
from tests.green_vert.test_scorer import candidate_in
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub


def _judge_logs(monkeypatch, tmp_path) -> list[str]:
    demo = {p.candidate: p for p in load_pairs(None).pairs}
    judges = {
        "strict": lambda p: 1.0 - 0.25 * p.expert.significant.total,
        "lenient": lambda p: 1.0 - 0.1 * p.expert.significant.total - 0.1 * (len(p.id) % 2),
    }
    paths = []
    for name, rule in judges.items():
        with openai_stub(
            lambda b, rule=rule: assessment({}, 2, max(0.0, round(rule(demo[candidate_in(b)]), 2)))
        ) as srv:
            monkeypatch.setenv("STUBSVC_BASE_URL", srv.base_url)
            monkeypatch.setenv("STUBSVC_API_KEY", "x")
            (log,) = inspect_eval(
                vert(),
                model="none",
                model_roles={"grader": f"openai-api/stubsvc/{name}"},
                log_dir=str(tmp_path / name),
                display="none",
            )
        paths.append(log.location)
    return paths


@pytest.mark.slow
def test_ensemble_command_prints_tau_of_each_judge_and_ensemble(monkeypatch, tmp_path, capsys):
    logs = _judge_logs(monkeypatch, tmp_path)
    assert main(["ensemble", *logs, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Kendall's tau with expert scores (score: vert)" in out
    for label in ("openai-api/stubsvc/strict", "openai-api/stubsvc/lenient", "average ensemble", "regression ensemble"):
        assert label in out


def test_export_sft_on_the_demo_set(tmp_path, capsys):
    assert main(["export-sft", "--data", "demo", "--out", str(tmp_path), "--val-fraction", "0.1"]) == 0
    train = (tmp_path / "train.jsonl").read_text().splitlines()
    validation = (tmp_path / "validation.jsonl").read_text().splitlines()
    assert len(train) + len(validation) == len(load_pairs(None).pairs)
    assert len(validation) == 3  # every pair of round(14 references x 0.1) = 1 reference: the split is by reference
    first = json.loads(train[0])
    assert [m["role"] for m in first["messages"]] == ["user", "assistant"]
    assert len(first["messages"][1]["content"]) == 3  # one decimal: "0.7"
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("data={path}", "{path}, row 1, field 'expert_score': expected a number, got 'bad'"),
        ("limit=abc", "-T limit must be a whole number, got 'abc'"),
        ("on_bad_rows=ignore", "-T on_bad_rows must be one of error, skip; got 'ignore'"),
    ],
)
def test_inspect_eval_reports_bad_input_in_one_line(pairs_file, argument, message):
    path = pairs_file([{"id": "a", "reference": "Normal.", "candidate": "Normal.", "expert_score": "bad"}])
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/vert", "--model", "none"]
        + ["-T", argument.format(path=path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert message.format(path=path) in " ".join(output.split())
    assert "Traceback" not in output


# --- ensemble, on small synthetic logs -------------------------------------------------------------


@pytest.fixture
def judge_logs(tmp_path) -> list[str]:
    return [
        write_log(tmp_path / f"judge{k}.json", {i: (j, e) for i, j, e in zip(IDS, judge, EXPERT)}, grader=f"m{k}")
        for k, judge in enumerate(JUDGES[:2])
    ]


def _ensemble_output(capsys, *argv: str) -> str:
    assert main(["ensemble", *argv]) == 0
    return capsys.readouterr().out


def test_ensemble_seed_chooses_the_split(judge_logs, capsys):
    outputs = {seed: _ensemble_output(capsys, *judge_logs, "--seed", str(seed)) for seed in (1, 2)}
    assert outputs[1] != outputs[2]
    for seed, out in outputs.items():
        assert f"regression fitted on 15 samples: random 0.5 of the shared samples (seed {seed})" in out
        assert out == format_report(ensemble_report(judge_logs, seed=seed))
    # No --seed is seed 0.
    assert _ensemble_output(capsys, *judge_logs) == format_report(ensemble_report(judge_logs, seed=0))


def test_ensemble_train_fraction(judge_logs, capsys):
    out = _ensemble_output(capsys, *judge_logs, "--train-fraction", "0.3")
    # 30 shared samples: round(0.3 * 30) = 9 to fit on, 21 held out.
    assert "on 21 held-out samples" in out
    assert "regression fitted on 9 samples: random 0.3 of the shared samples (seed 0)" in out


def test_ensemble_train_logs_fit_the_regression(tmp_path, capsys):
    train_ids = [f"t{i}" for i in range(6)]
    a = [0.1, 0.5, 0.9, 0.3, 0.7, 0.2]
    b = [0.4, 0.1, 0.8, 0.9, 0.3, 0.6]
    truth = [0.1 + 0.5 * x + 0.3 * y for x, y in zip(a, b)]
    train = [
        write_log(tmp_path / f"train{k}.json", dict(zip(train_ids, zip(judge, truth))), dataset="train", grader=g)
        for k, (judge, g) in enumerate(((a, "m0"), (b, "m1")))
    ]
    logs = [
        write_log(tmp_path / f"eval{k}.json", {i: (j, e) for i, j, e in zip(IDS, judge, EXPERT)}, grader=f"m{k}")
        for k, judge in enumerate(JUDGES[:2])
    ]
    out = _ensemble_output(capsys, *logs, "--train-log", train[0], "--train-log", train[1])
    assert f"regression fitted on 6 samples: training logs: {train[0]}, {train[1]}" in out
    assert "on 30 held-out samples" in out
    # The training expert scores are exactly 0.1 + 0.5 a + 0.3 b.
    assert "regression: intercept=0.1000, m0=0.5000, m1=0.3000" in out


def test_ensemble_score_key_and_lower_is_better(tmp_path, capsys):
    rows = [{i: ({"green_ec": 5 * (1 - v), "vert": v}, e) for i, v, e in zip(IDS, judge, EXPERT)} for judge in JUDGES]
    logs = [write_log(tmp_path / f"ec{k}.json", r, grader=f"m{k}") for k, r in enumerate(rows[:2])]
    out = _ensemble_output(capsys, *logs, "--score-key", "green_ec", "--lower-is-better")
    assert "(score: green_ec)" in out
    expected = ensemble_report(logs, score_key="green_ec", higher_is_better=False)
    assert out == format_report(expected)
    assert expected.judges[0].agreement.sign == -1 and expected.judges[0].agreement.kendall_tau > 0
    assert out != _ensemble_output(capsys, *logs, "--score-key", "green_ec")


def test_ensemble_command_reports_bad_input(tmp_path, capsys):
    assert main(["ensemble", str(tmp_path / "missing.eval")]) == 2
    assert capsys.readouterr().err == "radiology-tasks ensemble: an ensemble needs at least two judge logs, got 1\n"
    assert main(["ensemble", str(tmp_path / "a.eval"), str(tmp_path / "b.eval")]) == 2
    assert capsys.readouterr().err.startswith("radiology-tasks ensemble: ")


# --- export-sft ---------------------------------------------------------------------------------------


def _rated_pairs(tmp_path, n: int = 20, **extra) -> str:
    rows = [
        {"id": f"p{i:02d}", "reference": f"Reference {i}.", "candidate": f"Candidate {i}.", "expert_score": i % 6}
        | {"expert_score_max": 5}
        | extra
        for i in range(n)
    ]
    return str(write_jsonl(tmp_path / "pairs.jsonl", rows))


def _ids(path) -> list[str]:
    """The pair ids in a written file, recovered from the reference text of each conversation."""
    contents = [json.loads(line)["messages"][0]["content"] for line in path.read_text().splitlines()]
    return [f"p{int(c.split('Reference ')[1].split('.')[0]):02d}" for c in contents]


@pytest.mark.parametrize(("fraction", "n_validation"), [("0.25", 5), ("0.5", 10), ("0", 0)])
def test_export_sft_val_fraction(tmp_path, capsys, fraction, n_validation):
    out = tmp_path / "out"
    argv = ["export-sft", "--data", _rated_pairs(tmp_path), "--out", str(out), "--val-fraction", fraction]
    assert main(argv) == 0
    assert len(_ids(out / "validation.jsonl")) == n_validation
    assert len(_ids(out / "train.jsonl")) == 20 - n_validation
    assert capsys.readouterr().out == (
        f"wrote {20 - n_validation} conversations to {out / 'train.jsonl'}\n"
        f"wrote {n_validation} conversations to {out / 'validation.jsonl'}\n"
    )


@pytest.mark.parametrize("seed", [None, "3"])
def test_export_sft_seed_chooses_the_validation_pairs(tmp_path, seed):
    out = tmp_path / "out"
    argv = ["export-sft", "--data", _rated_pairs(tmp_path), "--out", str(out), "--val-fraction", "0.2"]
    assert main(argv + (["--seed", seed] if seed else [])) == 0
    # The documented split: shuffle the pairs with random.Random(seed) and hold out the first ones.
    ids = [f"p{i:02d}" for i in range(20)]
    random.Random(int(seed or 0)).shuffle(ids)
    assert _ids(out / "validation.jsonl") == ids[:4]
    assert _ids(out / "train.jsonl") == ids[4:]


def test_export_sft_skip_incomplete_lists_what_it_left_out(tmp_path, capsys):
    rows = [
        {"id": "a", "reference": "Reference 1.", "candidate": "Candidate 1.", "expert_score": 0.5},
        {"id": "b", "reference": "Reference 2.", "expert_score": 0.5},
        {"id": "c", "reference": "Reference 3.", "candidate": "Candidate 3."},
    ]
    data = str(write_jsonl(tmp_path / "pairs.jsonl", rows))
    argv = ["export-sft", "--data", data, "--out", str(tmp_path / "out"), "--val-fraction", "0"]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("radiology-tasks export-sft: 2 pairs cannot become training examples")
    assert main([*argv, "--skip-incomplete"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2:] == ["skipped b: no candidate report", "skipped c: no expert score"]


def test_export_sft_takes_candidates_and_revision(tmp_path, capsys):
    rows = [{"id": f"p{i:02d}", "reference": f"Reference {i}.", "expert_score": 0.5} for i in range(4)]
    data = str(write_jsonl(tmp_path / "pairs.jsonl", rows))
    candidates = str(write_jsonl(tmp_path / "cands.jsonl", [{"id": r["id"], "candidate": "Joined."} for r in rows]))
    out = tmp_path / "out"
    assert main(["export-sft", "--data", data, "--candidates", candidates, "--out", str(out)]) == 0
    written = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert len(written) == 4 and all("Joined." in w["messages"][0]["content"] for w in written)
    # A revision reaches the loader, which refuses it for a bundled dataset.
    assert main(["export-sft", "--data", "demo", "--revision", "v1", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "radiology-tasks export-sft: -T revision applies to hub datasets, not to the bundled dataset demo\n"
    )


# --- list ------------------------------------------------------------------------------------------


def test_list_prints_each_task_its_parameters_and_the_datasets(capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "Tasks (inspect eval <name> ...; each parameter is described in its family's README, under Parameters):"
    )
    start = lines.index("  radiology_tasks/vert")
    assert (
        lines[start + 1] == "      VERT: the judge counts errors and gives a direct overall accuracy score in [0, 1]."
    )
    # A task's own parameters come first, then the shared data and judge parameters (`core/task_options`), each
    # default as a user types it: `data` shows the dataset read when it is not given (the demo for most tasks, Ran
    # Score's own demo for it), booleans are YAML's true/false, and parameters unset by default are named apart.
    assert lines[start + 2].startswith(
        "      defaults: -T prompt=vert -T data=demo -T on_bad_rows=error -T generate=false "
    )
    assert " -T constrain=auto -T judge_retries=1 -T unscored=worst " in lines[start + 2]
    assert lines[start + 2].endswith(" -T curated=none -T error_descriptions=false")
    assert lines[start + 3] == (
        "      unset unless given: candidates, reports, revision, limit, seed, layout, track, image_root, "
        "expert_scale, judge_max_tokens, shot_pool, baselines"
    )
    ran_score = lines.index("  radiology_tasks/ran_score")
    assert lines[ran_score + 2].startswith("      defaults: -T extraction=batch -T data=ran-score-demo ")
    assert lines[ran_score + 3].startswith("      unset unless given: taxonomy, reference_labels, ")
    baselines = lines.index("  radiology_tasks/baselines")
    assert lines[baselines + 1].endswith("no judge, no model, no download (with --model none).")
    assert lines[baselines + 2].startswith("      defaults: -T baselines=bleu,chrf,rouge_l -T data=demo ")
    heading = lines.index("Datasets (-T data=<name>, or a file or folder of your own):")
    # No Python reprs and no reStructuredText literals anywhere.
    for line in lines[1:heading]:
        assert not any(mark in line for mark in ("=None", "='", '="', "``", "`", "=True", "=False")), line
    assert lines[heading - 1] == ""
    # Only tasks are listed, in name order: not the package's scorers, solvers or metrics.
    listed = [line.strip() for line in lines[:heading] if line.startswith("  radiology_tasks/")]
    assert listed == sorted(f"radiology_tasks/{task}" for family in families() for task in family.tasks)
    assert {"radiology_tasks/green", "radiology_tasks/ct_finebench", "radiology_tasks/metric_suite"} <= set(listed)
    judges_heading = lines.index("LLM judges of metric_suite (-T metrics=<name>, with --model-role grader=...):")
    datasets = lines[heading + 1 : judges_heading - 1]
    layouts_heading = lines.index("Layouts (recognised from file names and columns, or forced with -T layout=<name>):")
    # Every judge the families add to the suite, every dataset and every layout, each on one line: name, then text.
    judges = lines[judges_heading + 1 : layouts_heading - 1]
    assert judges == [f"  {name:<16}scores {', '.join(m.keys)}" for name, m in sorted(judge_metrics().items())]
    assert "  green           scores green, green_ec, green_f1" in judges
    assert [line[:18] for line in datasets] == [f"  {name:<16}" for name, _ in dataset_names()]
    described = {line[18:] for line in datasets}
    assert (
        "Bundled synthetic report pairs (CT, chest X-ray, MRI) with planted errors and expert-style scores" in described
    )
    assert any(line.endswith("[hub IAMJB/RadEvalExpertDataset]") for line in datasets)
    assert any("[download: it is on PhysioNet" in line for line in datasets)
    layouts = lines[layouts_heading + 1 :]
    assert [line[:18] for line in layouts] == [f"  {name:<16}" for name in all_layouts()]
    assert "  radeval-expert  reader_study_final_with_annotationsv3.csv" in layouts


def test_list_shows_each_default_as_typed_and_docstrings_as_plain_text():
    import inspect

    from radiology_tasks.cli import _first_line, _parameter_lines, _parameter_text, plain_text

    def task(data, limit=3, name="a b", flag=True, off=False, share=0.5, metrics="bleu,chrf", label_cache=None):
        pass

    texts = [_parameter_text(p, "toy") for p in inspect.signature(task).parameters.values()]
    assert texts == [
        "data",
        "-T limit=3",
        "-T 'name=a b'",  # quoted as a shell needs it
        "-T flag=true",
        "-T off=false",
        "-T share=0.5",
        "-T metrics=bleu,chrf",
        None,
    ]
    assert _parameter_lines("toy", task) == [
        "      defaults: data -T limit=3 -T 'name=a b' -T flag=true -T off=false -T share=0.5 -T metrics=bleu,chrf",
        "      unset unless given: label_cache",
    ]
    assert _parameter_lines("toy", lambda limit=1: None) == ["      defaults: -T limit=1"]
    assert [_first_line(d) for d in (None, "", "  \n ", "  One.\n  Two.")] == ["", "", "", "One."]
    assert _first_line("Scores with ``--model none`` and `ran_score`.\n\nMore.") == (
        "Scores with --model none and ran_score."
    )
    assert plain_text("``a`` and `b`, not a ` alone") == "a and b, not a ` alone"


def test_list_names_each_tasks_own_default_dataset():
    import inspect

    from radiology_tasks.cli import _parameter_text, default_dataset
    from radiology_tasks.ran_score.tasks import ran_score

    assert default_dataset("radiology_tasks/ran_score") == "ran-score-demo"
    assert default_dataset("radiology_tasks/vert") == default_dataset("radiology_tasks/no_such_task") == "demo"
    data = inspect.signature(ran_score).parameters["data"]
    assert _parameter_text(data, "radiology_tasks/ran_score") == "-T data=ran-score-demo"
    assert _parameter_text(data, "radiology_tasks/report_generation") == "-T data=demo"


def test_a_command_is_required(capsys):
    with pytest.raises(SystemExit) as caught:
        main([])
    assert caught.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


# The options every variant-making command shares (`_variant_arguments`).
VARIANT_OPTIONS = [
    "--injector INJECTOR model that makes the variants, e.g. openai/gpt-4.1",
    "--data DATA dataset name or .jsonl/.csv file of references (default: demo)",
    "--revision REVISION dataset revision (Hugging Face datasets)",
    "--limit LIMIT number of distinct references (after shuffling with --seed)",
    "--seed SEED shuffles the references; also seeds the injector (default 0)",
    "--on-bad-rows {error,skip}",
    "--attempts ATTEMPTS attempts per variant before it is excluded",
    "--temperature TEMPERATURE temperature of the first attempt",
    "--max-tokens MAX_TOKENS token budget of a rewrite (default: its contract's)",
    "--constrain {auto,off,grammar,structured_outputs,response_format}",
    "--log-dir LOG_DIR where the Inspect log of the injector run goes",
    "--display DISPLAY Inspect display: full, plain, none, ...",
]

HELP = {
    (): [
        "usage: radiology-tasks [-h] COMMAND ...",
        "The commands around the radiology tasks. A task itself runs with inspect eval radiology_tasks/<task> "
        "-T name=value ... and `radiology-tasks list` shows each task with its -T defaults, and the datasets, judges "
        "and layouts they read. For a command's options: radiology-tasks COMMAND --help",
        "submit check eval logs and write them as a leaderboard submission bundle",
        "leaderboard rank the systems of submission bundles or logs: JSON, CSV, Markdown and a page",
        "perturb write reports with injected errors and paraphrases (a variants file) for judge_sensitivity",
        "sensitivity-set write paraphrases (pos) and attribute-edited copies (neg) of references for metric_suite "
        "-T sensitivity",
        "list list the tasks with their -T defaults, and the datasets, metric_suite judges and layouts",
        "ensemble compare judges' logs of the same expert-rated samples with their average and regression ensembles",
        "export-sft write chat-format JSONL to fine-tune a judge (LoRA)",
        "ran-labels write the labels of a ran_score log as label tables (CSV)",
        "ctfb-triplets CT-FineBench construction 1/3: the judge lists (finding, attribute, value) per report",
        "ctfb-schema CT-FineBench construction 2/3: group the triplets into a schema file to edit",
        "ctfb-qa CT-FineBench construction 3/3: questions and answers per report from the edited schema",
        "suite-report write the metric suite's tables (correlations, agreement with experts, pos/neg) from logs",
        "lm-eval-path print the directory of the lm-evaluation-harness task configs (for --include_path)",
    ],
    ("report",): [
        "usage: radiology-tasks report [-h] [--out OUT] [--json] log",
        "log an Inspect eval log of a radiology task",
        "--out OUT directory for report.md, report.html and report.json (default: <log>.report/ beside it)",
        "--json print the figures as JSON instead of Markdown; write the files only with --out",
        "summary_check (equal, not_logged, differs or older_version)",
        "it never holds NaN or Infinity",
    ],
    ("task-docs",): [
        "usage: radiology-tasks task-docs [-h] [--readme README] [--check]",
        "--readme README one Markdown file to update (default: docs/parameters.md and every family's README, and the "
        "lists of the families' tasks in the shared documents)",
        "--check change nothing; exit 1 naming each block that differs from the code",
    ],
    ("suite-report",): [
        "usage: radiology-tasks suite-report [-h] --out OUT [--keys KEYS] [--pairs-by-id] [--resamples RESAMPLES] "
        "[--seed SEED] logs [logs ...]",
        "logs a metric_suite log, or several logs of the same samples",
        "--out OUT directory for the CSV, Markdown and heatmap files",
        "--keys KEYS comma-separated score keys to tabulate (default: every numeric score)",
        "--pairs-by-id pair <id>-para/-pos rows with <id>-err/-neg",
        "--resamples RESAMPLES bootstrap resamples for the intervals",
    ],
    ("submit",): [
        "usage: radiology-tasks submit [-h] --out OUT [--system SYSTEM] [--institution INSTITUTION] [--paper PAPER] "
        "[--code CODE] [--description DESCRIPTION] [--track {findings,findings_impression,judges}] "
        "[--redact-text | --no-redact-text] [--replace] [--max-unscored MAX_UNSCORED] logs [logs ...]",
        "logs Inspect eval logs of one system",
        "--redact-text, --no-redact-text replace every report, candidate and judge answer text in the bundled logs "
        "by its SHA-256",
        "--replace replace the submission bundle already in --out (only a bundle)",
        "--out OUT the bundle directory to write (new or empty)",
        "--system SYSTEM system name (default: the model under test, a generation log's generator, or the candidates "
        "file)",
        "--track {findings,findings_impression,judges} the report section generated, or judges: rank the run's judge",
        "--max-unscored MAX_UNSCORED largest share of unscored samples accepted (default 0.02)",
    ],
    ("verify",): [
        "usage: radiology-tasks verify [-h] [--data DATA] [--reports REPORTS] [--logs LOGS [LOGS ...]] bundle",
        "--data DATA the dataset (file or folder) in place of each run's -T data",
        "--logs LOGS [LOGS ...] the original logs (files or folders), found by their SHA-256",
    ],
    ("leaderboard",): [
        "usage: radiology-tasks leaderboard [-h] --out OUT [--resamples RESAMPLES] [--seed SEED] "
        "[--confidence CONFIDENCE] [--trial] [--max-unscored MAX_UNSCORED] inputs [inputs ...]",
        "inputs submission bundles (directories) or Inspect eval logs",
        "--trial rank runs on part of their dataset (-T limit) on boards marked as trials; full runs are refused",
        "--out OUT directory for leaderboard.json/.csv/.md and index.html",
        "--resamples RESAMPLES bootstrap and randomization resamples",
        "--confidence CONFIDENCE interval coverage (default 0.95)",
    ],
    ("ensemble",): [
        "usage: radiology-tasks ensemble [-h] [--score-key SCORE_KEY] [--train-log TRAIN_LOG] "
        "[--train-fraction TRAIN_FRACTION] [--lower-is-better] [--seed SEED] logs [logs ...]",
        "logs Inspect eval logs, one per judge",
        "--score-key SCORE_KEY score to read from each log (default: the task's main score)",
        "--train-log TRAIN_LOG logs (one per judge, same order) to fit the regression on",
        "--train-fraction TRAIN_FRACTION train split when no --train-log",
        "--lower-is-better the score is an error count (e.g. green_ec)",
    ],
    ("export-sft",): [
        "usage: radiology-tasks export-sft [-h] (--data DATA | --variants FILE [FILE ...]) [--candidates CANDIDATES] "
        "[--revision REVISION] --out OUT [--val-fraction VAL_FRACTION] [--seed SEED] [--skip-incomplete] "
        "[--prompt {vert,green,score}] [--detail {full,brief}] [--passes {1,2}] [--exclude DATA [DATA ...]] "
        "[--max-per-reference MAX_PER_REFERENCE] [--balance-categories] [--paraphrase-share PARAPHRASE_SHARE] "
        "[--on-bad-rows {error,skip}]",
        "--data DATA dataset name or file with candidate and expert_score",
        "--variants FILE [FILE ...] variants files (radiology-tasks perturb): known answers",
        "--prompt {vert,green,score} with --variants: the judge prompt (default vert)",
        "--passes {1,2} with --variants: 2 for judge_sensitivity's two-pass judge",
        "--exclude DATA [DATA ...] with --variants: leave out references these evaluation sets hold",
        "--paraphrase-share PARAPHRASE_SHARE with --variants: share of paraphrases among the variants kept",
        "--candidates CANDIDATES candidate file joined by id",
        "--revision REVISION dataset revision (Hugging Face datasets)",
        "--out OUT output directory for train.jsonl and validation.jsonl",
        "--skip-incomplete leave out pairs without candidate or expert score (listed)",
    ],
    ("perturb",): [
        *VARIANT_OPTIONS,
        "--out OUT the variants file to write (.jsonl)",
        "--categories CATEGORIES error types, letters a-f separated by commas, or all",
        "--max-errors MAX_ERRORS variants with 1..N errors of each type",
        "--paraphrases PARAPHRASES paraphrases per reference",
    ],
    ("sensitivity-set",): [
        *VARIANT_OPTIONS,
        "--out OUT directory for pos.jsonl and neg.jsonl",
        "--edits EDITS attribute edits per neg report, one per sentence",
    ],
}


@pytest.mark.parametrize("command", HELP, ids=lambda c: " ".join(c) or "radiology-tasks")
def test_help_describes_every_command_and_option(capsys, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as caught:
        main([*command, "--help"])
    assert caught.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for expected in HELP[command]:
        assert expected in text


def test_help_lists_what_users_run_and_hides_the_maintainers_commands(capsys, monkeypatch):
    from radiology_tasks.cli import build_parser

    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "task-docs" not in out and "SUPPRESS" not in out and "lists them all" not in out
    listed = [
        line.split()[0] for line in out.split("commands:")[1].splitlines()[2:] if line[:4] == "    " and line[4] != " "
    ]
    parser_commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    # Every command but the maintainers' is listed with a one-line description, and the hidden one still runs.
    assert sorted(listed) == sorted(set(parser_commands) - {"task-docs"})
    with pytest.raises(SystemExit) as caught:
        main(["task-docs", "--help"])
    assert caught.value.code == 0
    assert "Write the tasks' -T parameter tables" in capsys.readouterr().out


def test_bad_option_values_are_refused_by_the_parser(capsys):
    for argv in (["ensemble", "a", "b", "--seed", "x"], ["ensemble", "a", "--train-fraction", "half"]):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2
        assert "invalid" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export-sft", "--data", "demo", "--out", "x", "--val-fraction", "tenth"])
    assert "argument --val-fraction: invalid float value: 'tenth'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "module", "function"),
    [
        ("ctfb-triplets", "radiology_tasks.ct_finebench.construct.triplets", "triplets_command"),
        ("ctfb-qa", "radiology_tasks.ct_finebench.construct.qa", "qa_command"),
    ],
)
def test_construction_commands_pass_every_judge_option_on(monkeypatch, command, module, function):
    import importlib

    from radiology_tasks.ct_finebench.construct.judging import JudgeOptions

    seen = []
    monkeypatch.setattr(importlib.import_module(module), function, lambda args, options: seen.append(options) or 0)
    argv = [command, "--data", "demo", "--out", "o.jsonl", "--model", "llama-cpp/smollm2-135m", "-M", "n_ctx=2048"]
    extra = ["--schema", "s.yaml"] if command == "ctfb-qa" else []
    judge = ["--constrain", "off", "--max-tokens", "300", "--retries", "0", "--max-connections", "2"]
    assert main([*argv, *extra, *judge]) == 0
    assert seen == [
        JudgeOptions(
            model="llama-cpp/smollm2-135m",
            model_args={"n_ctx": 2048},
            constrain="off",
            max_tokens=300,
            retries=0,
            max_connections=2,
        )
    ]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-tokens", "0", "argument --max-tokens: expected a whole number of at least 1, got 0"),
        ("--retries", "-1", "argument --retries: expected a whole number of at least 0, got -1"),
    ],
)
def test_construction_judge_options_are_checked_by_the_parser(capsys, option, value, message):
    argv = ["ctfb-triplets", "--data", "demo", "--out", "o.jsonl", "--model", "m", option, value]
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("command", ["perturb", "sensitivity-set"])
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "the following arguments are required: --injector"),
        (["--injector", "m", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["--injector", "m", "--limit", "two"], "argument --limit: invalid int value: 'two'"),
        (["--injector", "m", "--on-bad-rows", "ignore"], "argument --on-bad-rows: invalid choice: 'ignore'"),
    ],
)
def test_variant_commands_refuse_bad_options_in_the_parser(capsys, command, arguments, message):
    with pytest.raises(SystemExit) as caught:
        main([command, "--out", "out", *arguments])
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_leaderboard_options_are_checked_by_the_parser(capsys):
    for argv, message in (
        (["submit", "x.eval", "--out", "b", "--max-unscored", "1.5"], "expected a share between 0 and 1, got 1.5"),
        (["leaderboard", "b", "--out", "o", "--resamples", "0"], "expected a whole number of at least 1, got 0"),
        (["leaderboard", "b", "--out", "o", "--confidence", "-0.1"], "expected a share between 0 and 1, got -0.1"),
        (["submit", "x.eval", "--out", "b", "--track", "impression"], "invalid choice: 'impression'"),
    ):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2
        assert message in capsys.readouterr().err


def test_a_closed_pipe_ends_the_command_quietly(tmp_path, monkeypatch):
    # `radiology-tasks list | head -1`: the reader left early, so writing raises BrokenPipeError.
    import io
    import os

    target = (tmp_path / "stdout").open("w")

    class ClosedPipe(io.TextIOBase):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self) -> int:
            return target.fileno()

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["list"]) == 1
    os.write(target.fileno(), b"dropped")
    target.close()
    assert (tmp_path / "stdout").read_text() == "", "stdout now goes to /dev/null, so the exit-time flush is silent"
