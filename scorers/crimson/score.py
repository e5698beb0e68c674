"""The CRIMSON score of a read assessment, by the rules of the authors' public code (`crimson-score` 0.2.0,
``CRIMSON/generate_score.py``), with every intermediate quantity kept.

With ``w(f)`` the weight of a finding's clinical significance (`SIGNIFICANCE_WEIGHTS`) and ``a(e)`` that of an
attribute error's severity (`ATTRIBUTE_SEVERITY_WEIGHTS`):

- ``N_G``: the summed weight of the reference findings;
- ``E_false``: the summed weight of the false findings (candidate findings, weighted as the judge rated them);
- ``E_miss``: the summed weight of the missing findings (reference findings);
- ``correct``: over the matched reference findings (each once, however many candidate findings match it), its
  weight ``w`` when it has no attribute error, else ``w * w / (w + A)``, ``A`` being the summed severity weight of
  the attribute errors listed for that reference finding (0 when ``w + A`` is 0);
- ``S = (correct - E_false) / N_G``; when ``N_G`` is 0, ``S`` is 1 without false or missing findings and
  ``-(E_false + E_miss + 1)`` otherwise (``E_miss`` is then 0, every reference finding weighing 0);
- the score is ``S`` when ``S >= 0``, else ``-X / (1 + X)`` with ``X = E_false - correct``, which lies in
  (-1, 0): so the score lies in (-1, 1]; 0 is what a normal template earns against abnormal findings.

With an assessment that reads (`scorers.crimson.reading`), ``S < 0`` implies ``X > 0``: where ``N_G`` is 0 every
reference finding weighs 0, so ``E_miss`` and ``correct`` are 0 and a negative ``S`` needs a false finding. The
authors' further case (``X <= 0`` giving 0) cannot arise and has no branch here. Missing findings lower the score
through ``correct`` (they earn nothing) rather than through a penalty of their own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from radiology_tasks.scorers.crimson.contract import (
    ATTRIBUTE_SEVERITY_WEIGHTS,
    ERROR_TYPES,
    MAX_ATTRIBUTE_ERRORS,
    MAX_FINDINGS,
    SIGNIFICANCE_WEIGHTS,
)
from radiology_tasks.scorers.crimson.reading import Assessment

Branch = Literal["no_reference_weight", "ratio", "negative"]
"""Which rule gave the score: ``N_G`` = 0, the ratio ``S`` (>= 0), or the negative branch."""


@dataclass(frozen=True)
class CrimsonOutcome:
    """The score of one assessment and how it came about.

    Attributes:
        score: The CRIMSON score, in (-1, 1].
        branch: The rule that gave it.
        n_g: Summed weight of the reference findings.
        correct: Credit for the matched reference findings, after partial credit for attribute errors.
        e_false: Summed weight of the false findings.
        e_miss: Summed weight of the missing findings.
        e_attribute: Summed severity weight of the attribute errors.
        s: The ratio before the negative branch.
        errors_more_than_correct: ``E_false - correct``.
        counts: Errors by kind: false, missing and attribute errors, and attribute errors naming each error type.
        significance: How many reference and candidate findings carry each significance label.
    """

    score: float
    branch: Branch
    n_g: float
    correct: float
    e_false: float
    e_miss: float
    e_attribute: float
    s: float
    errors_more_than_correct: float
    counts: dict[str, int]
    significance: dict[str, dict[str, int]]

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form for `Score.metadata`."""
        return asdict(self)


def crimson_outcome(assessment: Assessment) -> CrimsonOutcome:
    """Score an assessment by the rules in the module docstring."""
    ref_weight = {f.id: SIGNIFICANCE_WEIGHTS[f.significance] for f in assessment.reference}
    pred_weight = {f.id: SIGNIFICANCE_WEIGHTS[f.significance] for f in assessment.predicted}
    n_g = sum(ref_weight.values())
    e_false = sum(pred_weight[p] for p in assessment.false_findings)
    e_miss = sum(ref_weight[r] for r in assessment.missing_findings)
    penalty_by_ref: dict[str, float] = {}
    for error in assessment.attribute_errors:
        penalty_by_ref[error.ref_id] = (
            penalty_by_ref.get(error.ref_id, 0.0) + ATTRIBUTE_SEVERITY_WEIGHTS[error.severity]
        )
    correct = 0.0
    for ref in dict.fromkeys(ref for ref, _ in assessment.matched):
        weight = ref_weight[ref]
        if ref not in penalty_by_ref:
            correct += weight
        elif weight + penalty_by_ref[ref] > 0:
            correct += weight * weight / (weight + penalty_by_ref[ref])
    excess = e_false - correct
    if n_g == 0:
        # The authors' -(E_false + E_miss + 1): with N_G = 0 every reference finding weighs 0, so E_miss is 0 too.
        s = 1.0 if e_false == 0 else -(e_false + 1)
    else:
        s = (correct - e_false) / n_g
    branch: Branch
    if s >= 0:
        score, branch = s, ("no_reference_weight" if n_g == 0 else "ratio")
    else:
        score, branch = -excess / (1 + excess), "negative"
    return CrimsonOutcome(
        score=score,
        branch=branch,
        n_g=n_g,
        correct=correct,
        e_false=e_false,
        e_miss=e_miss,
        e_attribute=sum(ATTRIBUTE_SEVERITY_WEIGHTS[e.severity] for e in assessment.attribute_errors),
        s=s,
        errors_more_than_correct=excess,
        counts=_counts(assessment),
        significance={
            "reference": _labels(assessment.reference),
            "predicted": _labels(assessment.predicted),
        },
    )


def _counts(assessment: Assessment) -> dict[str, int]:
    counts = {
        "false_findings": len(assessment.false_findings),
        "missing_findings": len(assessment.missing_findings),
        "attribute_errors": len(assessment.attribute_errors),
    }
    for name in ERROR_TYPES:
        counts[f"{name}_errors"] = sum(1 for e in assessment.attribute_errors if name in e.error_types)
    return counts


def _labels(findings: tuple[Any, ...]) -> dict[str, int]:
    return {label: sum(1 for f in findings if f.significance == label) for label in SIGNIFICANCE_WEIGHTS}


def at_grammar_bound(assessment: Assessment) -> bool:
    """Whether a list of the assessment is as long as the grammar allows (`MAX_FINDINGS` findings on a side,
    `MAX_ATTRIBUTE_ERRORS` attribute errors): under the grammar, a judge may have had more to list."""
    return (
        len(assessment.reference) >= MAX_FINDINGS
        or len(assessment.predicted) >= MAX_FINDINGS
        or len(assessment.attribute_errors) >= MAX_ATTRIBUTE_ERRORS
    )
