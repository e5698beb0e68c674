"""Re-scoring a real judge_sensitivity log from the judge answers it stores, and ranking its judge per reference.

The runs are the hand-worked set of `tests.judge_sensitivity.hand_worked`, judged by the stub served on
127.0.0.1 (as in `test_task`); the checks mirror what the leaderboard does with a family's `Rescoring`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.core.family import family_of
from radiology_tasks.judge_sensitivity.family import FAMILY
from radiology_tasks.judge_sensitivity.rescoring import RESCORING
from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity
from radiology_tasks.leaderboard.checks import run_violations
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.rescore import rescoring_violations
from tests.conftest import write_jsonl
from tests.judge_sensitivity.hand_worked import EXPECTED
from tests.judge_sensitivity.test_task import REFERENCES, ROLES, stub
from tests.leaderboard.runs import edited
from tests.openai_stub import openai_stub

violations = rescoring_violations


def _run(root: Path, **args: object) -> Path:
    rows = [{"id": k, "reference": v, "modality": "CT", "anatomy": "chest"} for k, v in REFERENCES.items()]
    data = write_jsonl(root / "references.jsonl", rows)
    with pytest.MonkeyPatch.context() as monkeypatch, openai_stub(stub()) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "none")
        (log,) = inspect_eval(
            judge_sensitivity(data=str(data), **args),
            model="none",
            model_roles=ROLES,
            display="none",
            log_dir=str(root / "logs"),
        )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def one_pass(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield _run(tmp_path_factory.mktemp("one-pass"))


@pytest.fixture(scope="module")
def two_pass(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield _run(tmp_path_factory.mktemp("two-pass"), passes=2, categories="a", max_errors=1)


def test_the_family_declares_its_rescoring_and_records_what_the_leaderboard_needs(one_pass):
    assert family_of("judge_sensitivity").rescoring("judge_sensitivity") is RESCORING
    run = read_run(one_pass)
    assert run.task_version == FAMILY.version == "1.6.0"
    assert run.fingerprint["data_sha256"] and run.templates
    assert RESCORING.ranked(run).key == "vert"
    scored = [s.values["vert"] for s in run.samples if s.values.get("vert") is not None]
    assert run.results["vert_mean"] == pytest.approx(sum(scored) / len(scored))


@pytest.mark.parametrize("log", ["one_pass", "two_pass"])
def test_an_honest_log_passes(log, request):
    run = read_run(request.getfixturevalue(log))
    assert violations(run) == []
    assert all(RESCORING.answers(s) for s in run.samples if not (s.metadata.get("variant") or {}).get("excluded"))


def test_an_edited_score_is_caught_naming_the_sample(one_pass):
    def forge(log: EvalLog) -> None:
        score = next(s for s in log.samples if s.id == "R2:error-a-1").scores["sensitivity_judge"]
        score.value = {**score.value, "vert": 0.1}

    lines = violations(read_run(edited(one_pass, forge, "forged.eval")))
    # The forged score also makes R2 a1 penalised (0.1 < 0.70), so the samples give other run figures.
    assert lines == [
        "sample R2:error-a-1: logged vert 0.1 but its stored judge answer gives 0.7",
        "results: discrimination 0.8 is not what the samples' judge answers give (0.9)",
        f"results: balance {0.8 / 1.3:.6g} is not what the samples' judge answers give ({0.9 / 1.4:.6g})",
    ]


def test_an_edited_answer_is_caught_naming_the_sample(one_pass):
    def rewrite(log: EvalLog) -> None:
        score = next(s for s in log.samples if s.id == "R1:error-b-1").scores["sensitivity_judge"]
        score.metadata["judge_answer"] = score.metadata["judge_answer"].replace("0.95", "0.55")

    lines = violations(read_run(edited(one_pass, rewrite, "rewritten.eval")))
    assert "sample R1:error-b-1: the stored judge answer is not one the judge returned in this run" in lines
    assert "sample R1:error-b-1: logged vert 0.95 but its stored judge answer gives 0.55" in lines


def test_an_edited_run_figure_is_caught(one_pass):
    def inflate(log: EvalLog) -> None:
        metrics = log.results.scores[0].metrics
        metrics["balance"].value = 0.99

    lines = violations(read_run(edited(one_pass, inflate, "inflated.eval")))
    assert lines == [f"results: balance 0.99 is not what the samples' judge answers give ({EXPECTED['balance']:.6g})"]


def test_edited_two_pass_differences_are_caught(two_pass):
    def relist(log: EvalLog) -> None:
        score = next(s for s in log.samples if s.id == "R1:error-a-1").scores["sensitivity_judge"]
        score.metadata["differences"] = ["nothing differs"]

    lines = violations(read_run(edited(two_pass, relist, "relisted.eval")))
    assert lines == ["sample R1:error-a-1: the stored differences are not what its first-pass judge answer lists"]


def test_judge_measures_are_per_reference_shares_as_worked_out_by_hand(one_pass):
    # R1: a1, a2 (0.75 < 0.90), a3 and b2 penalised, b1 (0.95) not, b3 excluded: 4/5; its paraphrase is clean.
    # R2: a1 (0.70, not below 0.70) not, a2, a3, b2, b3 penalised, b1 unreadable: 4/5; its paraphrase has (d).
    measures = RESCORING.judge_measures(read_run(one_pass))
    assert list(measures) == ["balance", "discrimination", "robustness"]
    assert measures["discrimination"] == pytest.approx({"R1": 0.8, "R2": 0.8})
    assert measures["robustness"] == {"R1": 1.0, "R2": 0.0}
    assert measures["balance"] == pytest.approx({"R1": 2 * 0.8 / 1.8, "R2": 0.0})


def test_honest_logs_pass_every_submission_check(one_pass, two_pass):
    assert run_violations(read_run(two_pass)) == []
    # The hand-worked set has one answer the judge left unreadable, and one variant the injector could not make:
    # the first is unscored (the judge's failure counts), the second is left out of the count by design.
    assert run_violations(read_run(one_pass)) == ["1 of 13 samples (7.7%) are unscored, above --max-unscored 2.0%"]
    assert run_violations(read_run(one_pass), max_unscored=0.1) == []


def _stored_attempts(metadata: dict) -> list[dict]:
    return [*(metadata.get("differences_attempts") or []), *(metadata.get("judge_attempts") or [])]


@pytest.mark.parametrize("log", ["one_pass", "two_pass"])
def test_a_log_from_before_attempts_recorded_token_counted_truncation_still_re_scores(log, request):
    """Attempts logged before `truncated_by_tokens` existed lack it; such a log re-scores as it did."""
    path = request.getfixturevalue(log)
    assert any(_stored_attempts(s.metadata) for s in read_run(path).samples)
    assert all("truncated_by_tokens" in a for s in read_run(path).samples for a in _stored_attempts(s.metadata))

    def before(log: EvalLog) -> None:
        for sample in log.samples or []:
            for attempt in _stored_attempts(sample.scores["sensitivity_judge"].metadata or {}):
                del attempt["truncated_by_tokens"]

    run = read_run(edited(path, before, "before-the-field.eval"))
    assert not any("truncated_by_tokens" in a for s in run.samples for a in _stored_attempts(s.metadata))
    assert violations(run) == []
