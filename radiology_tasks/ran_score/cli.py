"""`radiology-tasks ran-labels LOG --out DIR`: write the labels a ran_score run extracted as label tables.

The tables are in the authors' layout (`study_id` and one 0/1 column per label), so they can be scored again
with `-T reference_labels` / `-T candidate_labels`, or compared with any other labeler's. A report with a label
the judge did not give is left out of its table and listed, since the layout has no place for an unknown label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from radiology_tasks.core.errors import InputError
from radiology_tasks.ran_score.label_files import write_label_file
from radiology_tasks.ran_score.records import side_field
from radiology_tasks.ran_score.scorer import SIDES

SCORER = "finding_agreement"


@dataclass
class ExportedLabels:
    """What `export_labels` wrote: a file and a row count per side, and the reports left out with the reason."""

    files: dict[str, Path] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)


def export_labels(log_file: str, out: Path) -> ExportedLabels:
    """Write ``reference_labels.csv`` and ``candidate_labels.csv`` to `out` from a ran_score eval log.

    Raises:
        InputError: the log cannot be read or is not a ran_score log with scored samples.
    """
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(log_file)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read eval log {log_file}: {error}") from None
    taxonomy = (log.eval.metadata or {}).get("taxonomy") or {}
    if not log.eval.task.endswith("ran_score") or "columns" not in taxonomy:
        raise InputError(f"{log_file} is a log of {log.eval.task}, not of radiology_tasks/ran_score")
    columns: list[str] = taxonomy["columns"]
    scored = [
        (str(sample.id), scores[SCORER].metadata or {})
        for sample in log.samples or []
        if SCORER in (scores := sample.scores or {})
    ]
    if not scored:
        raise InputError(f"{log_file} has no scored samples")
    result = ExportedLabels()
    for side in SIDES:
        rows: list[tuple[str, dict[str, int]]] = []
        skipped: dict[str, str] = {}
        for study, metadata in scored:
            labels = metadata[side_field(side, "labels")]
            unknown = [column for column in columns if labels.get(column) is None]
            if unknown:
                skipped[study] = f"unknown {side} labels: {', '.join(unknown)}"
            else:
                rows.append((study, labels))
        path = out / f"{side}_labels.csv"
        result.rows[side] = write_label_file(path, rows, columns)
        result.files[side], result.skipped[side] = path, skipped
    return result
