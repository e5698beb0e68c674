"""`radiology-tasks submit`: check logs and write them, with a manifest, as a leaderboard submission bundle."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from radiology_tasks.core.family import family_of
from radiology_tasks.core.layouts import all_layouts
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.leaderboard import DEFAULT_MAX_UNSCORED, JUDGES_TRACK, TRACKS
from radiology_tasks.leaderboard.checks import run_violations, unscored_share
from radiology_tasks.leaderboard.evidence import RunEvidence, read_run
from radiology_tasks.leaderboard.manifest import MANIFEST, MANIFEST_VERSION, Manifest, problems, read_bundle
from radiology_tasks.leaderboard.redact import REDACTION_KEY, Redaction, SampleKey, redact_log
from radiology_tasks.leaderboard.rescore import ranked_score, rescoring
from radiology_tasks.leaderboard.rules import CorpusStatistic, RescoresRedacted

# Task settings that describe the system under test or the sample selection rather than how the ranked score is
# given; each family adds the settings that only add scores beside the ranked one (`Family.side_args`).
SYSTEM_ARGS = frozenset(
    {
        "data",
        "candidates",
        "reports",
        "revision",
        "layout",
        "track",
        "image_root",
        "expert_scale",
        "limit",
        "seed",
        "on_bad_rows",
        "generate",
        "report_max_tokens",
        "images",
        "missing_images",
    }
)


@dataclass(frozen=True)
class SystemCard:
    """What a submission says about the system: only the name is needed, and it has a default."""

    name: str | None = None
    institution: str | None = None
    paper: str | None = None
    code: str | None = None
    description: str | None = None
    track: str | None = None


class SubmissionRefused(ValueError):
    """The logs failed the checks; `lines` has one line per violation, each naming its log."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def generation_of(run: RunEvidence) -> dict[str, Any] | None:
    """What the run recorded about the generation log its candidates came from, or None."""
    generation = (run.metadata.get("data") or {}).get("generation")
    return generation if isinstance(generation, dict) else None


def mixed_generation_logs(runs: list[tuple[str, RunEvidence]]) -> list[str]:
    """One line per run when one system's runs (named by log) judge different generated reports, else none.

    Runs whose candidates came from generation logs must all name the same log (by SHA-256), and runs
    without such a log may not stand beside them: each would score other reports under one system's name.
    """
    sources = {name: (generation_of(run) or {}).get("log_sha256") for name, run in runs}
    if not any(sources.values()) or len(set(sources.values())) == 1:
        return []
    rule = "one system's runs must judge the reports of one generation log"
    return [
        f"{name}: candidates from generation log {sha}; {rule}"
        if sha
        else f"{name}: candidates not from a generation log, beside runs that judge one; {rule}"
        for name, sha in sources.items()
    ]


def default_system_name(run: RunEvidence) -> str:
    """The model under test, the generator of the generation log the candidates came from, or the
    candidates file's name for other replayed candidates."""
    generation = generation_of(run)
    if generation is not None and generation.get("model"):
        return str(generation["model"])
    candidates = run.task_args.get("candidates")
    if candidates:
        return Path(str(candidates)).stem
    if run.model and run.model != "none/none":
        return run.model
    return f"{Path(str(run.task_args.get('data') or 'demo')).stem} candidates"


def judge_settings(run: RunEvidence) -> dict[str, Any]:
    """The judge's name and the settings of its calls (temperatures and seeds seen), for comparing runs."""
    calls = [call for sample in run.samples for call in sample.judge_calls]
    return {
        "model": run.judge,
        "temperatures": sorted({c.temperature for c in calls if c.temperature is not None}),
        "seeded": bool(calls) and all(c.seed is not None for c in calls),
    }


def task_config(run: RunEvidence) -> dict[str, Any]:
    """The task settings that change how a report is scored (everything but the system and sample selection)."""
    family = family_of(run.short_task)
    side = set(family.side_args) if family else set()
    return {k: v for k, v in sorted(run.task_args.items()) if k not in SYSTEM_ARGS and k not in side}


def run_entry(run: RunEvidence, log_name: str) -> dict[str, Any]:
    """The manifest's description of one checked run."""
    ranked = ranked_score(run)
    key = ranked.key
    if ranked.corpus:
        rules = rescoring(run)
        mean = rules.corpus_score(run.samples) if isinstance(rules, CorpusStatistic) else None
    else:
        present = [v for v in (s.values.get(key) for s in run.samples) if v is not None]
        mean = sum(present) / len(present) if present else None
    missing, total = unscored_share(run)
    return {
        "log": log_name,
        "sha256": run.sha256,
        "task": run.short_task,
        "task_version": run.task_version,
        "score": key,
        "mean": mean,
        "n": total,
        "n_unscored": missing,
        "dataset": {
            "name": run.dataset_name,
            **run.fingerprint,
            "sample_ids_sha256": run.sample_ids_sha256(),
        },
        "judge": judge_settings(run),
        "task_config": task_config(run),
        "templates": run.templates,
    }


def check_logs(paths: list[Path], *, max_unscored: float = DEFAULT_MAX_UNSCORED) -> list[RunEvidence]:
    """Read and check every log.

    Raises:
        SubmissionRefused: listing every violation of every log, each line prefixed with the log's file name.
    """
    runs, lines = [], []
    for path in paths:
        try:
            run = read_run(path)
        except ValueError as error:
            lines.append(str(error))
            continue
        lines += [f"{path.name}: {line}" for line in run_violations(run, max_unscored=max_unscored)]
        runs.append(run)
    names = [p.name for p in paths]
    lines += [f"{name}: given twice" for name in sorted({n for n in names if names.count(n) > 1})]
    if lines:
        raise SubmissionRefused(lines)
    return runs


def credentialed_data(run: RunEvidence) -> str | None:
    """Why the run's data may not be passed on (its layout is a credentialed dataset's), or None."""
    layout = all_layouts().get(str(run.fingerprint.get("layout")))
    if layout is None or not layout.credentialed:
        return None
    return f"dataset {run.dataset_name} is credentialed (layout {layout.name})"


def redaction_reason(runs: list[tuple[str, RunEvidence]], redact: bool | None) -> str | None:
    """Why the bundle's logs are redacted, or None when they are copied whole.

    Args:
        runs: The checked runs, by log name.
        redact: ``--redact-text`` (True), ``--no-redact-text`` (False), or None to redact when any run's data is
            credentialed.
    """
    if any(run.redacted for _, run in runs):
        return "the logs were redacted already"  # whatever was asked: they hold no texts to keep
    reasons = sorted({reason for _, run in runs if (reason := credentialed_data(run)) is not None})
    if redact is False:
        return None
    if reasons:
        return "; ".join(reasons)
    return "--redact-text" if redact else None


def unredactable(runs: list[tuple[str, RunEvidence]]) -> list[str]:
    """One line per run whose task cannot be re-scored from a redacted log (its scores come from the texts)."""
    return [
        f"{name}: task {run.short_task} cannot be re-scored without its texts, so it cannot be submitted redacted"
        for name, run in runs
        if not isinstance(rescoring(run), RescoresRedacted)
    ]


def parsed_answers_of(run: RunEvidence) -> dict[SampleKey, dict[str, Any]]:
    """What the scorer read from each sample's judge answers, for a redacted copy to keep."""
    rules = rescoring(run)
    assert isinstance(rules, RescoresRedacted)
    return {(sample.id, sample.epoch): rules.parsed_answers(run, sample) for sample in run.samples}


def _check_target(out: Path, replace: bool) -> None:
    """Refuse an output folder that is not empty, unless it is a bundle and `replace` says to replace it."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ValueError(f"{out} is a file; give a new directory for the bundle")
    if not any(out.iterdir()):
        return
    if not replace:
        raise ValueError(
            f"{out} is not empty; give a new directory, or --replace to replace the submission bundle there"
        )
    try:
        read_bundle(out)
    except ValueError as error:
        raise ValueError(f"--replace replaces a submission bundle only, and {out} is not one: {error}") from None
    unknown = sorted(p.name for p in out.iterdir() if p.name not in (MANIFEST, "logs"))
    if unknown or ((out / "logs").exists() and any(p.is_dir() for p in (out / "logs").iterdir())):
        shown = ", ".join(unknown) or "folders under logs/"
        raise ValueError(f"--replace replaces a submission bundle only, and {out} holds more ({shown})")


def _move_into_place(built: Path, out: Path) -> None:
    """Put the bundle built in `built` at `out`, replacing the bundle there (checked by `_check_target`)."""
    if out.exists():
        old = out.with_name(f".{out.name}.replaced")
        out.rename(old)
        built.rename(out)
        shutil.rmtree(old)
    else:
        built.rename(out)


def write_bundle(
    paths: list[Path],
    out: Path,
    card: SystemCard,
    *,
    max_unscored: float = DEFAULT_MAX_UNSCORED,
    redact: bool | None = None,
    replace: bool = False,
) -> Path:
    """Check the logs and write `out/manifest.json` and `out/logs/<log>`; returns the manifest's path.

    The logs are checked as they are, then copied whole, or redacted (`radiology_tasks.leaderboard.redact`):
    with `redact` True, or when `redact` is None and a run's data is credentialed. The bundle is built beside
    `out` and moved into place, so a refused or failed submission leaves `out` as it was.

    Raises:
        SubmissionRefused: when any log fails a check, or cannot be redacted (nothing is written).
        ValueError: for an unknown track, or an output folder that is not empty (and not a bundle `replace`
            may replace).
    """
    if card.track is not None and card.track not in TRACKS:
        raise ValueError(f"--track must be one of {', '.join(TRACKS)}; got {card.track!r}")
    _check_target(out, replace)
    runs = check_logs(paths, max_unscored=max_unscored)
    mismatched = [
        f"{path.name}: the data's track is {run.data_track}, the submission's --track {card.track}"
        for path, run in zip(paths, runs, strict=True)
        if run.data_track is not None and card.track not in (None, JUDGES_TRACK) and run.data_track != card.track
    ]
    named = [(path.name, run) for path, run in zip(paths, runs, strict=True)]
    mismatched += mixed_generation_logs(named)
    reason = redaction_reason(named, redact)
    if reason is not None:
        mismatched += unredactable(named)
    if mismatched:
        raise SubmissionRefused(mismatched)
    out.parent.mkdir(parents=True, exist_ok=True)
    built = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        manifest_path = _write_files(paths, runs, built, card, max_unscored, reason)
        _move_into_place(built, out)
    except BaseException:
        shutil.rmtree(built, ignore_errors=True)
        raise
    return out / manifest_path.name


def _write_files(
    paths: list[Path],
    runs: list[RunEvidence],
    out: Path,
    card: SystemCard,
    max_unscored: float,
    reason: str | None,
) -> Path:
    """Write the bundle's logs (whole, or redacted for `reason`) and its manifest into `out`."""
    (out / "logs").mkdir(parents=True, exist_ok=True)
    entries = []
    for path, run in zip(paths, runs, strict=True):
        target = out / "logs" / path.name
        entry = run_entry(run, f"logs/{path.name}")
        if reason is None:
            shutil.copyfile(path, target)
        elif run.redacted:  # a redacted log is bundled as it is: its parsed answers cannot be read again
            shutil.copyfile(path, target)
            entry["redaction"] = run.metadata[REDACTION_KEY]
        else:
            redaction: Redaction = redact_log(path, target, reason, parsed_answers_of(run))
            entry["sha256"] = file_sha256(target)
            entry["redaction"] = redaction.record()
        entries.append(entry)
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "radiology_tasks_version": version("radiology-tasks"),
        "system": {
            "name": card.name or default_system_name(runs[0]),
            "institution": card.institution,
            "paper": card.paper,
            "code": card.code,
            "description": card.description,
        },
        "track": card.track,
        "max_unscored": max_unscored,
        "redacted": None
        if reason is None
        else {
            "reason": reason,
            "what": "every report, candidate and judge answer text in the logs is its sha256:<hex>; the numbers, "
            "reason codes, settings and parsed judge answers are kept",
        },
        "runs": entries,
    }
    try:
        Manifest.model_validate(manifest)  # what the readers will accept, field by field
    except ValidationError as error:
        raise ValueError(f"{MANIFEST}: {problems(error)}") from None
    target = out / MANIFEST
    target.write_text(json.dumps(manifest, indent=2) + "\n")
    return target
