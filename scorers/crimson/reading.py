"""Read a CRIMSON judge's answer strictly: one JSON object in the authors' format, consistent with itself, or nothing.

An answer is accepted only when it is exactly one JSON object (surrounding whitespace aside: no code fence, no
text around it, no repaired JSON), with exactly the fields of `scorers.crimson.contract` (no key twice, none
missing, none added), label values from the authors' lists, ids ``R<n>`` / ``P<n>`` each listed once, and the
lists agreeing with each other as the authors' instructions require:

- every id that a match, a false or missing finding or an attribute error names is one the finding lists hold;
- every candidate finding is matched exactly once or is a false finding, never both;
- every reference finding is matched (possibly by several candidate findings) or missing, never both;
- an attribute error names a matched pair, and the same match is not listed twice.

Anything else leaves the answer unread with one line saying where it breaks; nothing is guessed or filled in,
since a contradictory answer has no single score. Reading never raises on a malformed answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from radiology_tasks.scorers.crimson.contract import (
    ATTRIBUTE_KEYS,
    ATTRIBUTE_SEVERITY_WEIGHTS,
    ERROR_KEYS,
    ERROR_TYPES,
    FINDING_KEYS,
    MATCH_KEYS,
    SIGNIFICANCE_WEIGHTS,
    TOP_KEYS,
)

MAIN_KEY = "crimson"
"""The score key an unreadable answer leaves without a value."""

_REF_ID = re.compile(r"R[1-9][0-9]*")
_PRED_ID = re.compile(r"P[1-9][0-9]*")


@dataclass(frozen=True)
class Finding:
    """An abnormal finding the judge listed: its id, its text and its clinical significance label."""

    id: str
    text: str
    significance: str


@dataclass(frozen=True)
class AttributeError_:
    """An attribute error of a matched pair: its severity, the error types it names and the judge's explanation."""

    ref_id: str
    pred_id: str
    severity: str
    error_types: tuple[str, ...]
    explanation: str


@dataclass(frozen=True)
class Assessment:
    """A judge's answer as read: both finding lists, the matches and the three error lists."""

    reference: tuple[Finding, ...]
    predicted: tuple[Finding, ...]
    matched: tuple[tuple[str, str], ...]
    false_findings: tuple[str, ...]
    missing_findings: tuple[str, ...]
    attribute_errors: tuple[AttributeError_, ...]

    def as_answer(self) -> dict[str, Any]:
        """The assessment as plain data in the answer's own format (`read_parsed` reads it back to this)."""
        return {
            "reference_findings": [_finding_data(f) for f in self.reference],
            "predicted_findings": [_finding_data(f) for f in self.predicted],
            "matched_findings": [{"ref_id": ref, "pred_id": pred} for ref, pred in self.matched],
            "errors": {
                "false_findings": list(self.false_findings),
                "missing_findings": list(self.missing_findings),
                "attribute_errors": [
                    {
                        "ref_id": e.ref_id,
                        "pred_id": e.pred_id,
                        "severity": e.severity,
                        "error_types": list(e.error_types),
                        "explanation": e.explanation,
                    }
                    for e in self.attribute_errors
                ],
            },
        }


def _finding_data(finding: Finding) -> dict[str, str]:
    return {"id": finding.id, "finding": finding.text, "clinical_significance": finding.significance}


@dataclass(frozen=True)
class CrimsonReading:
    """What one answer reads as: the assessment, or the line saying where it breaks the contract."""

    assessment: Assessment | None = None
    problem: str | None = None

    @property
    def problems(self) -> Mapping[str, str]:
        """The unreadable score and why (empty when the answer reads)."""
        return {} if self.problem is None else {MAIN_KEY: self.problem}


class _Refused(ValueError):
    """Where an answer breaks the contract (one line)."""


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused(f"the key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON value")


def _object(value: Any, keys: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Refused(f"{where}: expected an object, got {type(value).__name__}")
    missing = [key for key in keys if key not in value]
    extra = sorted(set(value) - set(keys))
    if missing or extra:
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown {', '.join(extra)}"] if extra else []
        )
        raise _Refused(f"{where}: {'; '.join(parts)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Refused(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Refused(f"{where}: expected non-empty text, got {value!r}")
    return value


def _label(value: Any, allowed: Mapping[str, float] | tuple[str, ...], where: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise _Refused(f"{where}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _id(value: Any, listed: Mapping[str, Finding], pattern: re.Pattern[str], where: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise _Refused(f"{where}: {value!r} is not an id of the form {pattern.pattern[0]}<n>")
    if value not in listed:
        raise _Refused(f"{where}: {value!r} is not a listed finding")
    return value


def _findings(value: Any, pattern: re.Pattern[str], where: str) -> dict[str, Finding]:
    findings: dict[str, Finding] = {}
    for index, item in enumerate(_list(value, where)):
        at = f"{where}[{index}]"
        entry = _object(item, FINDING_KEYS, at)
        finding_id = entry["id"]
        if not isinstance(finding_id, str) or not pattern.fullmatch(finding_id):
            raise _Refused(f"{at}.id: {finding_id!r} is not an id of the form {pattern.pattern[0]}<n>")
        if finding_id in findings:
            raise _Refused(f"{at}.id: {finding_id!r} is listed twice")
        findings[finding_id] = Finding(
            finding_id,
            _text(entry["finding"], f"{at}.finding"),
            _label(entry["clinical_significance"], SIGNIFICANCE_WEIGHTS, f"{at}.clinical_significance"),
        )
    return findings


def _id_list(value: Any, listed: Mapping[str, Finding], pattern: re.Pattern[str], where: str) -> tuple[str, ...]:
    ids: list[str] = []
    for index, item in enumerate(_list(value, where)):
        finding_id = _id(item, listed, pattern, f"{where}[{index}]")
        if finding_id in ids:
            raise _Refused(f"{where}[{index}]: {finding_id!r} is listed twice")
        ids.append(finding_id)
    return tuple(ids)


def _assessment(data: Any) -> Assessment:
    top = _object(data, TOP_KEYS, "the answer")
    reference = _findings(top["reference_findings"], _REF_ID, "reference_findings")
    predicted = _findings(top["predicted_findings"], _PRED_ID, "predicted_findings")
    matched: list[tuple[str, str]] = []
    for index, item in enumerate(_list(top["matched_findings"], "matched_findings")):
        at = f"matched_findings[{index}]"
        entry = _object(item, MATCH_KEYS, at)
        pair = (
            _id(entry["ref_id"], reference, _REF_ID, f"{at}.ref_id"),
            _id(entry["pred_id"], predicted, _PRED_ID, f"{at}.pred_id"),
        )
        if any(pair[1] == earlier[1] for earlier in matched):
            raise _Refused(f"{at}: {pair[1]!r} is matched more than once")
        matched.append(pair)
    errors = _object(top["errors"], ERROR_KEYS, "errors")
    false_findings = _id_list(errors["false_findings"], predicted, _PRED_ID, "errors.false_findings")
    missing_findings = _id_list(errors["missing_findings"], reference, _REF_ID, "errors.missing_findings")
    attribute_errors = tuple(
        _attribute_error(item, reference, predicted, matched, f"errors.attribute_errors[{index}]")
        for index, item in enumerate(_list(errors["attribute_errors"], "errors.attribute_errors"))
    )
    _check_partition(reference, predicted, matched, false_findings, missing_findings)
    return Assessment(
        reference=tuple(reference.values()),
        predicted=tuple(predicted.values()),
        matched=tuple(matched),
        false_findings=false_findings,
        missing_findings=missing_findings,
        attribute_errors=attribute_errors,
    )


def _attribute_error(
    item: Any,
    reference: Mapping[str, Finding],
    predicted: Mapping[str, Finding],
    matched: list[tuple[str, str]],
    where: str,
) -> AttributeError_:
    entry = _object(item, ATTRIBUTE_KEYS, where)
    ref_id = _id(entry["ref_id"], reference, _REF_ID, f"{where}.ref_id")
    pred_id = _id(entry["pred_id"], predicted, _PRED_ID, f"{where}.pred_id")
    if (ref_id, pred_id) not in matched:
        raise _Refused(f"{where}: {ref_id} and {pred_id} are not a matched pair")
    types = _list(entry["error_types"], f"{where}.error_types")
    if not types:
        raise _Refused(f"{where}.error_types: names no error type")
    return AttributeError_(
        ref_id=ref_id,
        pred_id=pred_id,
        severity=_label(entry["severity"], ATTRIBUTE_SEVERITY_WEIGHTS, f"{where}.severity"),
        error_types=tuple(_label(t, ERROR_TYPES, f"{where}.error_types[{i}]") for i, t in enumerate(types)),
        explanation=_text(entry["explanation"], f"{where}.explanation"),
    )


def _check_partition(
    reference: Mapping[str, Finding],
    predicted: Mapping[str, Finding],
    matched: list[tuple[str, str]],
    false_findings: tuple[str, ...],
    missing_findings: tuple[str, ...],
) -> None:
    matched_refs = {ref for ref, _ in matched}
    matched_preds = {pred for _, pred in matched}
    for pred in predicted:
        if (pred in matched_preds) == (pred in false_findings):
            state = (
                "both matched and a false finding" if pred in matched_preds else "neither matched nor a false finding"
            )
            raise _Refused(f"candidate finding {pred} is {state}")
    for ref in reference:
        if (ref in matched_refs) == (ref in missing_findings):
            state = "both matched and missing" if ref in matched_refs else "neither matched nor missing"
            raise _Refused(f"reference finding {ref} is {state}")


def read_crimson(answer: str) -> CrimsonReading:
    """Read one judge answer (see the module docstring for what is accepted).

    Returns:
        The assessment, or the line saying where the answer breaks the contract.
    """
    try:
        data = json.loads(answer.strip(), object_pairs_hook=_no_repeated_keys, parse_constant=_no_constant)
    except _Refused as refused:
        return CrimsonReading(problem=str(refused))
    except (json.JSONDecodeError, RecursionError) as error:
        return CrimsonReading(problem=f"not one JSON object: {error}")
    return read_parsed(data)


def read_parsed(data: Any) -> CrimsonReading:
    """Read an answer already decoded from JSON (`Assessment.as_answer`, as a log keeps it) by the same rules as
    `read_crimson`: the same fields, labels and consistency between the lists, or the line saying where it breaks.
    """
    try:
        return CrimsonReading(assessment=_assessment(data))
    except _Refused as refused:
        return CrimsonReading(problem=str(refused))
