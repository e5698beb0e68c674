"""`radiology-tasks leaderboard`: rank the systems of checked runs, only among runs that are comparable.

Runs are comparable when they score the same sample set of the same data revision with the same task version,
prompt templates, task settings, judge and judge settings, on the same track. Each (task, score, dataset,
track) gets one board, holding the runs that share its most common setting; every other run is listed as not
ranked, with the reason. A missing score counts as 0, the bottom of its range, so losing samples never helps.

A trial leaderboard (`Settings.trial`) ranks runs on part of their dataset (`-T limit`) under the same checks,
each board saying how many of the dataset's samples it covers; it refuses full runs rather than rank them beside
trials. A figure that cannot be computed is written as null with its reason under the object's `empty`, never
as NaN.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radiology_tasks.core.unscored import WORST
from radiology_tasks.leaderboard import JUDGES_TRACK
from radiology_tasks.leaderboard.bundle import default_system_name, mixed_generation_logs
from radiology_tasks.leaderboard.checks import coverage, run_violations, unscored_share
from radiology_tasks.leaderboard.comparison import Settings, Submission, comparability, not_comparable, trial_of
from radiology_tasks.leaderboard.comparison import digest as _digest
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence, read_run
from radiology_tasks.leaderboard.manifest import read_bundle
from radiology_tasks.leaderboard.redact import checks_made
from radiology_tasks.leaderboard.rescore import ranked_score, rescoring
from radiology_tasks.leaderboard.rules import CorpusStatistic, ExpertAgreement
from radiology_tasks.leaderboard.run_data import data_checked

if TYPE_CHECKING:
    from radiology_tasks.scorers.leaderboard.significance import Interval, PairedTest

SCHEMA_VERSION = "1.3"


class MixedRuns(ValueError):
    """A trial leaderboard was given runs that cover their whole dataset; `lines` names each."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def _system(name: str | None = None, **card: Any) -> dict[str, Any]:
    keys = ("institution", "paper", "code", "description")
    return {"name": name, **{key: card.get(key) for key in keys}}


def _checked(
    system: dict[str, Any], track: str | None, log: Path, settings: Settings, sha256: str | None
) -> Submission:
    try:
        run = read_run(log)
    except ValueError as error:
        return Submission(system, track, log, None, [str(error)])
    problems = []
    if sha256 is not None and run.sha256 != sha256:
        problems.append("the log changed after it was bundled (its SHA-256 is not the manifest's)")
    problems += run_violations(run, max_unscored=settings.max_unscored, trial=settings.trial)
    covered: tuple[int, int] | None = None
    if settings.trial:  # a full leaderboard refuses partial runs in the checks above and marks no board
        try:
            covered = coverage(run)
        except Exception:  # noqa: BLE001 - the sample-set check above already says why the data cannot be loaded
            covered = None
    if track not in (None, JUDGES_TRACK) and run.data_track is not None and track != run.data_track:
        problems.append(f"the data's track is {run.data_track}, the submission's {track}")
    track = track or run.data_track
    if system["name"] is None:
        system = {**system, "name": default_system_name(run)}
    return Submission(system, track, log, run, problems, covered)


def load_submissions(paths: list[Path], settings: Settings) -> list[Submission]:
    """Every run in the given bundles (directories with a manifest) and logs, each checked again."""
    submissions = []
    for path in paths:
        if not path.is_dir():
            submissions.append(_checked(_system(), None, path, settings, None))
            continue
        bundle = read_bundle(path)
        system = _system(**bundle.manifest.system.model_dump())
        track = bundle.manifest.track
        bundled = [
            _checked(system, track, log, settings, entry.sha256)
            for entry, log in zip(bundle.manifest.runs, bundle.logs, strict=True)
        ]
        mixed = mixed_generation_logs([(s.log.name, s.run) for s in bundled if s.run is not None])
        for submission in bundled:
            submission.problems += [line for line in mixed if line.startswith(f"{submission.log.name}: ")]
        submissions += bundled
    return submissions


def _board_key(submission: Submission) -> tuple[str, str, str, str]:
    run = submission.run
    assert run is not None
    return (run.short_task, ranked_score(run).key, run.dataset_name, submission.track or "")


def ranked_values(run: RunEvidence, key: str) -> dict[str, float]:
    """Per-sample values of the ranked score by sample id (the mean over epochs), a missing value counted as 0."""
    by_id: dict[str, list[float]] = {}
    for sample in run.samples:
        value = sample.values.get(key)
        by_id.setdefault(sample.id, []).append(WORST if value is None else value)
    return {sample_id: sum(values) / len(values) for sample_id, values in by_id.items()}


def samples_by_id(run: RunEvidence) -> dict[str, list[SampleEvidence]]:
    """The run's samples grouped by id (several per id when the run had several epochs)."""
    grouped: dict[str, list[SampleEvidence]] = {}
    for sample in run.samples:
        grouped.setdefault(sample.id, []).append(sample)
    return grouped


class _Counted:
    """A corpus statistic that counts the sets of samples on which it is undefined (NaN), so a resampled figure
    computed over them can be withheld instead of shown wrong."""

    def __init__(self, run: RunEvidence) -> None:
        rules = rescoring(run)
        if not isinstance(rules, CorpusStatistic):
            raise ValueError(f"task {run.short_task} ranks a corpus statistic but its family gives no corpus_score")
        self.rules = rules
        self.undefined = 0

    def __call__(self, groups: list[list[SampleEvidence]]) -> float:
        value = self.rules.corpus_score([sample for group in groups for sample in group])
        self.undefined += math.isnan(value)
        return value


def statistic_label(run: RunEvidence) -> str:
    """What a board's score column holds, in words."""
    ranked = ranked_score(run)
    return f"{ranked.key} of the whole sample set" if ranked.corpus else f"mean {ranked.key} over the samples"


def expert_points(run: RunEvidence) -> list[list[float]] | None:
    """(expert score, judge score) per sample where the experts rated the very candidate the judge saw, the experts'
    score read from the data (`radiology_tasks.leaderboard.experts`), for a family whose judges can be ranked by
    agreement; None otherwise."""
    from radiology_tasks.leaderboard.experts import expert_points as points

    rules = rescoring(run)
    return points(run, rules.agreement_key(run)) if isinstance(rules, ExpertAgreement) else None


def board_note(run: RunEvidence) -> str | None:
    """What a reader must know to read the board's figures: how a corpus statistic is resampled."""
    ranked = ranked_score(run)
    if not ranked.corpus:
        return None
    return (
        f"{ranked.key} is a statistic of the whole sample set, not a mean over reports: each interval and paired "
        "test resamples reports and recomputes it."
    )


def _interval(run: RunEvidence, key: str, settings: Settings) -> tuple[Interval, int]:
    """The run's score with its interval, and on how many resampled sets the statistic was undefined."""
    from radiology_tasks.scorers.leaderboard.corpus import statistic_interval
    from radiology_tasks.scorers.leaderboard.significance import mean_interval

    confidence, resamples, seed = settings.confidence, settings.resamples, settings.seed
    if ranked_score(run).corpus:
        groups = samples_by_id(run)
        units = [groups[i] for i in sorted(groups)]
        statistic = _Counted(run)
        interval = statistic_interval(units, statistic, confidence=confidence, resamples=resamples, seed=seed)
        return interval, statistic.undefined - math.isnan(interval.value)
    values = ranked_values(run, key)
    interval = mean_interval([values[i] for i in sorted(values)], confidence=confidence, resamples=resamples, seed=seed)
    return interval, 0


def _paired(
    first: RunEvidence, second: RunEvidence, key: str, ids: list[str], settings: Settings
) -> tuple[PairedTest, int]:
    """Both paired tests, and on how many resampled sets the statistic was undefined."""
    from radiology_tasks.scorers.leaderboard.corpus import paired_statistic_test
    from radiology_tasks.scorers.leaderboard.significance import paired_test

    options = {"resamples": settings.resamples, "seed": settings.seed}
    if ranked_score(first).corpus:
        a, b = samples_by_id(first), samples_by_id(second)
        statistic = _Counted(first)
        test = paired_statistic_test([a[i] for i in ids], [b[i] for i in ids], statistic, **options)
        return test, statistic.undefined
    a_values, b_values = ranked_values(first, key), ranked_values(second, key)
    return paired_test([a_values[i] for i in ids], [b_values[i] for i in ids], **options), 0


def _defined(breakdown: dict[str, dict[str, float]] | None) -> dict[str, dict[str, float | None]] | None:
    """The family's breakdown with an undefined (NaN) figure given as None: the writers show it as missing."""
    if breakdown is None:
        return None
    return {title: {row: None if math.isnan(v) else v for row, v in rows.items()} for title, rows in breakdown.items()}


def _entry(submission: Submission, key: str, out: Path, settings: Settings) -> dict[str, Any]:
    run = submission.run
    assert run is not None
    interval, undefined = _interval(run, key, settings)
    breakdown = _defined(rescoring(run).breakdown(run))
    missing, _ = unscored_share(run)
    bounds: tuple[float | None, float | None] = (interval.low, interval.high)
    empty = {}
    if undefined or any(math.isnan(v) for v in (interval.low, interval.high)):
        bounds = (None, None)
        why = f"no interval: {key} is undefined on {undefined} of the {settings.resamples} resampled sample sets"
        empty = {"ci_low": why, "ci_high": why}
    return {
        "system": submission.system["name"],
        **{k: submission.system.get(k) for k in ("institution", "paper", "code", "description")},
        "score": interval.value,
        "ci_low": bounds[0],
        "ci_high": bounds[1],
        "n": interval.n,
        "n_unscored": missing,
        "log": os.path.relpath(submission.log, out),
        "log_sha256": run.sha256,
        "breakdown": breakdown,
        "expert_points": expert_points(run),
        "empty": empty,
        "checks": checks_made(run.redacted, rescoring(run).needs_judge(), data_checked=data_checked(run)),
    }


def _test(a: str, b: str, test: PairedTest, undefined: int, key: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "a": a,
        "b": b,
        "difference": test.difference,
        "paired_bootstrap_p": test.bootstrap_p,
        "randomization_p": test.randomization_p,
        "n": test.n,
        "empty": {},
    }
    if undefined:
        why = f"not computed: {key} is undefined on {undefined} resampled or swapped sample sets of this pair"
        row |= {"paired_bootstrap_p": None, "randomization_p": None}
        row["empty"] = {"paired_bootstrap_p": why, "randomization_p": why}
    return row


def _ranks(scores: list[float]) -> list[int]:
    """Competition ranks, highest score first (equal scores share a rank)."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def _board(
    members: list[Submission], key_parts: tuple[str, ...], out: Path, settings: Settings
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The board of comparable runs (None when none has a defined score), and a not-ranked row for each run
    whose ranked score is undefined."""
    task, key, data, track = key_parts
    entries = [_entry(m, key, out, settings) for m in members]
    undefined = [i for i, e in enumerate(entries) if math.isnan(e["score"])]
    refused = [
        _not_ranked(members[i], [f"its {key} is undefined (not a number) on its samples, so it has no rank"], out)
        for i in undefined
    ]
    entries = [e for i, e in enumerate(entries) if i not in undefined]
    members = [m for i, m in enumerate(members) if i not in undefined]
    if not members:
        return None, refused
    first = members[0].run
    assert first is not None
    names = Counter(e["system"] for e in entries)
    for entry in entries:
        if names[entry["system"]] > 1:
            entry["system"] = f"{entry['system']} ({Path(entry['log']).stem})"
    order = sorted(range(len(entries)), key=lambda i: -entries[i]["score"])
    entries = [entries[i] for i in order]
    members = [members[i] for i in order]
    for entry, rank in zip(entries, _ranks([e["score"] for e in entries]), strict=True):
        entry["rank"] = rank
    runs = [m.run for m in members if m.run is not None]
    ids = sorted(samples_by_id(runs[0]))
    tests = []
    for i in range(len(entries)):
        for j in range(i + 1, len(entries)):
            test, undefined_sets = _paired(runs[i], runs[j], key, ids, settings)
            tests.append(_test(entries[i]["system"], entries[j]["system"], test, undefined_sets, key))
    setting = comparability(first)
    board = {
        "id": f"{task}-{key}-{data}" + (f"-{track}" if track else ""),
        "task": task,
        "score": key,
        "dataset": {
            "name": data,
            **{k: first.fingerprint.get(k) for k in ("layout", "data_sha256", "revision", "reports_sha256")},
            "sample_ids_sha256": setting["sample set"],
        },
        "track": track or None,
        "task_version": first.task_version,
        "judge": setting["judge"],
        "task_config": setting["task configuration"],
        "n_samples": len(ids),
        "trial": trial_of(members[0], settings),
        "statistic": statistic_label(first),
        "note": board_note(first),
        "entries": entries,
        "significance": {"resamples": settings.resamples, "seed": settings.seed, "tests": tests},
    }
    return board, refused


def _not_ranked(submission: Submission, reasons: list[str], out: Path) -> dict[str, Any]:
    run = submission.run
    return {
        "system": submission.system["name"] or submission.log.name,
        "task": run.short_task if run else None,
        "log": os.path.relpath(submission.log, out),
        "reasons": reasons,
    }


def _full_runs(submissions: list[Submission]) -> list[str]:
    """One line per run that covers its whole dataset, for a trial leaderboard's refusal."""
    return [
        f"{s.log}: covers all {s.coverage[1]} samples of {s.run.dataset_name}"
        for s in submissions
        if s.run is not None and s.coverage is not None and s.coverage[0] == s.coverage[1]
    ]


def _comparable_members(members: list[Submission], out: Path) -> tuple[list[Submission], list[dict[str, Any]]]:
    """The runs of one board made with the settings most of them share, and a not-ranked entry for each other run."""
    settings_seen = [comparability(m.run) for m in members if m.run is not None]
    counts = Counter(_digest(s) for s in settings_seen)
    reference = next(s for s in settings_seen if counts[_digest(s)] == max(counts.values()))
    ranked = [m for m, s in zip(members, settings_seen, strict=True) if s == reference]
    board_run = ranked[0].run
    assert board_run is not None
    set_aside = []
    for member, setting in zip(members, settings_seen, strict=True):
        if setting != reference:
            assert member.run is not None
            reason = not_comparable(setting, reference, member.run, board_run)
            set_aside.append(_not_ranked(member, [reason], out))
    return ranked, set_aside


def build_leaderboard(paths: list[Path], out: Path, settings: Settings | None = None) -> dict[str, Any]:
    """Check every run, group comparable ones into boards, rank them with intervals and paired tests.

    Raises:
        MixedRuns: on a trial leaderboard (`settings.trial`), when a run covers its whole dataset.
    """
    settings = settings or Settings()
    submissions = load_submissions(paths, settings)
    full = _full_runs(submissions) if settings.trial else []
    if full:
        raise MixedRuns(
            [
                "a trial leaderboard ranks runs on part of their dataset and never ranks a full run beside them; "
                "rank these without --trial, the trial runs with it:",
                *full,
            ]
        )
    not_ranked = [_not_ranked(s, s.problems, out) for s in submissions if s.problems]
    groups: dict[tuple[str, str, str, str], list[Submission]] = {}
    judged = [s for s in submissions if not s.problems and s.track == JUDGES_TRACK]
    for submission in submissions:
        if not submission.problems and submission.track != JUDGES_TRACK:
            groups.setdefault(_board_key(submission), []).append(submission)
    boards = []
    for key_parts, members in groups.items():
        ranked, set_aside = _comparable_members(members, out)
        not_ranked += set_aside
        board, undefined = _board(ranked, key_parts, out, settings)
        not_ranked += undefined
        if board is not None:
            boards.append(board)
    judge_boards: list[dict[str, Any]] = []
    if judged:
        from radiology_tasks.leaderboard.judges import judge_boards as rank_judges

        judge_boards, judges_not_ranked = rank_judges(judged, out, settings)
        not_ranked += judges_not_ranked
    return {
        "schema_version": SCHEMA_VERSION,
        "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "radiology_tasks_version": version("radiology-tasks"),
        "trial": settings.trial,
        "settings": {
            "confidence": settings.confidence,
            "resamples": settings.resamples,
            "seed": settings.seed,
            "max_unscored": settings.max_unscored,
            "unscored": "worst",
        },
        "boards": boards,
        "judge_boards": judge_boards,
        "not_ranked": not_ranked,
    }
