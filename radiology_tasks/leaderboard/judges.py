"""The judges' leaderboard: rank the judge of each run on the `judges` track, only among comparable runs.

A family ranks judges one of two ways, through its `Rescoring` (`radiology_tasks.leaderboard.rules`):

- ``agreement_key`` (`ExpertAgreement`): the judge's per-sample score is compared with every expert truth the data
  carries, read from the data (`radiology_tasks.leaderboard.experts`) where the experts rated the very candidate
  the judge saw: the experts' score, the radiologists' mean clinically significant errors and their mean total
  errors (ReXVal). One board per (task, score key, dataset, truth), ranked by Kendall's tau-b against that truth
  (the comparison that papers on report-evaluation judges tabulate), with a bootstrap interval over samples and
  paired bootstrap tests of the tau difference on the samples two judges share. Scores and error counts are
  oriented so that a positive tau always means agreement. Where the experts prefer one of two candidates of a
  study (RadPref), the expert-score board shows each judge's pairwise preference accuracy beside tau.
- ``judge_measures``: per measure, the values of the units the family defines (for instance one per reference).
  One board per (task, dataset), ranked by the first measure, each measure shown as the mean over
  units with its bootstrap interval, and paired tests of the ranked measure on the units two judges share.

Runs are ranked together only when they judged the same candidates of the same data with the same task version,
templates and task configuration; the judge and its settings are what is compared. Each board holds the runs
sharing its most common setting, every other run is listed as not ranked with the settings that differ.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import family_of
from radiology_tasks.core.metrics import ExpertPresence, ExpertTruth
from radiology_tasks.leaderboard.bundle import judge_settings
from radiology_tasks.leaderboard.comparison import Settings, Submission, comparability, not_comparable, trial_of
from radiology_tasks.leaderboard.evidence import RunEvidence
from radiology_tasks.leaderboard.experts import Point, agreement_points, run_experts, sample_scores, study_preferences
from radiology_tasks.leaderboard.redact import checks_made
from radiology_tasks.leaderboard.rescore import family_rescoring
from radiology_tasks.leaderboard.rules import ExpertAgreement, JudgeMeasures, Rescoring
from radiology_tasks.leaderboard.run_data import data_checked

if TYPE_CHECKING:
    from radiology_tasks.core.agreement import Preferences

TAU = "kendall_tau_b"
PREFERENCE = "preference_accuracy"
AGREEMENT_NOTE = (
    "Kendall's tau-b between the judge's and the experts' scores, over the samples where the experts rated the "
    "very candidate the judge saw; intervals and paired tests resample samples."
)
ERRORS_NOTE = (
    "Kendall's tau-b between the judge's scores and the radiologists' mean number of {errors} per candidate (the "
    "fewer errors, the better the candidate, so a positive tau is agreement), over the samples where the "
    "radiologists rated the very candidate the judge saw; intervals and paired tests resample samples."
)
PREFERENCE_NOTE = (
    "Beside tau, not ranked by: pairwise preference accuracy over the pairs of candidates of one study that the "
    "experts rated differently (they prefer the higher mean rating), right / (right + wrong); a pair the judge "
    "scores within its tie tolerance is a tie, counted apart; its interval resamples studies."
)
MEASURES_NOTE = (
    "Each measure is the mean over the units the task defines (for instance one per reference, over its "
    "variants); intervals and paired tests resample units. Ranked by the first measure."
)
TAU_LABEL = "Kendall's tau-b against the experts"
TRUTH_LABELS: dict[ExpertTruth, str] = {
    "score": TAU_LABEL,
    "significant_errors": "Kendall's tau-b against the radiologists' mean clinically significant errors",
    "total_errors": "Kendall's tau-b against the radiologists' mean total errors",
}
"""What each expert truth's board ranks by, in words."""
PREFERENCE_LABEL = "pairwise preference accuracy (right / (right + wrong), ties apart)"
_ERRORS = {"significant_errors": "clinically significant errors", "total_errors": "errors of any significance"}
NO_RANDOMIZATION = (
    "not run: the tau difference is tested by the paired bootstrap only (swapping two judges' scores within a "
    "sample is not implemented for tau)"
)
_CARD = ("institution", "paper", "code", "description")


@dataclass(frozen=True)
class Agreement:
    """A run's judge against one expert truth: what its agreement board needs.

    Attributes:
        points: (expert truth, judge score) by sample id, both oriented so that higher is better.
        preferences: How the judge orders each study's candidates the experts prefer one of (the expert-score
            truth on data with preferences); None where the board shows no preference accuracy.
    """

    points: dict[str, Point]
    preferences: list[Preferences] | None = None


def measure_label(measure: str, truth: ExpertTruth | None) -> str:
    """What a judges' board's measure column holds, in words (`truth` None: a measures board)."""
    if truth is None:
        return f"mean {measure} over the units"
    return PREFERENCE_LABEL if measure == PREFERENCE else TRUTH_LABELS[truth]


def _note(truth: ExpertTruth | None, measures: list[str]) -> str:
    if truth is None:
        return MEASURES_NOTE
    note = AGREEMENT_NOTE if truth == "score" else ERRORS_NOTE.format(errors=_ERRORS[truth])
    return f"{note} {PREFERENCE_NOTE}" if PREFERENCE in measures else note


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:12]


def judge_comparability(run: RunEvidence) -> dict[str, Any]:
    """What must be equal for two runs' judges to be ranked together: `board.comparability` without the judge,
    plus the candidates the judge saw (variants an injector made in the run differ between runs)."""
    setting = {name: value for name, value in comparability(run).items() if name != "judge"}
    setting["candidates judged"] = _digest(sorted((s.id, s.candidate or "") for s in run.samples))
    return setting


def _rescoring(run: RunEvidence) -> Rescoring | None:
    family = family_of(run.short_task)
    return None if family is None else family_rescoring(family, run.short_task)


def _not_ranked(submission: Submission, reasons: list[str], out: Path) -> dict[str, Any]:
    run = submission.run
    return {
        "system": (run.judge if run is not None else None) or submission.system.get("name") or submission.log.name,
        "task": run.short_task if run is not None else None,
        "log": os.path.relpath(submission.log, out),
        "reasons": reasons,
    }


def _entry_head(submission: Submission, out: Path) -> dict[str, Any]:
    run = submission.run
    assert run is not None and run.judge is not None
    return {
        "system": run.judge,
        "submitted_as": submission.system.get("name"),
        **{key: submission.system.get(key) for key in _CARD},
        "judge": judge_settings(run),
        "log": os.path.relpath(submission.log, out),
        "log_sha256": run.sha256,
        "checks": _checks(run),
    }


def _checks(run: RunEvidence) -> str:
    """Which checks the run's figures passed (`checks_made`): a redacted run whose data is not here is ranked on
    the experts' annotations as its log recorded them, and says so."""
    rules = _rescoring(run)
    assert rules is not None, "only runs of a family with re-scoring are ranked"
    return checks_made(run.redacted, rules.needs_judge(), data_checked=data_checked(run))


def _dataset(run: RunEvidence, setting: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": run.dataset_name,
        **{key: run.fingerprint.get(key) for key in ("layout", "data_sha256", "revision", "reports_sha256")},
        "sample_ids_sha256": setting["sample set"],
    }


def _ranked(entries: list[dict[str, Any]], extras: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """Entries sorted by score (highest first) with competition ranks; a judge model that appears twice (in other
    settings) is told apart by the name it was submitted as, else by its log's stem."""
    names = Counter(e["system"] for e in entries)
    for entry in entries:
        if names[entry["system"]] > 1:
            entry["system"] = f"{entry['system']} ({entry['submitted_as'] or Path(entry['log']).stem})"
    order = sorted(range(len(entries)), key=lambda i: -entries[i]["score"])
    entries, extras = [entries[i] for i in order], [extras[i] for i in order]
    for entry in entries:
        entry["rank"] = 1 + sum(1 for other in entries if other["score"] > entry["score"])
    return entries, extras


def _board(
    truth: ExpertTruth | None,
    members: list[Submission],
    entries: list[dict[str, Any]],
    score: str,
    measures: list[str],
    tests: list[dict[str, Any]],
    settings: Settings,
) -> dict[str, Any]:
    """A judges' board: an agreement board against `truth`, or (`truth` None) a measures board."""
    first = members[0].run
    assert first is not None
    setting = judge_comparability(first)
    labels = {measure: measure_label(measure, truth) for measure in measures}
    units = {
        measure: "units" if truth is None else "pairs" if measure == PREFERENCE else "samples" for measure in measures
    }
    suffix = "" if truth in (None, "score") else f"-{truth}"
    return {
        "id": f"judges-{first.short_task}-{score}-{first.dataset_name}{suffix}",
        "kind": "measures" if truth is None else "agreement",
        "truth": truth,
        "task": first.short_task,
        "score": score,
        "measures": measures,
        "dataset": _dataset(first, setting),
        "task_version": first.task_version,
        "task_config": setting["task configuration"],
        "n_samples": len(first.samples),
        "trial": trial_of(members[0], settings),
        "statistic": labels[measures[0]],
        "measure_labels": labels,
        "measure_units": units,
        "entries": entries,
        "significance": {"resamples": settings.resamples, "seed": settings.seed, "tests": tests},
        "note": _note(truth, measures),
    }


def _preference_measure(
    preferences: list[Preferences] | None, key: str, settings: Settings
) -> tuple[dict[str, Any] | None, str | None]:
    """A judge's preference accuracy as a measure (with its counts), or None and why it has no value."""
    from radiology_tasks.scorers.leaderboard.agreement import preference_interval

    if not preferences:
        return None, "no value: no two candidates of one study that the experts rated differently were both scored"
    if not any(study.right + study.wrong for study in preferences):
        pairs = sum(study.pairs for study in preferences)
        return None, f"no value: the judge's {key} ties all {pairs} pairs the experts rated differently"
    interval = preference_interval(
        preferences, confidence=settings.confidence, resamples=settings.resamples, seed=settings.seed
    )
    figure = {"value": interval.accuracy, "ci_low": interval.low, "ci_high": interval.high, "n": interval.pairs}
    return {**figure, "right": interval.right, "wrong": interval.wrong, "ties": interval.ties}, None


def _scored(figure: dict[str, Any]) -> dict[str, Any]:
    """An entry's ranked figure (`Interval.figure`): its value as the score, the interval's ends and the samples."""
    return {"score": figure["value"], **{k: figure[k] for k in ("ci_low", "ci_high", "n")}}


def _agreement_entry(
    submission: Submission, figures: Agreement, key: str, preference: bool, out: Path, settings: Settings
) -> dict[str, Any]:
    from radiology_tasks.scorers.leaderboard.agreement import tau_interval

    points = figures.points
    interval = tau_interval(
        [points[i] for i in sorted(points)],
        confidence=settings.confidence,
        resamples=settings.resamples,
        seed=settings.seed,
    )
    figure = interval.figure()
    measures: dict[str, dict[str, Any] | None] = {TAU: figure}
    empty = {}
    if preference:
        measures[PREFERENCE], why = _preference_measure(figures.preferences, key, settings)
        if why is not None:
            empty[PREFERENCE] = why
    return {**_entry_head(submission, out), **_scored(figure), "measures": measures, "empty": empty}


def _agreement_board(
    members: list[tuple[Submission, Agreement]], key: str, truth: ExpertTruth, out: Path, settings: Settings
) -> dict[str, Any]:
    from radiology_tasks.scorers.leaderboard.agreement import tau_difference_test

    preference = any(figures.preferences is not None for _, figures in members)
    entries = [_agreement_entry(s, figures, key, preference, out, settings) for s, figures in members]
    entries, ranked = _ranked(entries, members)
    tests = []
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            a, b = ranked[i][1].points, ranked[j][1].points
            common = sorted(set(a) & set(b))
            if len(common) < 2:
                continue
            test = tau_difference_test(
                [a[s] for s in common], [b[s] for s in common], resamples=settings.resamples, seed=settings.seed
            )
            row = _test(entries[i], entries[j], test.difference, test.bootstrap_p, None, test.n)
            tests.append({**row, "empty": {"randomization_p": NO_RANDOMIZATION}})
    measures = [TAU, PREFERENCE] if preference else [TAU]
    return _board(truth, [m for m, _ in ranked], entries, key, measures, tests, settings)


def _test(
    a: dict[str, Any], b: dict[str, Any], difference: float, p: float, randomization: float | None, n: int
) -> dict[str, Any]:
    return {
        "a": a["system"],
        "b": b["system"],
        "difference": difference,
        "paired_bootstrap_p": p,
        "randomization_p": randomization,
        "n": n,
        "empty": {},
    }


def _present(values: dict[str, float]) -> dict[str, float]:
    return {unit: value for unit, value in values.items() if not math.isnan(value)}


def _measures_board(
    members: list[tuple[Submission, dict[str, dict[str, float]]]], out: Path, settings: Settings
) -> dict[str, Any]:
    from radiology_tasks.scorers.leaderboard.significance import mean_interval, paired_test

    names = list(members[0][1])
    entries = []
    for submission, measures in members:
        shown: dict[str, dict[str, Any] | None] = {}
        empty = {}
        for name in names:
            values = _present(measures.get(name, {}))
            if not values:
                shown[name] = None
                empty[name] = f"no value: no unit of this run has a {name}"
                continue
            interval = mean_interval(
                [values[u] for u in sorted(values)],
                confidence=settings.confidence,
                resamples=settings.resamples,
                seed=settings.seed,
            )
            shown[name] = interval.figure()
        ranked_figure = shown[names[0]]
        assert ranked_figure is not None
        entries.append({**_entry_head(submission, out), **_scored(ranked_figure), "measures": shown, "empty": empty})
    entries, ranked = _ranked(entries, members)
    tests = []
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            a, b = _present(ranked[i][1][names[0]]), _present(ranked[j][1][names[0]])
            common = sorted(set(a) & set(b))
            if not common:
                continue
            test = paired_test(
                [a[u] for u in common], [b[u] for u in common], resamples=settings.resamples, seed=settings.seed
            )
            tests.append(_test(entries[i], entries[j], test.difference, test.bootstrap_p, test.randomization_p, test.n))
    return _board(None, [m for m, _ in ranked], entries, names[0], names, tests, settings)


NO_POINTS: dict[ExpertTruth, str] = {
    "score": "no sample has both an expert score for the candidate the judge saw and a judge score",
    "significant_errors": (
        "no sample has both the radiologists' counts of clinically significant errors for the candidate the judge "
        "saw and a judge score"
    ),
    "total_errors": (
        "no sample has both the radiologists' counts of errors of any significance for the candidate the judge saw "
        "and a judge score"
    ),
}
"""Why a run has no board against a truth: no sample pairs the judge with it."""
CONSTANT: dict[ExpertTruth, str] = {
    "score": "Kendall's tau is undefined: the expert or the judge scores are all equal",
    "significant_errors": (
        "Kendall's tau against the radiologists' mean clinically significant errors is undefined: the mean errors or "
        "the judge scores are all equal"
    ),
    "total_errors": (
        "Kendall's tau against the radiologists' mean total errors is undefined: the mean errors or the judge scores "
        "are all equal"
    ),
}
"""Why a run has no board against a truth: one side is constant over the samples."""

Figures = tuple[str, tuple[str, ...], Any]
"""(kind of board, the board's key, the run's figures for it)."""


def _agreement_figures(run: RunEvidence, rules: ExpertAgreement) -> tuple[list[Figures], list[str]]:
    """The run's figures against every expert truth its data carries, and why it has none against the others."""
    key = rules.agreement_key(run)
    try:
        scores = sample_scores(run, key, run_experts(run))
        present = ExpertPresence.of_samples(scores)
        points = {truth: agreement_points(scores, key, truth) for truth in present.truths()}
        preferences = study_preferences(scores, key) if present.preferences else None
    except Exception as error:  # noqa: BLE001 - any failure to read the experts is the reason the run is not ranked
        return [], [f"the experts' annotations of its samples cannot be read: {error}"]
    if not points:
        return [], [NO_POINTS["score"]]
    figures: list[Figures] = []
    reasons = []
    for truth, truth_points in points.items():
        if not truth_points:
            reasons.append(NO_POINTS[truth])
        elif len({e for e, _ in truth_points.values()}) < 2 or len({j for _, j in truth_points.values()}) < 2:
            reasons.append(CONSTANT[truth])
        else:
            shown = preferences if truth == "score" else None
            board = (run.short_task, key, run.dataset_name, truth)
            figures.append(("agreement", board, Agreement(truth_points, shown)))
    return figures, reasons


def _figures(submission: Submission) -> tuple[list[Figures], list[str]]:
    """The run's figures for each board it joins, and why it joins no board (or none against some expert truth)."""
    run = submission.run
    assert run is not None
    if run.judge is None:
        return [], ["no judge named (--model-role grader=<judge model>): there is no judge to rank"]
    rescoring = _rescoring(run)
    if isinstance(rescoring, ExpertAgreement):
        return _agreement_figures(run, rescoring)
    if isinstance(rescoring, JudgeMeasures):
        measures = rescoring.judge_measures(run)
        if not measures or not _present(next(iter(measures.values()))):
            return [], ["the run gives no unit a value of the measure judges are ranked by"]
        return [("measures", (run.short_task, run.dataset_name), measures)], []
    return [], [
        f"task {run.short_task} cannot rank judges: its family defines neither agreement with experts "
        "nor judge measures"
    ]


def _comparable(
    group: list[tuple[Submission, Any]], out: Path
) -> tuple[list[tuple[Submission, Any]], list[dict[str, Any]]]:
    """The members sharing the group's most common setting, and a not-ranked row for each other one."""
    seen = [judge_comparability(s.run) for s, _ in group if s.run is not None]
    counts = Counter(_digest(s) for s in seen)
    reference_at = next(i for i, s in enumerate(seen) if counts[_digest(s)] == max(counts.values()))
    reference, reference_run = seen[reference_at], group[reference_at][0].run
    assert reference_run is not None
    kept, refused = [], []
    for member, setting in zip(group, seen, strict=True):
        if setting == reference:
            kept.append(member)
        else:
            assert member[0].run is not None
            reason = not_comparable(setting, reference, member[0].run, reference_run)
            refused.append(_not_ranked(member[0], [reason], out))
    return kept, refused


def judge_boards(
    submissions: list[Submission], out: Path, settings: Settings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rank the judges of checked `judges`-track runs: (boards, not-ranked rows).

    A run joins one agreement board per expert truth its data carries; where it has no figure against a truth,
    a not-ranked row says why. Submissions that already have problems are left to the caller, which lists them as
    not ranked.
    """
    groups: dict[tuple[str, tuple[str, ...]], list[tuple[Submission, Any]]] = {}
    not_ranked = []
    for submission in submissions:
        if submission.problems or submission.run is None:
            continue
        figures, reasons = _figures(submission)
        if reasons:
            not_ranked.append(_not_ranked(submission, reasons, out))
        for kind, key, values in figures:
            groups.setdefault((kind, key), []).append((submission, values))
    boards = []
    build: dict[str, Callable[..., dict[str, Any]]] = {
        "agreement": lambda members, key: _agreement_board(members, key[1], key[3], out, settings),
        "measures": lambda members, key: _measures_board(members, out, settings),
    }
    for (kind, key), group in groups.items():
        kept, refused = _comparable(group, out)
        # A run not comparable with the boards of several expert truths is listed once.
        not_ranked += [row for row in refused if row not in not_ranked]
        boards.append(build[kind](kept, key))
    return boards, not_ranked
