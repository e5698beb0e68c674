"""`radiology-tasks perturb` and `sensitivity-set`: variants made once, reloaded by every task without an injector."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.cli import main
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.rows import DataError
from radiology_tasks.green_vert.tasks import vert
from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity
from radiology_tasks.solvers.judge_sensitivity.rows import PERTURB_FIELDS
from tests.judge_answers import assessment
from tests.judge_sensitivity.stub_models import injection, kind_of, prompt_of
from tests.judge_sensitivity.test_task import REFERENCES, ROLES, metrics_of, run, stub
from tests.openai_stub import openai_stub
from tests.report_values import report_values


@pytest.fixture
def references(pairs_file):
    qa = [{"question": "How large is the nodule?", "answer": "8 mm", "finding": "nodule", "attribute": "size"}]
    rows = [
        {"id": "R1", "reference": REFERENCES["R1"], "modality": "XR", "anatomy": "chest", "site": "A"},
        {"id": "R2", "reference": REFERENCES["R2"], "modality": "CT", "anatomy": "chest", "qa": qa},
        {"id": "R2-copy", "reference": REFERENCES["R2"], "candidate": "A candidate of the same reference."},
    ]
    return str(pairs_file(rows))


def cli(arguments: list[str], reply, monkeypatch, capsys) -> tuple[int, str, Counter]:
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "none")
        code = main([*arguments, "--injector", ROLES["injector"], "--display", "none"])
    return code, capsys.readouterr().out, Counter(kind_of(prompt_of(r)) for r in server.requests)


def read_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_perturb_writes_the_variants_the_task_then_judges_without_an_injector(
    monkeypatch, capsys, tmp_path, references
) -> None:
    out = tmp_path / "variants.jsonl"
    arguments = ["perturb", "--data", references, "--out", str(out), "--categories", "a,b", "--max-errors", "2"]
    arguments += ["--log-dir", str(tmp_path / "logs")]
    code, printed, calls = cli(arguments, stub(), monkeypatch, capsys)
    assert code == 0
    rows = read_jsonl(out)
    assert [tuple(row) for row in rows] == [PERTURB_FIELDS] * 10  # 2 references x (2 types x 2 + 1 paraphrase)
    assert rows[0] == {
        "id": "R1:error-a-1",
        "source_id": "R1",
        "reference": REFERENCES["R1"],
        "candidate": REFERENCES["R1"].replace("effusion.", "effusion, variant a1.", 1),
        "kind": "error",
        "category": "a",
        "n_errors": 1,
        "changes": [
            {
                "sentence_index": 0,
                "original": "Small left pleural effusion.",
                "modified": "Small left pleural effusion, variant a1.",
                "explanation": "added a mass",
            }
        ],
    }
    paraphrase = next(row for row in rows if row["id"] == "R2:paraphrase-1")
    assert (paraphrase["category"], paraphrase["n_errors"], paraphrase["changes"]) == (None, 0, [])
    assert calls == Counter({"inject": 8, "plausibility": 8, "paraphrase": 2, "paraphrase_check": 2})
    assert f"wrote 10 rows to {out}" in printed and "references written: 2; variants excluded: 0" in printed

    # Two judges on the identical set: no injector call, the variants exactly as written.
    for prompt in ("vert", "green"):
        log, server = run(judge_sensitivity(data=str(out), prompt=prompt), stub(), monkeypatch)
        assert {r["model"] for r in server.requests} == {"judge"}
        assert {s.id: s.output.completion for s in log.samples} == {r["id"]: r["candidate"] for r in rows}
        assert log.eval.task_args["data"] == str(out)
        assert report_values(log)["excluded"] == 0.0
    assert metrics_of(log)["judge_count_n2_variants"] == 4.0


def test_perturb_reports_each_excluded_variant_with_its_reason(monkeypatch, capsys, tmp_path, references) -> None:
    out = tmp_path / "variants.jsonl"
    arguments = ["perturb", "--data", references, "--out", str(out), "--categories", "c", "--max-errors", "1"]
    arguments += ["--paraphrases", "0", "--attempts", "2", "--limit", "1", "--log-dir", str(tmp_path)]
    code, printed, _ = cli(arguments, stub(inject=lambda p: injection(p, changed=[0, 1])), monkeypatch, capsys)
    assert code == 0 and read_jsonl(out) == []
    assert "excluded R1:error-c-1: failed_check (wrong_change_count: asked for 1 changed sentences, got 2)" in printed


def test_sensitivity_set_writes_paired_pos_and_neg_sets_that_every_task_loads(
    monkeypatch, capsys, tmp_path, references
) -> None:
    def attribute(prompt: str) -> str:
        return injection(prompt, changed=[0], change=lambda s: s.replace("8 mm", "14 mm").replace("left", "right"))

    code, printed, calls = cli(
        ["sensitivity-set", "--data", references, "--out", str(tmp_path / "sets"), "--log-dir", str(tmp_path)],
        stub(inject=attribute),
        monkeypatch,
        capsys,
    )
    assert code == 0
    assert calls == Counter({"paraphrase": 2, "paraphrase_check": 2, "inject": 2, "plausibility": 2})
    pos, neg = read_jsonl(tmp_path / "sets" / "pos.jsonl"), read_jsonl(tmp_path / "sets" / "neg.jsonl")
    assert [r["id"] for r in pos] == ["R1-pos", "R2-pos"] and [r["id"] for r in neg] == ["R1-neg", "R2-neg"]
    assert neg[1]["candidate"] == REFERENCES["R2"].replace("8 mm", "14 mm")
    assert neg[1]["edits"][0]["original"] == "Right upper lobe nodule measures 8 mm." and neg[1]["n_edits"] == 1
    assert (
        pos[1]["qa"]
        == neg[1]["qa"]
        == [{"question": "How large is the nodule?", "answer": "8 mm", "finding": "nodule", "attribute": "size"}]
    )
    assert "qa" not in pos[0] and (pos[0]["modality"], pos[0]["kind"], pos[0]["source_id"]) == ("XR", "pos", "R1")
    assert "injector log:" in printed

    # The standard loader takes the rows as report pairs; the extra fields are kept as metadata.
    loaded = load_pairs(str(tmp_path / "sets" / "neg.jsonl")).pairs
    assert loaded[1].qa[0].answer == "8 mm" and loaded[1].metadata["kind"] == "neg"
    with openai_stub(lambda body: assessment({"d": 1}, 2, 0.5)) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        (log,) = inspect_eval(
            vert(data=str(tmp_path / "sets" / "neg.jsonl")),
            model="none",
            model_roles={"grader": ROLES["grader"]},
            display="none",
        )
    assert log.status == "success" and log.results.scores[0].metrics["vert_mean"].value == 0.5


def test_a_reference_whose_neg_edit_fails_is_left_out_of_both_sets(monkeypatch, capsys, tmp_path, references) -> None:
    def attribute(prompt: str) -> str:
        if "Heart size" in prompt:
            return "no edit possible"
        return injection(prompt, changed=[0], change=lambda s: s.replace("8 mm", "14 mm"))

    arguments = ["sensitivity-set", "--data", references, "--out", str(tmp_path), "--attempts", "1"]
    code, printed, _ = cli([*arguments, "--log-dir", str(tmp_path)], stub(inject=attribute), monkeypatch, capsys)
    assert code == 0
    assert [r["id"] for r in read_jsonl(tmp_path / "pos.jsonl")] == ["R2-pos"]
    assert [r["id"] for r in read_jsonl(tmp_path / "neg.jsonl")] == ["R2-neg"]
    assert "excluded R1:attribute-1: invalid_answer (invalid_json: " in printed
    assert "references written: 1; variants excluded: 1" in printed


def test_bad_command_options_print_one_line(capsys, tmp_path) -> None:
    out = str(tmp_path / "x.jsonl")
    assert main(["perturb", "--injector", "none/none", "--out", out, "--categories", "z"]) == 2
    assert "unknown error categories ['z']" in capsys.readouterr().err
    assert main(["sensitivity-set", "--injector", "none/none", "--out", out, "--edits", "0"]) == 2
    assert "--edits must be at least 1" in capsys.readouterr().err
    assert main(["perturb", "--injector", "none/none", "--out", out, "--attempts", "0"]) == 2
    assert "injector attempts (-T injector_attempts, --attempts) must be at least 1" in capsys.readouterr().err


def hand_written(pairs_file, **changes) -> str:
    row = {"id": "v1", "source_id": "R1", "reference": REFERENCES["R1"], "candidate": "Changed.", "kind": "error"}
    return str(pairs_file([row | {"category": "a", "n_errors": 1} | changes]))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"category": None}, "an error variant needs a category a-f"),
        ({"kind": "paraphrase"}, "a paraphrase has category null and n_errors 0"),
        ({"kind": "swap"}, "kind: Input should be 'error' or 'paraphrase'"),
        ({"source_id": ""}, "source_id: String should have at least 1 character"),
        ({"candidate": None}, "candidate: missing"),
    ],
)
def test_hand_written_variant_rows_are_checked(pairs_file, changes, message) -> None:
    with pytest.raises(DataError, match=f"row id 'v1': {message}"):
        judge_sensitivity(data=hand_written(pairs_file, **changes))


def test_generation_parameters_with_a_variants_file_are_refused(pairs_file) -> None:
    with pytest.raises(InputError, match="-T categories, -T max_errors shape variants the injector makes"):
        judge_sensitivity(data=hand_written(pairs_file), categories="a", max_errors=2)


def test_bad_variant_rows_can_be_skipped_and_are_counted(pairs_file) -> None:
    rows = [
        {"id": "ok", "source_id": "R1", "reference": REFERENCES["R1"], "candidate": "Changed.", "kind": "error"}
        | {"category": "a", "n_errors": 1},
        {"id": "bad", "source_id": "R1", "reference": REFERENCES["R1"], "candidate": "Also.", "kind": "error"}
        | {"category": "a", "n_errors": 1},
    ]
    task = judge_sensitivity(data=str(pairs_file(rows)), on_bad_rows="skip")
    assert [s.id for s in task.dataset] == ["ok"]
    assert task.metadata["variant_rows_skipped"] == [
        {"id": "bad", "reason": "a second error variant of 'R1' with category and n_errors ('a', 1)"}
    ]
    assert task.metadata["variants_from"] == "data"
