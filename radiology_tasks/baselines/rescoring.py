"""How the leaderboard re-scores and ranks a stored `baselines` log: the lexical scores recomputed from the texts.

No judge is involved: each sample's scores follow from its reference (the sample's target) and its candidate
(the score's answer), through the scorer's own `lexical_score` under the run's ``-T baselines`` and
``-T unscored``. Since the texts are in the log too, the run-level checks compare them with the data the run
names: a reference, or a replayed candidate, edited together with its scores is refused as well.

`metric_suite` runs are not submittable: their judge and RadEval scores cannot be recomputed from the log here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_options
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore
from radiology_tasks.lexical import DEFAULT_BASELINES, checked_lexical_keys, lexical_score, metric_names
from radiology_tasks.scorers.lexical import LEXICAL_KEYS

if TYPE_CHECKING:
    from radiology_tasks.core.records import ReportPair
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence

SUBMITTABLE_TASK = "baselines"
"""The one task of the family whose logs can be submitted."""


def _keys(run: RunEvidence) -> list[str]:
    """The lexical keys the run computed, parsed from its ``-T baselines`` as the task parses it; [] if unreadable."""
    try:
        return checked_lexical_keys(
            metric_names(run.task_args.get("baselines") or DEFAULT_BASELINES, "baselines"), "baselines"
        )
    except InputError:
        return []


def _policy(run: RunEvidence) -> UnscoredPolicy | None:
    """The run's ``-T unscored``, or None when it is not a policy the task accepts."""
    try:
        return check_policy(str(run.task_args.get("unscored") or "worst"))
    except InputError:
        return None


def ranked(run: RunEvidence) -> RankedScore:
    """The first lexical key the run computed (BLEU-1 under the default), a score on [0, 1]."""
    keys = _keys(run)
    return RankedScore(keys[0] if keys else LEXICAL_KEYS[0])


def expected_values(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict `lexical_baselines` gives for the sample's stored reference and candidate.

    A sample without a stored candidate was unscored by the scorer (an empty report, or one the generator failed
    to write): its keys get what the run's policy gives an unscored score. Empty for a run that cannot be
    submitted, or whose settings cannot be read (`run_checks` says why).
    """
    keys, policy = _keys(run), _policy(run)
    if run.short_task != SUBMITTABLE_TASK or not keys or policy is None:
        return {}
    score = lexical_score(sample.target or "", sample.candidate, keys, policy)
    return {key: float(value) for key, value in dict(score.value).items()}  # type: ignore[arg-type]


def _generated(run: RunEvidence) -> bool:
    return run.task_args.get("generate") in (True, "true")


def _data_pairs(run: RunEvidence) -> dict[str, ReportPair]:
    """The report pairs of the data the run names, loaded here again, by id."""
    from radiology_tasks.leaderboard.checks import run_data_options

    return {pair.id: pair for pair in load_options(run_data_options(run)).pairs}


def _shown(value: str | None) -> str:
    return "none" if value is None else f"{len(value)} characters"


def run_checks(run: RunEvidence) -> list[str]:
    """Why the run's texts cannot be trusted for re-scoring, one line each; empty when they can.

    The references must be the data's, and replayed candidates the data's (or the candidates file's). A run
    whose candidates the model under test wrote (``-T generate=true``) is refused: the log's generated reports
    are not yet read back from the model's own events, so an edited report would go unnoticed.
    """
    lines = []
    if not _keys(run):
        lines.append(f"-T baselines={run.task_args.get('baselines')!r} names no lexical metric the task computes")
    if _policy(run) is None:
        lines.append(f"-T unscored={run.task_args.get('unscored')!r} is not a policy the task accepts")
    if _generated(run):
        lines.append(
            "-T generate=true: the generated reports cannot be checked against the model's outputs yet; "
            "submit them as -T candidates=FILE"
        )
    try:
        pairs = _data_pairs(run)
    except Exception as error:  # noqa: BLE001 - any loading failure is reported as the line it gives
        return [*lines, f"the data cannot be loaded here to check the logged reports: {error}"]
    for sample in run.samples:
        pair = pairs.get(sample.id)
        if pair is None or sample.error is not None:
            continue  # a sample outside the data is the sample-set check's to report
        if sample.target != pair.reference:
            lines.append(f"sample {sample.id}: the logged reference is not the data's")
        if not _generated(run) and sample.candidate != pair.candidate:
            shown = f"{_shown(sample.candidate)}, the data's {_shown(pair.candidate)}"
            lines.append(f"sample {sample.id}: the logged candidate is not the data's ({shown})")
    return lines


def _no_answers(sample: SampleEvidence) -> list[str]:
    """No judge answers: nothing to match against model events."""
    return []


RESCORING = FunctionRescoring(
    ranked=ranked, expected=expected_values, needs_judge=False, answers=_no_answers, run_checks=run_checks
)
