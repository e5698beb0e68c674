"""A CRIMSON run submitted redacted: no report or answer text in the bundle, re-scored from its parsed answers.

The scripted judge names its findings and explains its attribute error in single words, which the redaction's rule
for free text (whitespace, or long) would keep; the family's parsed answers hash them, and the search below looks
for them as well as for every reference, candidate, judge answer and run of eight consecutive words of one.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.crimson import parsed
from radiology_tasks.crimson.records import CrimsonRecord
from radiology_tasks.crimson.rescoring import RESCORING
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.checks import run_violations
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.redact import HASH_ONLY, HASH_ONLY_UNCHECKED_DATA, HASH_PREFIX, redact_log, text_hash
from radiology_tasks.leaderboard.rescore import rescoring_violations
from radiology_tasks.leaderboard.rules import PARSED_ANSWERS
from radiology_tasks.leaderboard.verify import original_lines, verify_bundle
from radiology_tasks.scorers.crimson.reading import read_crimson
from tests.crimson.answers import SIMPLE
from tests.crimson.stub_judge import readable_reply, reply
from tests.crimson.test_task import run
from tests.leaderboard.credentialed_runs import leaks, secret_texts
from tests.leaderboard.runs import edited
from tests.leaderboard.test_verify import tampered

TERMS = {"R1": "Hydropneumothorax", "R2": "Pneumomediastinum", "P1": "Cardiomegaly", "P2": "Bronchiectasis"}
"""The one-word finding text the scripted judge gives each finding id."""

EXPLANATION = "Laterality"
"""The one-word explanation of the scripted judge's attribute error."""

SCORES = {"a": 1.0, "b": 2 / 3, "c": 0.5, "d": 0.0}


def worded_reply(body: dict[str, Any]) -> str:
    """`readable_reply`, with each finding text and explanation one word."""
    answer = json.loads(readable_reply(body))
    for side in ("reference_findings", "predicted_findings"):
        for finding in answer[side]:
            finding["finding"] = TERMS[finding["id"]]
    for error in answer["errors"]["attribute_errors"]:
        error["explanation"] = EXPLANATION
    return json.dumps(answer)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as monkeypatch:
        log, _ = run(monkeypatch, tmp_path_factory.mktemp("original"), worded_reply)
    return Path(log.location)


@pytest.fixture(scope="module")
def bundles(original: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the whole bundle, the redacted bundle) of the run."""
    folder = tmp_path_factory.mktemp("bundles")
    whole = write_bundle([original], folder / "whole", SystemCard(name="system a")).parent
    redacted = write_bundle([original], folder / "redacted", SystemCard(name="system a"), redact=True).parent
    return whole, redacted


def _redacted_log(bundles: tuple[Path, Path], original: Path) -> Path:
    return bundles[1] / "logs" / original.name


def _forged(path: Path, change: Callable[[EvalLog], None], folder: Path) -> Path:
    """A changed copy of the log at `path`, written in `folder` as ``forged.eval``."""
    copy = shutil.copy(path, folder / "source.eval")
    return edited(Path(copy), change, "forged.eval")


def _score(log: EvalLog, sample_id: str) -> Any:
    assert log.samples is not None
    scores = next(s for s in log.samples if s.id == sample_id).scores
    assert scores is not None
    return scores["crimson_judge"]


def test_the_kept_answer_uses_the_leaderboard_s_key_and_hash():
    assessment = read_crimson(SIMPLE).assessment
    assert assessment is not None and PARSED_ANSWERS in CrimsonRecord.model_fields
    kept = parsed.kept_answer(assessment)
    assert kept["reference_findings"][0]["finding"] == text_hash("finding R1")
    assert kept["errors"]["attribute_errors"][0]["explanation"] == text_hash("the details differ")


def test_the_redacted_bundle_holds_no_report_answer_or_finding_text(original, bundles):
    whole, redacted = bundles
    secrets = secret_texts([original])
    assert len(secrets) == 2 + 4 + 4, "two references, four candidates and four judge answers to look for"
    texts = secrets | set(TERMS.values()) | {EXPLANATION}
    assert leaks(redacted, texts) == []
    found = leaks(whole, texts)
    for term in texts:
        assert any(line.endswith(f"{term[:60]!r}") for line in found), f"the search cannot find {term!r}"


def test_the_redacted_run_keeps_its_parsed_answers_with_texts_hashed_and_labels_kept(original, bundles):
    redacted = read_run(_redacted_log(bundles, original))
    assert redacted.redacted
    c = next(s for s in redacted.samples if s.id == "c")
    assert c.metadata["judge_answer"].startswith(HASH_PREFIX)
    kept = c.metadata[PARSED_ANSWERS]
    assert kept["reference_findings"] == [
        {"id": "R1", "finding": text_hash("Hydropneumothorax"), "clinical_significance": "actionable_not_urgent"}
    ]
    assert kept["matched_findings"] == [{"ref_id": "R1", "pred_id": "P1"}]
    (error,) = kept["errors"]["attribute_errors"]
    assert (error["severity"], error["error_types"], error["explanation"]) == (
        "significant",
        ["unspecific"],
        text_hash(EXPLANATION),
    )


def test_the_redacted_run_is_re_scored_from_its_parsed_answers_to_the_original_scores(original, bundles):
    redacted = read_run(_redacted_log(bundles, original))
    whole = read_run(original)
    assert run_violations(redacted) == []
    assert {s.id: s.values["crimson"] for s in redacted.samples} == pytest.approx(SCORES)
    assert {s.id: s.values for s in redacted.samples} == {s.id: s.values for s in whole.samples}
    assert {s.id: RESCORING.expected(redacted, s)["crimson"] for s in redacted.samples} == pytest.approx(SCORES)
    assert RESCORING.breakdown(redacted) == RESCORING.breakdown(whole) is not None


def test_the_redacted_bundle_ranks_with_its_label_and_the_whole_bundle_s_scores(bundles, tmp_path):
    whole, redacted = bundles
    settings = Settings(resamples=50)
    boards = [build_leaderboard([bundle], tmp_path / bundle.name, settings) for bundle in (whole, redacted)]
    assert [board["not_ranked"] for board in boards] == [[], []]
    (plain,), (hashed,) = ([e for b in board["boards"] for e in b["entries"]] for board in boards)
    assert hashed["score"] == plain["score"] == pytest.approx(sum(SCORES.values()) / 4)
    assert hashed["breakdown"] == plain["breakdown"] is not None
    assert (hashed["checks"], plain["checks"]) == (HASH_ONLY, "judge answers re-read")


def test_an_answer_that_did_not_read_is_unscored_in_the_redacted_run_too(tmp_path, monkeypatch):
    log, _ = run(monkeypatch, tmp_path, reply)
    bundle = write_bundle([Path(log.location)], tmp_path / "bundle", SystemCard(), max_unscored=0.5, redact=True)
    redacted = read_run(bundle.parent / "logs" / Path(log.location).name)
    c = next(s for s in redacted.samples if s.id == "c")
    assert PARSED_ANSWERS not in c.metadata and c.values == {"crimson": -1.0}
    assert rescoring_violations(redacted) == []


def _refused(path: Path) -> list[str]:
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([path], path.parent / "refused", SystemCard())
    return refused.value.lines


def test_a_forged_score_in_the_redacted_log_is_refused_naming_the_sample(original, bundles, tmp_path):
    def forge(log: EvalLog) -> None:
        _score(log, "b").value["crimson"] = 1.0

    lines = _refused(_forged(_redacted_log(bundles, original), forge, tmp_path))
    assert any(line.startswith("forged.eval: sample b: logged crimson 1 but its stored") for line in lines), lines


def _benign_r2(log: EvalLog) -> None:
    """b's parsed answer with its missing finding R2 made benign, which raises b's score from 2/3 to 1."""
    parsed = _score(log, "b").metadata[PARSED_ANSWERS]
    assert parsed["reference_findings"][1]["id"] == "R2"
    parsed["reference_findings"][1]["clinical_significance"] = "benign_expected"


def test_a_forged_parsed_answer_is_refused_naming_the_sample(original, bundles, tmp_path):
    lines = _refused(_forged(_redacted_log(bundles, original), _benign_r2, tmp_path))
    assert any(line.startswith("forged.eval: sample b: logged crimson 0.666667 but") for line in lines), lines


def test_a_parsed_answer_forged_with_its_score_is_refused_by_its_logged_outcome(original, bundles, tmp_path):
    def forge(log: EvalLog) -> None:
        _benign_r2(log)
        _score(log, "b").value["crimson"] = 1.0

    lines = _refused(_forged(_redacted_log(bundles, original), forge, tmp_path))
    assert not any(line.startswith("forged.eval: sample b: logged crimson") for line in lines), lines
    outcome = [line for line in lines if line.startswith("forged.eval: sample b: logged outcome ")]
    assert outcome and "n_g" in outcome[0] and "significance.reference.benign_expected" in outcome[0], lines


def test_a_parsed_answer_that_does_not_read_is_refused_naming_the_sample(original, bundles, tmp_path):
    def forge(log: EvalLog) -> None:
        _score(log, "b").metadata[PARSED_ANSWERS]["errors"]["missing_findings"] = []

    lines = _refused(_forged(_redacted_log(bundles, original), forge, tmp_path))
    assert (
        "forged.eval: sample b: the parsed answer it keeps does not read: reference finding R2 is neither matched "
        "nor missing" in lines
    ), lines


def test_a_whole_log_whose_kept_parsed_answer_is_not_its_answer_is_refused(original, tmp_path):
    lines = _refused(_forged(original, _benign_r2, tmp_path))
    assert "forged.eval: sample b: the parsed answer its score keeps is not its stored judge answer read" in lines


def test_a_whole_log_whose_outcome_is_not_its_answer_s_is_refused(original, tmp_path):
    def forge(log: EvalLog) -> None:
        _score(log, "a").metadata["crimson"]["e_false"] = 2.0

    lines = _refused(_forged(original, forge, tmp_path))
    assert "forged.eval: sample a: logged outcome e_false is not what its answer gives" in lines, lines


def test_verify_passes_the_honest_bundle_and_names_a_changed_answer_or_parsed_answer(original, bundles, tmp_path):
    _, redacted = bundles
    assert verify_bundle(redacted, originals=[original]) == []
    name = f"logs/{original.name}"

    def answer(log: EvalLog) -> None:
        _score(log, "d").metadata["judge_answer"] = text_hash("another answer")

    changed = tampered(redacted, tmp_path / "answer", answer)
    assert verify_bundle(changed, originals=[original]) == [
        f"{name}: sample d: scores.crimson_judge.metadata.judge_answer differs from the original log's"
    ]
    parsed = tampered(redacted, tmp_path / "parsed", _benign_r2)
    assert verify_bundle(parsed, originals=[original]) == [
        f"{name}: sample b: scores.crimson_judge.metadata.parsed_answers.reference_findings[1].clinical_significance "
        "differs from the original log's"
    ]


def test_verify_reads_each_original_answer_again_rather_than_trust_the_parsed_answer_it_logged(original, tmp_path):
    forged = _forged(original, _benign_r2, tmp_path)
    bundled = tmp_path / "bundled.eval"
    redact_log(forged, bundled, "--redact-text")  # a redaction keeping the parsed answers the log claims
    lines = original_lines(bundled, forged)
    assert (
        "sample b: scores.crimson_judge.metadata.parsed_answers.reference_findings[1].clinical_significance differs "
        "from the original log's" in lines
    ), lines
    assert "original: sample b: the parsed answer its score keeps is not its stored judge answer read" in lines


def test_a_parsed_answer_removed_from_the_redacted_log_leaves_a_logged_outcome_it_cannot_give(
    original, bundles, tmp_path
):
    def forge(log: EvalLog) -> None:
        del _score(log, "b").metadata[PARSED_ANSWERS]

    lines = _refused(_forged(_redacted_log(bundles, original), forge, tmp_path))
    assert "forged.eval: sample b: logs a CRIMSON outcome but its stored answer gives none" in lines, lines


def test_a_board_without_the_data_ranks_the_redacted_run_as_its_log_recorded_the_data(tmp_path, monkeypatch):
    log, _ = run(monkeypatch, tmp_path, worded_reply)
    bundle = write_bundle([Path(log.location)], tmp_path / "bundle", SystemCard(), redact=True).parent
    (tmp_path / "pairs.jsonl").unlink()
    board = build_leaderboard([bundle], tmp_path / "site", Settings(resamples=50))
    assert board["not_ranked"] == []
    (entry,) = (e for ranked in board["boards"] for e in ranked["entries"])
    assert entry["score"] == pytest.approx(sum(SCORES.values()) / 4)
    assert entry["checks"] == HASH_ONLY_UNCHECKED_DATA
