"""The strict reader: what it accepts, and each way an answer can break the contract, refused with where."""

from __future__ import annotations

import json
from typing import Any

import pytest

from radiology_tasks.scorers.crimson.reading import MAIN_KEY, read_crimson
from tests.crimson.answers import SIMPLE, answer_dict, attribute


def _edited(edit) -> str:
    data = json.loads(SIMPLE)
    edit(data)
    return json.dumps(data)


def test_a_consistent_answer_reads_with_every_part():
    reading = read_crimson(SIMPLE)
    assert reading.problem is None and reading.problems == {}
    assessment = reading.assessment
    assert assessment is not None
    assert [(f.id, f.significance) for f in assessment.reference] == [("R1", "urgent"), ("R2", "actionable_not_urgent")]
    assert [f.id for f in assessment.predicted] == ["P1", "P2"]
    assert assessment.matched == (("R1", "P1"),)
    assert (assessment.false_findings, assessment.missing_findings) == (("P2",), ("R2",))
    (error,) = assessment.attribute_errors
    assert (error.ref_id, error.pred_id, error.severity, error.error_types) == (
        "R1",
        "P1",
        "significant",
        ("severity",),
    )


def test_surrounding_whitespace_and_any_layout_are_accepted():
    assert read_crimson("\n  " + json.dumps(json.loads(SIMPLE), indent=4) + "\n").assessment is not None


def test_one_reference_finding_may_match_several_candidate_findings():
    text = json.dumps(
        answer_dict(refs={"R1": "urgent"}, preds={"P1": "urgent", "P2": "urgent"}, matched=[("R1", "P1"), ("R1", "P2")])
    )
    assert read_crimson(text).assessment is not None


def _set(path: list[Any], value: Any):
    def edit(data: dict) -> None:
        target = data
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return edit


def _delete(path: list[Any]):
    def edit(data: dict) -> None:
        target = data
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return edit


REFUSED: dict[str, tuple[str, str]] = {
    # name: (answer, the words the problem must contain)
    "prose": ("The candidate misses the effusion.", "not one JSON object"),
    "code fence": ("```json\n" + SIMPLE + "\n```", "not one JSON object"),
    "text after": (SIMPLE + "\nHope this helps.", "not one JSON object"),
    "two objects": (SIMPLE + SIMPLE, "not one JSON object"),
    "empty": ("", "not one JSON object"),
    "a list": ("[" + SIMPLE + "]", "the answer: expected an object"),
    "repeated key": (SIMPLE[:-1] + ', "matched_findings": []}', "'matched_findings' appears twice"),
    "NaN": (SIMPLE.replace('"finding R1"', "NaN"), "NaN is not a JSON value"),
    "missing key": (_edited(_delete(["errors"])), "the answer: missing errors"),
    "score field": (_edited(_set(["crimson_score"], 1.0)), "the answer: unknown crimson_score"),
    "missing error list": (_edited(_delete(["errors", "missing_findings"])), "errors: missing missing_findings"),
    "extra finding field": (
        _edited(_set(["reference_findings", 0, "weight"], 1)),
        "reference_findings[0]: unknown weight",
    ),
    "unknown significance": (
        _edited(_set(["reference_findings", 0, "clinical_significance"], "critical")),
        "reference_findings[0].clinical_significance: 'critical' is not one of",
    ),
    "empty finding": (_edited(_set(["predicted_findings", 1, "finding"], " ")), "predicted_findings[1].finding"),
    "bad reference id": (_edited(_set(["reference_findings", 1, "id"], "P2")), "reference_findings[1].id: 'P2'"),
    "zero id": (_edited(_set(["predicted_findings", 1, "id"], "P0")), "predicted_findings[1].id: 'P0'"),
    "repeated id": (_edited(_set(["predicted_findings", 1, "id"], "P1")), "'P1' is listed twice"),
    "unknown match": (
        _edited(_set(["matched_findings", 0, "pred_id"], "P7")),
        "matched_findings[0].pred_id: 'P7' is not a listed finding",
    ),
    "unknown false finding": (
        _edited(_set(["errors", "false_findings"], ["P2", "P3"])),
        "errors.false_findings[1]: 'P3' is not a listed finding",
    ),
    "unknown missing finding": (
        _edited(_set(["errors", "missing_findings"], ["R9"])),
        "errors.missing_findings[0]: 'R9' is not a listed finding",
    ),
    "id of the wrong side": (
        _edited(_set(["errors", "missing_findings"], ["P2"])),
        "errors.missing_findings[0]: 'P2' is not an id of the form R<n>",
    ),
    "repeated false finding": (
        _edited(_set(["errors", "false_findings"], ["P2", "P2"])),
        "errors.false_findings[1]: 'P2' is listed twice",
    ),
    "unknown severity": (
        _edited(_set(["errors", "attribute_errors", 0, "severity"], "major")),
        "errors.attribute_errors[0].severity: 'major' is not one of",
    ),
    "unknown error type": (
        _edited(_set(["errors", "attribute_errors", 0, "error_types"], ["size"])),
        "errors.attribute_errors[0].error_types[0]: 'size' is not one of",
    ),
    "no error type": (
        _edited(_set(["errors", "attribute_errors", 0, "error_types"], [])),
        "errors.attribute_errors[0].error_types: names no error type",
    ),
    "error types not a list": (
        _edited(_set(["errors", "attribute_errors", 0, "error_types"], "severity")),
        "errors.attribute_errors[0].error_types: expected a list",
    ),
    "empty explanation": (
        _edited(_set(["errors", "attribute_errors", 0, "explanation"], "")),
        "errors.attribute_errors[0].explanation",
    ),
    "attribute error of an unmatched pair": (
        _edited(_set(["errors", "attribute_errors", 0, "pred_id"], "P2")),
        "errors.attribute_errors[0]: R1 and P2 are not a matched pair",
    ),
    "candidate finding both matched and false": (
        _edited(_set(["errors", "false_findings"], ["P1", "P2"])),
        "candidate finding P1 is both matched and a false finding",
    ),
    "candidate finding nowhere": (
        _edited(_set(["errors", "false_findings"], [])),
        "candidate finding P2 is neither matched nor a false finding",
    ),
    "reference finding both matched and missing": (
        _edited(_set(["errors", "missing_findings"], ["R1", "R2"])),
        "reference finding R1 is both matched and missing",
    ),
    "reference finding nowhere": (
        _edited(_set(["errors", "missing_findings"], [])),
        "reference finding R2 is neither matched nor missing",
    ),
    "candidate finding matched twice": (
        json.dumps(
            answer_dict(
                refs={"R1": "urgent", "R2": "urgent"}, preds={"P1": "urgent"}, matched=[("R1", "P1"), ("R2", "P1")]
            )
        ),
        "matched_findings[1]: 'P1' is matched more than once",
    ),
    "matches not a list": (_edited(_set(["matched_findings"], {"R1": "P1"})), "matched_findings: expected a list"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_an_answer_that_breaks_the_contract_is_refused_saying_where(name):
    text, words = REFUSED[name]
    reading = read_crimson(text)
    assert reading.assessment is None
    assert reading.problem is not None and words in reading.problem, reading.problem
    assert reading.problems == {MAIN_KEY: reading.problem}


def test_an_error_type_named_twice_in_one_entry_is_read():
    fixed = answer_dict(
        refs={"R1": "urgent"},
        preds={"P1": "urgent"},
        matched=[("R1", "P1")],
        attributes=[attribute("R1", "P1", "negligible", "location", "location")],
    )
    # Naming one error type twice in one entry repeats nothing the score counts (entries naming the type).
    assert read_crimson(json.dumps(fixed)).assessment is not None


def _two_keys_off(data: dict) -> None:
    del data["matched_findings"], data["errors"]
    data["b"] = data["a"] = 1


EXACT: dict[str, tuple[str, str]] = {
    "a list": ("[" + SIMPLE + "]", "the answer: expected an object, got list"),
    "keys missing and unknown": (_edited(_two_keys_off), "the answer: missing matched_findings, errors; unknown a, b"),
    "findings not a list": (
        _edited(_set(["reference_findings"], "R1")),
        "reference_findings: expected a list, got str",
    ),
    "id of the wrong form": (
        _edited(_set(["reference_findings", 1, "id"], "P2")),
        "reference_findings[1].id: 'P2' is not an id of the form R<n>",
    ),
    "unknown label": (
        _edited(_set(["reference_findings", 0, "clinical_significance"], "critical")),
        "reference_findings[0].clinical_significance: 'critical' is not one of urgent, actionable_not_urgent, "
        "not_actionable_not_urgent, benign_expected",
    ),
    "match not an object": (
        _edited(_set(["matched_findings", 0], ["R1", "P1"])),
        "matched_findings[0]: expected an object, got list",
    ),
    "unknown matched reference": (
        _edited(_set(["matched_findings", 0, "ref_id"], "R9")),
        "matched_findings[0].ref_id: 'R9' is not a listed finding",
    ),
    "false findings not a list": (
        _edited(_set(["errors", "false_findings"], "P2")),
        "errors.false_findings: expected a list, got str",
    ),
    "attribute errors not a list": (
        _edited(_set(["errors", "attribute_errors"], {})),
        "errors.attribute_errors: expected a list, got dict",
    ),
    "attribute error without explanation": (
        _edited(_delete(["errors", "attribute_errors", 0, "explanation"])),
        "errors.attribute_errors[0]: missing explanation",
    ),
    "attribute error of an unknown reference": (
        _edited(_set(["errors", "attribute_errors", 0, "ref_id"], "R9")),
        "errors.attribute_errors[0].ref_id: 'R9' is not a listed finding",
    ),
    "attribute error of an unknown candidate finding": (
        _edited(_set(["errors", "attribute_errors", 0, "pred_id"], "P9")),
        "errors.attribute_errors[0].pred_id: 'P9' is not a listed finding",
    ),
}


@pytest.mark.parametrize("name", list(EXACT))
def test_the_refusal_names_the_place_exactly(name):
    text, problem = EXACT[name]
    assert read_crimson(text).problem == problem
