"""How the leaderboard re-scores and ranks a stored CRIMSON log: each sample's stored judge answer is read again
with the scorer's own reader and scored again with the scorer's own code.

A redacted log (`radiology_tasks.leaderboard.redact`) holds hashes where the answers were; it is re-scored from the
answer as the scorer read it, which the score metadata keeps under `PARSED_ANSWERS`
(`radiology_tasks.crimson.parsed`). That parsed answer is read by the same reader, so it must hold
together as an answer does, and every score, error profile and logged outcome is worked out from it again.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.judge import stored_unreadable_reason
from radiology_tasks.core.unscored import check_policy
from radiology_tasks.crimson.parsed import kept_answer
from radiology_tasks.crimson.records import CrimsonRecord
from radiology_tasks.crimson.scorer import crimson_score
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore
from radiology_tasks.scorers.crimson.reading import MAIN_KEY, CrimsonReading, read_crimson, read_parsed
from radiology_tasks.scorers.crimson.score import CrimsonOutcome, crimson_outcome

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence

_TOLERANCE = 1e-9
_NO_PARSED_ANSWER = "the redacted log keeps no parsed answer for it"


def reading_of(run: RunEvidence, sample: SampleEvidence) -> CrimsonReading | None:
    """What the scorer read from the sample's stored judge answer (None when it stores none): the answer read
    again, or for a redacted run the parsed answer it keeps, read by the same rules (an answer that did not read
    keeps none)."""
    record = CrimsonRecord.read(sample.metadata)
    if record.judge_answer is None:
        return None
    if not run.redacted:
        return read_crimson(record.judge_answer)
    if record.parsed_answers is None:
        return CrimsonReading(problem=_NO_PARSED_ANSWER)
    return read_parsed(record.parsed_answers)


def _outcome(run: RunEvidence, sample: SampleEvidence) -> CrimsonOutcome | None:
    reading = reading_of(run, sample)
    return crimson_outcome(reading.assessment) if reading and reading.assessment else None


def expected_values(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict the scorer gives for this sample's stored judge answer (for a redacted run, for the parsed
    answer it keeps), under the run's `unscored` policy."""
    policy = check_policy(run.task_args.get("unscored") or "worst")
    reading = reading_of(run, sample)
    if reading is None:
        reason = CrimsonRecord.read(sample.metadata).unscored.get(MAIN_KEY, "unscored")
        score = crimson_score(None, (str(reason), ""), policy=policy)
    else:
        score = crimson_score(reading, (stored_unreadable_reason(sample.metadata), ""), policy=policy)
    return dict(cast(dict[str, float], score.value))  # crimson_score gives one number, never a scalar value


def parsed_answers(run: RunEvidence, sample: SampleEvidence) -> dict[str, Any]:
    """The stored judge answer read again with the scorer's reader, as the scorer keeps it (`kept_answer`); {}
    when there is no answer or it does not read."""
    answer = CrimsonRecord.read(sample.metadata).judge_answer
    reading = read_crimson(answer) if answer is not None else None
    return kept_answer(reading.assessment) if reading is not None and reading.assessment is not None else {}


def _differing(logged: Any, recomputed: Any, path: str = "") -> list[str]:
    """The fields (``counts.false_findings``) where a logged value is not the recomputed one."""
    if isinstance(recomputed, dict):
        if not isinstance(logged, dict) or set(logged) != set(recomputed):
            return [path or "(the whole value)"]
        return [f for key in recomputed for f in _differing(logged[key], recomputed[key], f"{path}.{key}".lstrip("."))]
    numbers = (int, float)
    if isinstance(recomputed, numbers) and isinstance(logged, numbers) and not isinstance(logged, bool):
        same = math.isclose(logged, recomputed, rel_tol=0, abs_tol=_TOLERANCE)
    else:
        same = logged == recomputed
    return [] if same else [path or "(the whole value)"]


def sample_checks(run: RunEvidence, sample: SampleEvidence) -> list[str]:
    """What the sample logs beside its score, checked against its stored answer (for a redacted run, its parsed
    answer): the outcome (``crimson`` metadata) and, unredacted, the parsed answer the scorer kept."""
    reading = reading_of(run, sample)
    outcome = crimson_outcome(reading.assessment) if reading and reading.assessment else None
    record = CrimsonRecord.read(sample.metadata)
    lines = []
    if run.redacted and reading is not None and reading.problem not in (None, _NO_PARSED_ANSWER):
        lines.append(f"sample {sample.id}: the parsed answer it keeps does not read: {reading.problem}")
    logged = record.crimson
    if outcome is None and logged is not None:
        lines.append(f"sample {sample.id}: logs a CRIMSON outcome but its stored answer gives none")
    elif outcome is not None:
        fields = _differing(logged, outcome.as_dict())
        if fields:
            lines.append(f"sample {sample.id}: logged outcome {', '.join(fields)} is not what its answer gives")
    if not run.redacted:
        kept = kept_answer(reading.assessment) if reading and reading.assessment else None
        if record.parsed_answers != kept:
            lines.append(f"sample {sample.id}: the parsed answer its score keeps is not its stored judge answer read")
    return lines


def error_profile(run: RunEvidence) -> dict[str, dict[str, float]] | None:
    """Mean weighted false and missing findings and attribute errors per scored report, worked out again from the
    stored answers (for a redacted run, the parsed answers)."""
    outcomes = [o for o in (_outcome(run, s) for s in run.samples if s.error is None) if o is not None]
    if not outcomes:
        return None
    names = {"e_false": "false findings", "e_miss": "missing findings", "e_attribute": "attribute errors"}
    return {
        "Weighted errors per report": {
            label: sum(float(getattr(o, key)) for o in outcomes) / len(outcomes) for key, label in names.items()
        }
    }


RESCORING = FunctionRescoring(
    ranked=RankedScore(MAIN_KEY, bounded=False),
    expected=expected_values,
    run_checks=lambda run: [line for s in run.samples if s.error is None for line in sample_checks(run, s)],
    breakdown=error_profile,
    agreement_key=MAIN_KEY,
    parsed_answers=parsed_answers,
)
