"""`score()` gives what `inspect eval` on a file of the same pairs gives, sample by sample, and refuses bad input
before any judge call."""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from radiology_tasks import score, score_async
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.unscored import unscored_reason
from tests.api.conftest import GARBLED, JUDGE, ROWS
from tests.conftest import write_jsonl
from tests.report_values import report_values

REPO = Path(__file__).resolve().parents[2]
METRICS = ["green", "vert", "ct_finebench", "ran_score", "baselines"]
# Ran Score caches the judge's reference labels across runs (by default in the user's cache folder): both runs of a
# comparison ask the judge afresh, or the second would read the first's labels and cost fewer judge calls.
PARAMS: dict[str, dict[str, str]] = {"ran_score": {"label_cache": "off"}}


def _file_run(metric: str, tmp_path: Path) -> EvalLog:
    """What `inspect eval radiology_tasks/<metric> -T data=FILE --model none --model-role grader=JUDGE` does."""
    data = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    (log,) = inspect_eval(
        f"radiology_tasks/{metric}",
        task_args={"data": str(data), **PARAMS.get(metric, {})},
        model="none",
        model_roles={"grader": JUDGE},
        log_dir=str(tmp_path / "file-logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS)
def test_score_equals_inspect_eval_on_a_file_sample_by_sample(metric, judge, tmp_path):
    expected = _file_run(metric, tmp_path)
    references = [{k: v for k, v in row.items() if k not in ("id", "candidate")} for row in ROWS]
    result = score(
        references,
        [row["candidate"] for row in ROWS],
        metric,
        judge=JUDGE,
        ids=[row["id"] for row in ROWS],
        log_dir=tmp_path / "logs",
        **PARAMS.get(metric, {}),
    )
    assert [s.id for s in result.samples] == [row["id"] for row in ROWS]
    logged = {str(s.id): next(iter(s.scores.values())) for s in expected.samples}
    distinct = set()
    for sample in result.samples:
        want = logged[sample.id]
        assert want.value.keys() == sample.value.keys(), sample.id
        assert all(_same(float(want.value[k]), sample.value[k]) for k in want.value), (sample.id, sample.value)
        assert sample.unscored == unscored_reason(want.metadata, result.main)
        distinct.add(sample.value[result.main])
    judged = metric != "baselines"
    if judged:
        garbled = next(s for s in result.samples if s.id == GARBLED)
        assert garbled.unscored is not None
        assert all(s.unscored is None for s in result.samples if s.id != GARBLED)
    # Different pairs got different scores, so a result handed to the wrong pair would show.
    assert len(distinct) >= 3
    # Every figure of the run, as `radiology-tasks report` computes it from the log: the summary and the rest.
    want_metrics = report_values(expected)
    assert result.metrics.keys() == want_metrics.keys()
    assert {n for g in result.log.results.scores for n in g.metrics} < set(result.metrics)
    assert {n: v for n, v in result.metrics.items() if not _same(v, want_metrics[n])} == {}
    log = read_eval_log(result.log.location)
    assert log.status == "success" and log.eval.task == f"radiology_tasks/{metric}"
    assert Path(log.eval.task_args["data"]).is_file()
    if judged:
        assert log.stats.role_usage["grader"].input_tokens > 0


def test_default_ids_are_positions_and_plain_strings_are_references(tmp_path):
    result = score(
        ["No pneumothorax.", "Left effusion."],
        ["No pneumothorax.", "Right effusion."],
        "baselines",
        log_dir=tmp_path,
        baselines="rouge_l",
    )
    assert [s.id for s in result.samples] == ["1", "2"]
    assert result.main == "rouge_l"
    assert result.values() == [1.0, 0.5]
    assert result.metrics["rouge_l_mean"] == 0.75
    assert all(s.unscored is None for s in result.samples)


@pytest.mark.parametrize(
    ("references", "candidates", "kwargs", "message"),
    [
        (["A.", "B."], ["A."], {}, "2 references and 1 candidates"),
        ([], [], {}, "no pairs"),
        (["A.", "B."], ["A.", "   "], {}, r"candidates\[1\]: empty candidate report"),
        (["A.", ""], ["A.", "B."], {}, r"references\[1\]: missing or empty reference report"),
        (["A."], [None], {}, r"candidates\[0\]: expected the report text"),
        ("A.", "B.", {}, "references must be a list"),
        (["A.", "B."], ["A.", "B."], {"ids": ["x", "x"]}, r"ids\[1\] 'x' repeats ids\[0\]"),
        (["A.", "B."], ["A.", "B."], {"ids": ["x"]}, "1 ids for 2 pairs"),
        ([{"reference": "A.", "candidate": "C."}], ["A."], {}, "has a 'candidate' column"),
        (["A."], ["A."], {"metric": "nonsense"}, "unknown metric 'nonsense'"),
        (["A."], ["A."], {"metric": "judge_sensitivity"}, "unknown metric 'judge_sensitivity'"),
        (["A."], ["A."], {"detial": "brief"}, "green takes no parameter 'detial'"),
        (["A."], ["A."], {"limit": 1}, "'limit' chooses the data"),
        (["A."], ["A."], {"detail": "verbose"}, "detail"),
    ],
)
def test_bad_input_is_one_clear_error_before_any_judge_call(judge, tmp_path, references, candidates, kwargs, message):
    kwargs = {"metric": "green", **kwargs}
    with pytest.raises(InputError, match=message):
        score(references, candidates, judge=JUDGE, log_dir=tmp_path, **kwargs)
    assert judge.requests == []
    assert not list(tmp_path.rglob("*.eval"))


def test_a_bad_pair_of_a_row_is_named_by_position_and_field(tmp_path):
    with pytest.raises(InputError, match=r"references\[0\], field 'expert_score': expected a number"):
        score([{"reference": "A.", "expert_score": "high"}], ["B."], "baselines", log_dir=tmp_path)


def test_ct_finebench_without_questions_says_so(tmp_path):
    with pytest.raises(InputError, match="no report .* has questions"):
        score(["A 2 cm cyst."], ["A cyst."], "ct_finebench", judge=JUDGE, log_dir=tmp_path)


@pytest.mark.slow
def test_calls_awaited_together_share_one_evaluation(judge, tmp_path):
    references = [row["reference"] for row in ROWS]
    candidates = [row["candidate"] for row in ROWS]

    async def both() -> list[Any]:
        return await asyncio.gather(
            score_async(references, candidates, "vert", judge=JUDGE, log_dir=tmp_path),
            score_async(references, candidates, "baselines", log_dir=tmp_path, baselines="bleu_1"),
        )

    judged, lexical = asyncio.run(both())
    assert judged.log.eval.task == "radiology_tasks/vert" and lexical.log.eval.task == "radiology_tasks/baselines"
    assert judged.log.eval.run_id == lexical.log.eval.run_id
    assert judged.main == "vert" and lexical.main == "bleu_1"
    assert len(judge.requests) >= len(ROWS)
    single = score(references, candidates, "vert", judge=JUDGE, log_dir=tmp_path)
    assert [s.value for s in single.samples] == [s.value for s in judged.samples]


def test_a_python_run_passes_the_leaderboard_checks(judge, tmp_path):
    from radiology_tasks.leaderboard.bundle import check_logs

    readable = [row for row in ROWS if row["id"] != GARBLED]
    result = score(
        [r["reference"] for r in readable], [r["candidate"] for r in readable], "vert", judge=JUDGE, log_dir=tmp_path
    )
    (run,) = check_logs([Path(result.log.location)])
    assert run is not None


def test_a_row_names_its_pair_when_no_ids_are_given(tmp_path):
    result = score([{"id": "study-9", "reference": "A b."}, "C d."], ["A b.", "C d."], "baselines", log_dir=tmp_path)
    assert [s.id for s in result.samples] == ["study-9", "2"]


@pytest.mark.slow
def test_score_equals_the_inspect_command_line_on_a_file(judge, tmp_path):
    data = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    env = dict(os.environ, STUBSVC_BASE_URL=judge.base_url, STUBSVC_API_KEY="not-a-real-key")
    command = [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/vert", "--model", "none"]
    command += ["--model-role", f"grader={JUDGE}", "-T", f"data={data}", "--log-dir", str(tmp_path / "cli")]
    done = subprocess.run(
        [*command, "--display", "none"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (cli,) = [read_eval_log(path) for path in list_eval_logs(str(tmp_path / "cli"))]
    rows = [{k: v for k, v in row.items() if k not in ("id", "candidate")} for row in ROWS]
    result = score(
        rows, [r["candidate"] for r in ROWS], "vert", judge=JUDGE, ids=[r["id"] for r in ROWS], log_dir=tmp_path / "api"
    )
    logged = {str(s.id): s.scores["report_judge"].value for s in cli.samples}
    assert all(logged[s.id].keys() == s.value.keys() for s in result.samples)
    assert all(_same(float(logged[s.id][k]), v) for s in result.samples for k, v in s.value.items())
    assert len({s.value["vert"] for s in result.samples}) >= 3
