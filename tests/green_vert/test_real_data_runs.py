"""Real tasks run on files in the public datasets' own layouts, through -T data=FOLDER and -T data=FILE."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, get_model

from radiology_tasks.core.layouts import ResolvedData, resolve_local
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.green_vert.tasks import green, vert
from tests.judge_answers import assessment, mock_output
from tests.real_layouts import radeval_copy, rexrank_file, rexval_copy
from tests.report_values import report_values

pytestmark = pytest.mark.slow


def judge_answers() -> Iterator[ModelOutput]:
    """A judge whose counts and scores vary from call to call, so correlations are defined."""
    for n in itertools.count():
        yield mock_output(assessment({"b": n % 3}, matched=2, score=round(1 - (n % 4) / 4, 2)))


def run(task: Any, tmp_path: Path) -> EvalLog:
    judge = get_model("mockllm/model", custom_outputs=judge_answers())
    (log,) = inspect_eval(
        task, model="none", model_roles={"grader": judge}, display="none", log_dir=str(tmp_path / "logs")
    )
    assert log.status == "success", log.error
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    """Every figure of the run, as the report computes it from the log."""
    return report_values(log)


@pytest.mark.parametrize("as_file", [False, True], ids=["folder", "file"])
def test_radeval_with_broken_cells_judges_every_candidate(tmp_path: Path, as_file: bool) -> None:
    csv_file = radeval_copy(tmp_path / "RadEvalExpertDataset")
    data = csv_file if as_file else csv_file.parent
    log = run(vert(data=str(data)), tmp_path)

    assert log.samples is not None and len(log.samples) == 9
    assert all(not (s.scores or {})["report_judge"].metadata.get("unscored") for s in log.samples)
    summary = log.eval.metadata["data"]
    assert (summary["layout"], summary["rows_used"], summary["rows_skipped"]) == ("radeval-expert", 9, 0)
    assert summary["annotations_unreadable"] == 2
    assert summary["unreadable_annotations"] == [
        {
            "id": "001-c2",
            "row": 1,
            "annotation": "annotation2",
            "category": "2. Omission of finding",
            "problem": "the 'significant' count is missing",
        },
        {
            "id": "003-c1",
            "row": 3,
            "annotation": "annotation1",
            "category": "4. Incorrect severity of finding",
            "problem": "the 'insignificant' count 'few' is not a whole number",
        },
    ]
    by_id = {s.id: s for s in log.samples}
    assert by_id["001-c2"].metadata["expert"] is None
    assert by_id["001-c3"].metadata["metadata"]["significant_inarticulate"] == 0
    assert by_id["001-c3"].metadata["metadata"]["insignificant_inarticulate"] == 1
    assert by_id["001-c3"].metadata["expert"]["insignificant"] == dict.fromkeys("abcdef", 0)
    values = metrics(log)
    # Agreement uses the seven candidates whose annotation could be read.
    assert values["vert_vs_errors_n_pairs"] == 7 and values["vert_vs_errors_n_no_expert"] == 2
    assert values["f1_n_reports"] == 7
    fingerprint = summary["fingerprint"]
    assert fingerprint["layout"] == "radeval-expert" and fingerprint["origin"] == "local"
    assert fingerprint["files"] == {csv_file.name: fingerprint["data_sha256"]}


def rexval_errors() -> dict[tuple[int, str, int, int, bool], int]:
    """Significant errors that grow from candidate to candidate of study 1, and a few insignificant ones."""
    errors = {(1, "bertscore", 2, rater, True): 1 for rater in range(3)}
    errors |= {(1, "s_emb", 1, rater, True): 2 for rater in range(6)}
    errors |= {(1, "bleu", 2, rater, True): 3 for rater in range(6)}
    errors |= {(0, "radgraph", 5, 0, False): 1}
    return errors


def test_rexval_counts_are_rater_means_and_green_ec_is_compared_with_them(tmp_path: Path) -> None:
    folder = rexval_copy(tmp_path / "rexval-dataset" / "1.0.0", rexval_errors())
    pairs = {p.id: p for p in load_pairs(str(folder)).pairs}
    assert len(pairs) == 8
    assert pairs["1-bertscore"].expert.significant.as_dict() == {**dict.fromkeys("abcdef", 0.0), "b": 0.5}
    assert pairs["1-bertscore"].expert.raters == 6
    assert pairs["1-bleu"].expert.significant.total == 3.0
    assert pairs["0-radgraph"].expert.insignificant.as_dict()["e"] == pytest.approx(1 / 6)
    assert pairs["0-radgraph"].metadata["rater_counts"]["0"]["insignificant"]["e"] == 1
    assert pairs["0-radgraph"].metadata["study_id"] == "53780576"

    log = run(green(data=str(folder / "50_samples_gt_and_candidates.csv")), tmp_path)
    values = metrics(log)
    assert values["green_ec_vs_errors_n_pairs"] == 8
    assert -1 <= values["green_ec_vs_errors_kendall_tau"] <= 1
    # Per-category matches need whole counts: the rater means take part in the tau only.
    assert "f1_n_reports" not in values
    assert log.eval.metadata["data"]["layout"] == "rexval"
    assert set(log.eval.metadata["data"]["fingerprint"]["files"]) == {
        "50_samples_gt_and_candidates.csv",
        "6_valid_raters_per_rater_error_categories.csv",
    }


def test_a_rexval_mean_that_no_rater_could_give_is_refused(tmp_path: Path) -> None:
    folder = rexval_copy(tmp_path / "rexval", {})
    rows = list(resolve_local(folder).rows(_options()))
    number, row = rows[0]
    row = {**row, "significant_a": 0.25}
    from radiology_tasks.core.rows import pair_from_row
    from radiology_tasks.core.tables import DataError

    with pytest.raises(DataError, match=r"error count 0\.25 of category \(a\) is not the mean over 6 raters"):
        pair_from_row(row, source="rexval", row_number=number)
    with pytest.raises(DataError, match="expected a non-negative whole number"):
        pair_from_row({**row, "expert_raters": None}, source="rexval", row_number=number)


def _options() -> Any:
    return DataOptions()


@pytest.mark.parametrize(
    ("track", "ids", "left_out"),
    [("findings", ["50051329", "58765432"], 1), ("findings_impression", ["50051329", "58765432", "59999999"], 0)],
)
def test_rexrank_prediction_file_runs_as_data(tmp_path: Path, track: str, ids: list[str], left_out: int) -> None:
    path = rexrank_file(tmp_path / "MIMIC-CXR_predictions.json")
    log = run(vert(data=str(path), track=track), tmp_path)
    assert log.samples is not None
    assert sorted(str(s.id) for s in log.samples) == ids
    summary = log.eval.metadata["data"]
    assert (summary["layout"], summary["track"], summary["rows_left_out"]) == ("rexrank", track, left_out)
    by_id = {str(s.id): s for s in log.samples}
    assert by_id["50051329"].metadata["candidate"] == "Lungs are clear. No effusion."
    if track == "findings_impression":
        assert by_id["58765432"].target == (
            "Findings: Endotracheal tube 4 cm above the carina.\nMild vascular congestion. Impression: None"
        )
    else:
        assert summary["left_out"] == [{"row": 3, "id": "59999999", "reason": "no section_findings (track findings)"}]


def test_rexrank_predictions_as_candidates_join_by_study_id(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    data = tmp_path / "references.jsonl"
    data.write_text(
        '{"id": "50051329", "reference": "The lungs are clear."}\n'
        '{"id": "58765432", "reference": "Endotracheal tube in place."}\n'
        '{"id": "59999999", "reference": "Right upper lobe pneumonia."}\n',
        encoding="utf-8",
    )
    loaded = load_pairs(str(data), candidates=str(path))
    assert [(p.id, p.candidate) for p in loaded.pairs] == [
        ("50051329", "Lungs are clear. No effusion."),
        ("58765432", "ET tube in standard position. Mild congestion."),
        ("59999999", "Right upper lobe consolidation."),
    ]


def test_track_applies_only_to_data_with_report_sections(tmp_path: Path) -> None:
    from radiology_tasks.core.errors import InputError

    with pytest.raises(InputError, match=r"^-T track applies to data with several report sections"):
        load_pairs("demo", track="findings")
    with pytest.raises(InputError, match=r"^-T track must be one of findings, findings_impression; got 'impression'"):
        load_pairs(str(rexrank_file(tmp_path / "p.json")), track="impression")


def test_the_recognised_layout_of_each_copy(tmp_path: Path) -> None:
    copies: dict[str, ResolvedData] = {
        "radeval-expert": resolve_local(radeval_copy(tmp_path / "radeval").parent),
        "rexval": resolve_local(rexval_copy(tmp_path / "rexval", {})),
        "rexrank": resolve_local(rexrank_file(tmp_path / "rexrank" / "preds.json")),
    }
    assert {name: data.layout.name for name, data in copies.items()} == {name: name for name in copies}
