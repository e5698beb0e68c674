"""The paired bootstrap test of two metrics' taus in one column group, on the samples both scored.

Each metric's per-sample values and the experts' come from the shared agreement pairs of its run
(`radiology_tasks.core.metrics.agreement_pairs`, oriented so that higher is better on both sides); the test is
the leaderboard's (`radiology_tasks.scorers.leaderboard.agreement.tau_difference_test`). Only the alignment by
sample id is done here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.agreement.model import ColumnGroup, PairedTest, ProtocolName, RowId

if TYPE_CHECKING:
    from radiology_tasks.agreement.runs import AgreementRun
    from radiology_tasks.agreement.table import PairedTester
    from radiology_tasks.core.metrics import AgreementPairs, ExpertTruth

MIN_SHARED = 2
"""Samples a tau needs."""

TRUTHS: dict[ProtocolName, ExpertTruth] = {
    "score": "score",
    "significant_errors": "significant_errors",
    "total_errors": "total_errors",
}
"""The expert truth of each tau protocol, as the shared agreement pairs name it."""


def aligned(found: AgreementPairs, ids: list[str]) -> list[tuple[float, float]]:
    """(expert, metric) of each of `ids`, in that order."""
    by_id = {sample: (found.expert[i], found.judge[i]) for i, sample in enumerate(found.ids)}
    return [by_id[sample] for sample in ids]


def paired_test(
    group: ColumnGroup,
    first: tuple[RowId, AgreementRun],
    second: tuple[RowId, AgreementRun],
    *,
    resamples: int,
    seed: int,
) -> PairedTest:
    """The paired test of the two metrics' taus under `group`'s protocol, on the samples both have a value for."""
    from radiology_tasks.core.metrics import agreement_pairs
    from radiology_tasks.scorers.leaderboard.agreement import tau_difference_test

    truth = TRUTHS[group.protocol.name]
    (row_a, run_a), (row_b, run_b) = first, second
    pairs_a = agreement_pairs(run_a.samples, row_a.key, truth)
    pairs_b = agreement_pairs(run_b.samples, row_b.key, truth)
    shared_ids = set(pairs_b.ids)
    ids = [sample for sample in pairs_a.ids if sample in shared_ids]

    def untested(reason: str) -> PairedTest:
        return PairedTest(group.id, row_a, row_b, None, None, len(ids), resamples, 0, reason)

    if len(ids) < MIN_SHARED:
        return untested(f"only {len(ids)} sample(s) have both metrics and the experts' value")
    try:
        result = tau_difference_test(aligned(pairs_a, ids), aligned(pairs_b, ids), resamples=resamples, seed=seed)
    except ValueError as error:
        return untested(str(error))
    return PairedTest(
        group.id, row_a, row_b, result.difference, result.bootstrap_p, result.n, result.resamples, result.valid
    )


def paired_tester(resamples: int, seed: int) -> PairedTester:
    """`paired_test` with the command's resamples and seed, as `build_table` takes it."""

    def test(group: ColumnGroup, first: tuple[RowId, AgreementRun], second: tuple[RowId, AgreementRun]) -> PairedTest:
        return paired_test(group, first, second, resamples=resamples, seed=seed)

    return test
