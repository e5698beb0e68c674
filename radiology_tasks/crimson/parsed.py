"""What a CRIMSON score keeps of its judge's answer as read, for a redacted log to be re-scored from.

The answer is kept in its own format (findings with their ids and significance labels, the matches, the false and
missing findings, the attribute errors with their severities and types), with each finding text and explanation
replaced by its hash: no score depends on them, and a one-word text would otherwise survive redaction, which
hashes free text by its whitespace, in every copy Inspect makes of the score metadata (the sample's score event).

It is kept under `radiology_tasks.scorers.score_record.PARSED_ANSWERS` (the leaderboard's key, a field of
`radiology_tasks.crimson.records.CrimsonRecord`). The hash is the leaderboard's
(`radiology_tasks.leaderboard.redact.text_hash`), written out here so that a run, which imports the scorer, does
not import the redaction; the family's tests hold them equal.
"""

from __future__ import annotations

import hashlib
from typing import Any

from radiology_tasks.scorers.crimson.reading import Assessment


def _hashed(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def kept_answer(assessment: Assessment) -> dict[str, Any]:
    """The assessment as plain data in the answer's format, its finding texts and explanations hashed."""
    answer = assessment.as_answer()
    for side in ("reference_findings", "predicted_findings"):
        for finding in answer[side]:
            finding["finding"] = _hashed(finding["finding"])
    for error in answer["errors"]["attribute_errors"]:
        error["explanation"] = _hashed(error["explanation"])
    return answer
