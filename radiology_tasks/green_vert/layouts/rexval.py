"""ReXVal: GREEN's validation set, 50 MIMIC-CXR studies with four candidate reports each and the error counts of
six radiologists (PhysioNet, credentialed access: users download it themselves).

A copy holds two CSV files:

* `50_samples_gt_and_candidates.csv`: one row per study, its ground-truth report and one column per candidate
  (named after the metric that picked the candidate);
* `6_valid_raters_per_rater_error_categories.csv`: one row per (study, candidate, error category, rater,
  significance) with the number of errors that rater counted there (zeros included); `study_number` is the
  0-based row of the study in the first file, `candidate_type` the candidate's column there, `error_category`
  1-6 the categories (a)-(f) in order, `clinically_significant` `True` or `False`.

Each (study, candidate) becomes one report pair whose expert counts per category (a)-(f) are the mean over the
raters (a rater without a row for a category counted none there), so they may be fractional; each is the exact
fraction of the raters' whole total over their number, never a float, so that candidates whose raters counted the
same total have equal means however the errors were split over categories. `expert_raters` says over how many
raters. Each rater's own counts stay in the metadata (`rater_counts`). Where each column was
confirmed is in the README's "Real datasets" section.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.records import ERROR_CATEGORIES
from radiology_tasks.core.tables import DataError, csv_records

REPORTS_FILE = "50_samples_gt_and_candidates.csv"
ERRORS_FILE = "6_valid_raters_per_rater_error_categories.csv"
STUDY, REFERENCE = "study_id", "gt_report"
# In the file's own order.
ERROR_COLUMNS = (
    "study_number",
    "candidate_type",
    "error_category",
    "rater_index",
    "clinically_significant",
    "num_errors",
)
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}


def _whole(value: Any, source: str, number: int, column: str, low: int = 0) -> int:
    text = "" if value is None else str(value).strip()
    try:
        whole = int(float(text))
    except ValueError:
        raise DataError(source, number, column, f"expected a whole number, got {value!r}") from None
    if whole < low or whole != float(text):
        raise DataError(source, number, column, f"expected a whole number of at least {low}, got {value!r}")
    return whole


def _significant(value: Any, source: str, number: int) -> bool:
    text = "" if value is None else str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise DataError(source, number, "clinically_significant", f"expected True or False, got {value!r}")


def _rater_counts(source: LayoutInput) -> tuple[dict[tuple[int, str], dict[str, dict[str, list[int]]]], list[str]]:
    """Per (study number, candidate type): per rater, the significant and insignificant counts (a)-(f)."""
    path = source.one("errors")
    counts: dict[tuple[int, str], dict[str, dict[str, list[int]]]] = defaultdict(dict)
    raters: set[str] = set()
    for number, record in csv_records(path):
        study = _whole(record.get("study_number"), str(path), number, "study_number")
        candidate = str(record.get("candidate_type") or "").strip()
        if not candidate:
            raise DataError(str(path), number, "candidate_type", "missing or empty")
        rater = str(_whole(record.get("rater_index"), str(path), number, "rater_index"))
        category = _whole(record.get("error_category"), str(path), number, "error_category", low=1)
        if category > len(ERROR_CATEGORIES):
            raise DataError(str(path), number, "error_category", f"expected 1-6, got {record.get('error_category')!r}")
        significant = _significant(record.get("clinically_significant"), str(path), number)
        severity = "significant" if significant else "insignificant"
        errors = _whole(record.get("num_errors"), str(path), number, "num_errors")
        raters.add(rater)
        per_rater = counts[(study, candidate)].setdefault(rater, {"significant": [0] * 6, "insignificant": [0] * 6})
        per_rater[severity][category - 1] += errors
    return counts, sorted(raters, key=int)


def rexval_rows(source: LayoutInput) -> Iterator[Row]:
    """One flat row per (study, candidate) with the raters' mean counts; ids `<study number>-<candidate type>`."""
    counts, raters = _rater_counts(source)
    path = source.one("reports")
    for number, record in csv_records(path):
        study = number - 1
        candidate_columns = [c for c in record if c not in (STUDY, REFERENCE, "")]
        for candidate_type in candidate_columns:
            per_rater = counts.get((study, candidate_type), {})
            row: dict[str, Any] = {
                "id": f"{study}-{candidate_type}",
                "reference": record.get(REFERENCE),
                "candidate": record.get(candidate_type) or "",
                "study_id": record.get(STUDY),
                "study_number": study,
                "candidate_type": candidate_type,
                "expert_raters": len(raters),
                "rater_counts": {
                    rater: {
                        severity: dict(zip(ERROR_CATEGORIES, per_rater.get(rater, {}).get(severity, [0] * 6)))
                        for severity in ("significant", "insignificant")
                    }
                    for rater in raters
                },
            }
            for severity in ("significant", "insignificant"):
                for index, category in enumerate(ERROR_CATEGORIES):
                    total = sum(per_rater.get(rater, {}).get(severity, [0] * 6)[index] for rater in raters)
                    row[f"{severity}_{category}"] = Fraction(total, len(raters)) if raters else None
            yield number, row


LAYOUT = Layout(
    name="rexval",
    description="ReXVal (GREEN's validation set): 50 MIMIC-CXR studies x 4 candidates, error counts of 6 radiologists",
    files=(
        DataFile("reports", REPORTS_FILE, (STUDY, REFERENCE)),
        DataFile("errors", ERRORS_FILE, ERROR_COLUMNS),
    ),
    read=rexval_rows,
    obtain="it is on PhysioNet (credentialed access): download the ReXVal files yourself",
    credentialed=True,  # MIMIC-CXR studies under PhysioNet's credentialed licence
)
