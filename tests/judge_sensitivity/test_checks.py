"""Reading the rewriting model's answers strictly, and the code checks on the variants they describe."""

from __future__ import annotations

import json

import pytest

from radiology_tasks.scorers.judge_sensitivity.answers import (
    Differences,
    InjectionAnswer,
    ParaphraseAnswer,
    Verdict,
    read_json_answer,
)
from radiology_tasks.scorers.judge_sensitivity.checks import check_injection, check_paraphrase
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences

REFERENCE = split_sentences("Small left pleural effusion. No pneumothorax. Heart size is normal.")


def change(index: int, original: str, modified: str) -> dict:
    return {"sentence_index": index, "original": original, "modified": modified, "explanation": "an error"}


def injection(changes: list[dict], report: str) -> InjectionAnswer:
    return InjectionAnswer.model_validate({"changes_detail": changes, "modified_report": report})


def test_a_valid_injection_gives_the_modified_report() -> None:
    answer = injection(
        [change(1, "No pneumothorax.", "Small right pneumothorax.")],
        "Small left pleural effusion. Small right pneumothorax. Heart size is normal.",
    )
    result = check_injection(REFERENCE, answer, 1, deletions=False)
    assert (result.text, result.problem) == (answer.modified_report, None)


@pytest.mark.parametrize(
    ("changes", "report", "n", "deletions", "problem"),
    [
        (
            [change(1, "No pneumothorax.", "Small pneumothorax.")],
            "Small left pleural effusion. Small pneumothorax. Heart size is normal.",
            2,
            False,
            "wrong_change_count",
        ),
        ([change(3, "Heart size is normal.", "Big heart.")], "x", 1, False, "sentence_out_of_range"),
        (
            [change(1, "No pneumothorax.", "A."), change(1, "No pneumothorax.", "B.")],
            "x",
            2,
            False,
            "sentence_changed_twice",
        ),
        ([change(1, "No pneumothorax", "Small pneumothorax.")], "x", 1, False, "original_mismatch"),
        ([change(1, "No pneumothorax.", " No pneumothorax. ")], "x", 1, False, "sentence_unchanged"),
        (
            [change(0, "Small left pleural effusion.", "")],
            "No pneumothorax. Heart size is normal.",
            1,
            False,
            "deletion_not_allowed",
        ),
        (
            [
                change(0, "Small left pleural effusion.", ""),
                change(1, "No pneumothorax.", ""),
                change(2, "Heart size is normal.", ""),
            ],
            "",
            3,
            True,
            "nothing_left",
        ),
        (
            [change(1, "No pneumothorax.", "Small right pneumothorax.")],
            "Small left pleural effusion. Small right pneumothorax. Heart size is mildly enlarged.",
            1,
            False,
            "report_mismatch",
        ),
        (
            [change(1, "No pneumothorax.", "Small right pneumothorax.")],
            "Small left pleural effusion. Small left pneumothorax. Heart size is normal.",
            1,
            False,
            "report_mismatch",
        ),
    ],
)
def test_injections_that_break_a_rule_are_refused_with_its_code(changes, report, n, deletions, problem) -> None:
    result = check_injection(REFERENCE, injection(changes, report), n, deletions=deletions)
    assert result.text is None
    assert result.problem == problem


def test_an_omission_may_delete_its_sentence() -> None:
    answer = injection([change(0, "Small left pleural effusion.", "")], "No pneumothorax. Heart size is normal.")
    assert check_injection(REFERENCE, answer, 1, deletions=True).text == "No pneumothorax. Heart size is normal."


def paraphrase(rewrites: dict[int, str]) -> ParaphraseAnswer:
    items = [{"sentence_index": i, "paraphrase": text} for i, text in rewrites.items()]
    return ParaphraseAnswer.model_validate({"sentences": items})


def test_a_paraphrase_is_assembled_from_its_rewrites_with_the_reference_whitespace() -> None:
    reference = split_sentences("Effusion on the left.\nNo pneumothorax.  Normal heart.")
    answer = paraphrase({2: "The heart is normal.", 0: "Left pleural effusion.", 1: " There is no pneumothorax. "})
    result = check_paraphrase(reference, answer)
    assert result.text == "Left pleural effusion.\nThere is no pneumothorax.  The heart is normal."


@pytest.mark.parametrize(
    ("rewrites", "problem"),
    [
        ({0: "Left effusion.", 1: "No pneumothorax."}, "wrong_sentence_count"),
        ({0: "Left effusion.", 1: "No pneumothorax.", 3: "Normal heart."}, "sentence_out_of_range"),
        ({0: "Left effusion.", 1: "  ", 2: "Normal heart."}, "sentence_dropped"),
        (
            {0: "Small left pleural effusion.", 1: "No pneumothorax.", 2: "Heart size is normal."},
            "report_unchanged",
        ),
    ],
)
def test_paraphrases_that_drop_or_skip_a_sentence_are_refused(rewrites: dict[int, str], problem: str) -> None:
    result = check_paraphrase(REFERENCE, paraphrase(rewrites))
    assert (result.text, result.problem) == (None, problem)


def test_a_sentence_rewritten_twice_is_refused() -> None:
    items = [{"sentence_index": i, "paraphrase": "Reworded."} for i in (0, 1, 1)]
    answer = ParaphraseAnswer.model_validate({"sentences": items})
    assert check_paraphrase(REFERENCE, answer).problem == "sentence_changed_twice"


VALID_VERDICT = '{"plausible": false, "reason": "thyroid finding on a knee MRI"}'


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty_answer"),
        ("The change is plausible.", "invalid_json"),
        ('Sure! {"plausible": true, "reason": "ok"}', "invalid_json"),
        ('{"plausible": "true", "reason": "ok"}', "wrong_shape"),
        ('{"plausible": 1, "reason": "ok"}', "wrong_shape"),
        ('{"plausible": true}', "wrong_shape"),
        ('{"plausible": true, "reason": "ok", "severity": ""}', "wrong_shape"),
        ('["plausible", true]', "wrong_shape"),
    ],
)
def test_answers_are_read_strictly(answer: str, reason: str) -> None:
    reading = read_json_answer(answer, Verdict)
    assert reading.value is None
    assert reading.reason == reason
    assert reading.problems["answer"].startswith(f"{reason}: ")


def test_a_code_fence_around_the_whole_answer_is_the_only_allowance() -> None:
    fenced = f"```json\n{VALID_VERDICT}\n```"
    assert read_json_answer(fenced, Verdict).value == Verdict(plausible=False, reason="thyroid finding on a knee MRI")
    assert read_json_answer(VALID_VERDICT, Verdict).problems == {}


def test_a_string_index_is_not_a_number() -> None:
    answer = json.dumps({"changes_detail": [change(1, "a", "b") | {"sentence_index": "1"}], "modified_report": "x"})
    reading = read_json_answer(answer, InjectionAnswer)
    assert reading.problems["answer"].startswith("wrong_shape: changes_detail.0.sentence_index")


def test_an_empty_list_of_differences_reads() -> None:
    assert read_json_answer('{"differences": []}', Differences).value == Differences(differences=[])
