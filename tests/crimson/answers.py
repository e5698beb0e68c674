"""CRIMSON judge answers written the way the contract wants them, for tests."""

from __future__ import annotations

import json
from typing import Any


def finding(finding_id: str, significance: str, text: str | None = None) -> dict[str, str]:
    """One entry of a finding list."""
    return {"id": finding_id, "finding": text or f"finding {finding_id}", "clinical_significance": significance}


def attribute(ref_id: str, pred_id: str, severity: str, *types: str) -> dict[str, Any]:
    """One attribute error."""
    return {
        "ref_id": ref_id,
        "pred_id": pred_id,
        "severity": severity,
        "error_types": list(types or ("location",)),
        "explanation": "the details differ",
    }


def answer_dict(
    refs: dict[str, str] | None = None,
    preds: dict[str, str] | None = None,
    matched: list[tuple[str, str]] | None = None,
    false: list[str] | None = None,
    missing: list[str] | None = None,
    attributes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """An answer as a dict: `refs` and `preds` map ids to significance labels."""
    return {
        "reference_findings": [finding(i, s) for i, s in (refs or {}).items()],
        "predicted_findings": [finding(i, s) for i, s in (preds or {}).items()],
        "matched_findings": [{"ref_id": r, "pred_id": p} for r, p in matched or []],
        "errors": {
            "false_findings": list(false or []),
            "missing_findings": list(missing or []),
            "attribute_errors": list(attributes or []),
        },
    }


def answer(**parts: Any) -> str:
    """`answer_dict` as the JSON text a judge writes."""
    return json.dumps(answer_dict(**parts))


SIMPLE = answer(
    refs={"R1": "urgent", "R2": "actionable_not_urgent"},
    preds={"P1": "urgent", "P2": "not_actionable_not_urgent"},
    matched=[("R1", "P1")],
    false=["P2"],
    missing=["R2"],
    attributes=[attribute("R1", "P1", "significant", "severity")],
)
"""A consistent answer with one match, one false and one missing finding and one attribute error: R1 earns
1 * 1 / 1.5 = 2/3, P2 costs 0.25, N_G = 1.5, so the score is (2/3 - 1/4) / 1.5 = 5/18."""

SIMPLE_SCORE = 5 / 18
