"""How the leaderboard re-scores and ranks a stored CRIMSON log: each sample's stored judge answer is read again
with the scorer's own reader and scored again with the scorer's own code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.judge import stored_unreadable_reason
from radiology_tasks.core.unscored import check_policy, is_filled_in
from radiology_tasks.crimson.scorer import crimson_score
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
from radiology_tasks.scorers.crimson.reading import MAIN_KEY, read_crimson

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence


def expected_values(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict the scorer gives for this sample's stored judge answer, under the run's `unscored` policy."""
    policy = check_policy(run.task_args.get("unscored") or "worst")
    answer = sample.metadata.get("judge_answer")
    if not isinstance(answer, str):
        reason = (sample.metadata.get("unscored") or {}).get(MAIN_KEY, "unscored")
        score = crimson_score(None, (str(reason), ""), policy=policy)
    else:
        score = crimson_score(read_crimson(answer), (stored_unreadable_reason(sample.metadata), ""), policy=policy)
    return dict(score.value)  # type: ignore[arg-type]


def expert_agreement(run: RunEvidence) -> dict[str, tuple[float, float]]:
    """(expert score, judge score) per sample, where the experts rated the very candidate the judge saw."""
    pairs: dict[str, tuple[float, float]] = {}
    for sample in run.samples:
        expert, judged = sample.metadata.get("expert_score"), sample.values.get(MAIN_KEY)
        if expert is None or judged is None or is_filled_in(sample.metadata, MAIN_KEY):
            continue
        pairs[sample.id] = (float(expert), float(judged))
    return pairs


def error_profile(run: RunEvidence) -> dict[str, dict[str, float]] | None:
    """Mean weighted false and missing findings and attribute errors per scored report."""
    outcomes = [s.metadata["crimson"] for s in run.samples if isinstance(s.metadata.get("crimson"), dict)]
    if not outcomes:
        return None
    names = {"e_false": "false findings", "e_miss": "missing findings", "e_attribute": "attribute errors"}
    return {
        "Weighted errors per report": {
            label: sum(float(o[key]) for o in outcomes) / len(outcomes) for key, label in names.items()
        }
    }


class CrimsonRescoring(Rescoring):
    """The re-scoring rules above, as the leaderboard calls them."""

    def ranked(self, run: RunEvidence) -> RankedScore:
        return RankedScore(MAIN_KEY, bounded=False)

    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        return expected_values(run, sample)

    def breakdown(self, run: RunEvidence) -> dict[str, dict[str, float]] | None:
        return error_profile(run)

    def agreement(self, run: RunEvidence) -> dict[str, tuple[float, float]]:
        return expert_agreement(run)


RESCORING = CrimsonRescoring()
