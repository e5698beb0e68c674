"""The checks a log must pass before it is submitted or ranked, each failure as one line naming what is wrong."""

from __future__ import annotations

from collections import Counter

from radiology_tasks.core.family import family_of
from radiology_tasks.core.layouts import all_layouts
from radiology_tasks.core.loading import load_options
from radiology_tasks.core.studies import as_run_used
from radiology_tasks.core.task_data import DataOptions, data_fingerprint
from radiology_tasks.leaderboard import DEFAULT_MAX_UNSCORED
from radiology_tasks.leaderboard.evidence import RunEvidence
from radiology_tasks.leaderboard.rescore import ranked_score, rescoring, rescoring_violations, task_family
from radiology_tasks.leaderboard.rules import LeavesOut
from radiology_tasks.leaderboard.run_data import data_absence, run_data_options

_SHOWN_IDS = 5


def released_version(short_task: str) -> str:
    """The task version this installed package releases for `short_task`.

    Raises:
        ValueError: for a task of no family.
    """
    family = family_of(short_task)
    if family is None:
        raise ValueError(f"task {short_task} belongs to no installed family")
    return family.version


def released_templates(short_task: str) -> dict[str, str]:
    """Template hashes this installed package releases for `short_task`'s family (every folder it declares)."""
    from radiology_tasks.templates import template_hashes

    family = family_of(short_task)
    hashes: dict[str, str] = {}
    for folder in family.templates if family else ():
        hashes |= template_hashes(folder)
    return hashes


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else "")


def dataset_ids(run: RunEvidence) -> list[str]:
    """The ids of every sample of the run's dataset, loaded again from the data the run names (one per study when
    the run records that it folded the pairs into studies, as generated runs do).

    Raises:
        ValueError: when the data cannot be loaded here.
    """
    listed = rescoring(run).sample_ids(run)
    if listed is not None:
        return listed
    options = run_data_options(run)
    loaded = load_options(DataOptions(**{**options.__dict__, "candidates": None}))
    return [pair.id for pair in as_run_used(loaded.pairs, run.metadata.get("data") or {})]


TRIAL_HINT = "a run on part of the data is ranked only on a trial page: radiology-tasks leaderboard --trial"


def coverage(run: RunEvidence) -> tuple[int, int]:
    """(the dataset's samples the run logged, the dataset's samples): a trial run covers fewer than all.

    Raises:
        ValueError: when the data cannot be loaded here.
    """
    expected = dataset_ids(run)
    logged = {s.id for s in run.samples}
    return sum(1 for i in expected if i in logged), len(expected)


def _sample_set_violations(run: RunEvidence, *, trial: bool) -> list[str]:
    lines = _duplicate_lines(run)
    args = run.task_args
    data = run.data_name
    hub_layout = all_layouts().get(data)
    if hub_layout is not None and hub_layout.hub_repo and not (args.get("revision") or run.fingerprint.get("revision")):
        lines.append(f"dataset {data} comes from the Hugging Face hub and the run did not pin -T revision")
    absent = data_absence(run) if run.redacted else None
    if absent is not None:
        return [*lines, *_recorded_sample_set_violations(run, absent, trial=trial)]
    try:
        expected = dataset_ids(run)
    except Exception as error:  # noqa: BLE001 - any loading failure is reported as the line it gives
        return [*lines, f"the dataset {data} cannot be loaded here to check the sample set: {error}"]
    return [*lines, *_coverage_lines(run, expected, trial=trial), *_fingerprint_lines(run)]


def _duplicate_lines(run: RunEvidence) -> list[str]:
    """A line for each sample and epoch the log holds more than once."""
    counts = Counter((s.id, s.epoch) for s in run.samples)
    return [
        f"sample {sample_id} (epoch {epoch}) appears {count} times"
        for (sample_id, epoch), count in sorted(counts.items())
        if count > 1
    ]


def _coverage_lines(run: RunEvidence, expected: list[str], *, trial: bool) -> list[str]:
    """What is wrong with the run's samples against the dataset's `expected` ids: missing ones (unless `trial`),
    ones the dataset does not hold, and, on a trial, none in common."""
    lines = []
    logged = {s.id for s in run.samples}
    missing = [i for i in expected if i not in logged]
    extra = sorted(logged - set(expected))
    if missing and not trial:
        lines.append(
            f"{len(missing)} of the dataset's {len(expected)} samples are missing: {_ids(missing)} ({TRIAL_HINT})"
        )
    if extra:
        lines.append(f"{len(extra)} samples are not in the dataset: {_ids(extra)}")
    if trial and not logged & set(expected):
        lines.append(f"none of the run's samples is in the dataset {run.data_name}")
    return lines


def _fingerprint_lines(run: RunEvidence) -> list[str]:
    """A line for a missing data fingerprint, for data files that cannot be read here, or for each file whose
    SHA-256 differs from the one the log records."""
    recorded = run.fingerprint
    if not recorded:
        return ["the log records no data fingerprint (made before radiology-tasks recorded one); run it again"]
    try:
        now = data_fingerprint(run_data_options(run))
    except (OSError, ValueError) as error:
        return [f"the run's data files cannot be read here to check their SHA-256: {error}"]
    # Logs made before hub data was hashed pin it by the revision alone (checked by the caller).
    hashed_hub = "layout" in recorded or recorded.get("data_sha256") is not None
    names = ("data_sha256", "candidates_sha256", "reports_sha256") if hashed_hub else ("candidates_sha256",)
    return [
        _changed_line(name, run, recorded.get(name), now[name]) for name in names if recorded.get(name) != now[name]
    ]


def _recorded_sample_set_violations(run: RunEvidence, absent: str, *, trial: bool) -> list[str]:
    """What can be checked of a redacted run whose data is not here (`absent` says why): the log must record the
    data's SHA-256 and how many samples the task made of it, and hold that many. Boards then compare runs by their
    recorded fingerprints and their logged sample sets (`radiology_tasks.leaderboard.comparison`)."""
    data = run.data_name
    where = f"the dataset {data} is not here ({absent})"
    if trial:
        return [f"{where}, so a trial board cannot count how much of it the run covers; rank it where the data is"]
    lines = []
    if not run.fingerprint.get("data_sha256"):
        lines.append(f"{where} and the log records no SHA-256 of it to compare runs by")
    limit = run.task_args.get("limit")
    if limit is not None:
        lines.append(f"{where} to show that the run, limited to -T limit={limit}, covers all of it")
    recorded = (run.metadata.get("data") or {}).get("samples")
    logged = len({s.id for s in run.samples})
    if not isinstance(recorded, int):
        lines.append(f"{where} and the log records no count of its samples to check the run's against")
    elif recorded != logged:
        lines.append(f"the log records {recorded} samples of the dataset {data} at eval time but holds {logged}")
    return lines


def _changed_line(name: str, run: RunEvidence, recorded: str | None, now: str | None) -> str:
    """One line saying which file changed since the run, named as the run gave it, with both SHA-256."""
    kind = name.removesuffix("_sha256")
    what = f"data {run.data_name}" if kind == "data" else f"{kind} file {run.task_args.get(kind)}"
    return f"{what} changed since the run ({name} {recorded} in the log, {now} here)"


def _release_violations(run: RunEvidence) -> list[str]:
    lines = []
    released = released_version(run.short_task)
    if run.task_version != released:
        lines.append(f"task version {run.task_version} is not the released {run.short_task} version {released}")
    recorded = run.templates
    if recorded is None:
        lines.append("the log records no prompt-template hashes (made before they were recorded); run it again")
        return lines
    for name, digest in sorted(released_templates(run.short_task).items()):
        if recorded.get(name) != digest:
            lines.append(f"prompt template {name} differs from the released one")
    for name in sorted(set(recorded) - set(released_templates(run.short_task))):
        lines.append(f"prompt template {name} is not one of the released templates")
    return lines


def _judge_violations(run: RunEvidence) -> list[str]:
    if run.judge is None:
        return ["no judge named: run with --model-role grader=<judge model>"]
    lines = []
    scored = [s for s in run.samples if s.error is None]
    if scored and not any(s.has_events for s in scored):
        return ["the log keeps no model events, so the judge's settings cannot be checked (do not use --no-log-…)"]
    for sample in scored:
        for call in sample.judge_calls:
            if call.temperature == 0 or call.seed is not None:
                continue
            shown = f"temperature {call.temperature}" if call.temperature is not None else "the default temperature"
            lines.append(f"sample {sample.id}: the judge ran at {shown} without a seed")
            break
    return lines


def unscored_share(run: RunEvidence) -> tuple[int, int]:
    """(samples whose ranked score is unscored, samples): a filled-in worst value counts as unscored; samples the
    task left out by design (`rules.LeavesOut`) count in neither."""
    key = ranked_score(run).sample_key
    rules = rescoring(run)
    counted = [s for s in run.samples if not (isinstance(rules, LeavesOut) and rules.left_out(s))]
    missing = sum(1 for s in counted if key in (s.metadata.get("unscored") or {}) or s.values.get(key) is None)
    return missing, len(counted)


def _aggregate_violations(run: RunEvidence) -> list[str]:
    ranked = ranked_score(run)
    if ranked.corpus:
        return []  # the family's run checks recompute a corpus statistic
    key = ranked.key
    logged = run.results.get(f"{key}_mean")
    values = [s.values.get(key) for s in run.samples]
    present = [v for v in values if v is not None]
    if logged is None or not present:
        return [] if logged is None and not present else [f"results: {key}_mean is missing or has no samples"]
    mean = sum(present) / len(present)
    if abs(mean - logged) > 1e-9:
        return [f"results: {key}_mean {logged:.6g} is not the mean of the samples' {key} ({mean:.6g})"]
    return []


def run_violations(run: RunEvidence, *, max_unscored: float = DEFAULT_MAX_UNSCORED, trial: bool = False) -> list[str]:
    """Every reason `run` cannot be submitted or ranked; empty when it passes.

    With `trial`, a run may cover part of its dataset (`-T limit`); every other check is the same.
    """
    try:
        task_family(run)
    except ValueError as error:
        return [str(error)]
    lines = []
    if run.status != "success":
        lines.append(f"log status is {run.status}, not success")
    for sample in run.samples:
        if sample.error is not None:
            lines.append(f"sample {sample.id}: error: {sample.error.splitlines()[0]}")
    lines += _sample_set_violations(run, trial=trial)
    lines += _release_violations(run)
    if rescoring(run).needs_judge():
        lines += _judge_violations(run)
    missing, total = unscored_share(run)
    if total and missing / total > max_unscored:
        lines.append(
            f"{missing} of {total} samples ({missing / total:.1%}) are unscored, "
            f"above --max-unscored {max_unscored:.1%}"
        )
    lines += rescoring_violations(run)
    lines += _aggregate_violations(run)
    return lines
