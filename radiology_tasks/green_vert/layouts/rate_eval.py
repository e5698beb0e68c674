"""RaTE-Eval, paragraph level (`Angelakeke/RaTE-Eval`): a reference, a rewritten candidate and one expert score.

What was confirmed, and from where, is in the README's "Real datasets" section. In short: the test file
`Task2_paragraph_rate/rate_test.csv` with the columns `gt_report`, `similar_report` and `Score` is read by a
public analysis script; the score scale is the project's reading of the RaTE-Eval paper and is recorded in
every log, and `-T expert_scale=MIN,MAX` replaces it.
"""

from __future__ import annotations

from collections.abc import Iterator

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.rows import KNOWN_COLUMNS
from radiology_tasks.core.tables import csv_records

REFERENCE, CANDIDATE, SCORE = "gt_report", "similar_report", "Score"
SCORE_SCALE = (0.0, 5.0)


def rate_eval_rows(source: LayoutInput) -> Iterator[Row]:
    """One flat row per scored pair; ids are `test-<row number>`; other columns stay as metadata."""
    for number, record in csv_records(source.one("table")):
        extra = {(f"hub_{k}" if k in KNOWN_COLUMNS else k): v for k, v in record.items()}
        for name in (REFERENCE, CANDIDATE, SCORE):
            extra.pop(name, None)
        candidate = record.get(CANDIDATE)
        yield (
            number,
            {
                **extra,
                "id": f"test-{number}",
                "reference": record.get(REFERENCE),
                # "" (unlike None) makes pair_from_row reject the row instead of reading it as reference-only.
                "candidate": "" if candidate is None else candidate,
                "expert_score": record.get(SCORE),
            },
        )


LAYOUT = Layout(
    name="rate-eval",
    description="RaTE-Eval paragraph level (Angelakeke/RaTE-Eval test set): reference, candidate, expert score",
    files=(DataFile("table", "Task2_paragraph_rate/rate_test.csv", (REFERENCE, CANDIDATE, SCORE)),),
    read=rate_eval_rows,
    hub_repo="Angelakeke/RaTE-Eval",
    hub_revision="43702688ab0297f8cde91611cb60dbab53fe1903",
    expert_scale=SCORE_SCALE,
)
