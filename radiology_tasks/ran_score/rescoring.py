"""Checking and ranking a stored ran_score log: every label read again from the judge answers the log keeps.

A sample's score metadata keeps every judge call made for it (``judge_attempts``: the raw answer, stop reason
and the label asked). To read the labels again, those answers are handed, in the order they were given, to the
task's own `Extractor` through a stand-in judge, so the same reading, retry and selection code that ran in the
solver decides the labels again. The sample's ``label_agreement`` then follows from the scorer's own
`agreement_score`, and the corpus figures (the Ran Score is the macro F1 over labels) from the task's own
metrics over the stored labels, which must be the labels the answers give.

Labels that no answer in the log gives cannot be checked and are refused: labels read from label files
(``-T reference_labels``, ``-T candidate_labels``), and reference labels taken from the label cache of an
earlier run (a reference read earlier in the same run is checked against that reading).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from inspect_ai.model import GenerateConfig, Model, ModelOutput, ModelUsage, StopReason
from inspect_ai.scorer import Metric, MetricProtocol, SampleScore, Score
from pydantic import ValidationError

from radiology_tasks.core.constrain import ConstrainedConfig
from radiology_tasks.core.judge import stored_truncated
from radiology_tasks.core.metrics import mean_of
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rules import PARSED_ANSWERS, FunctionRescoring, RankedScore
from radiology_tasks.ran_score.extraction import Extraction, Extractor, ReportLabels, extraction_prompt
from radiology_tasks.ran_score.metrics import MACRO_F1, ran_f1, ran_per_label
from radiology_tasks.ran_score.records import CANDIDATE_LABELS, REFERENCE_LABELS, UNSCORED_POLICY, Side, side_field
from radiology_tasks.ran_score.scorer import MAIN_KEY, SIDES, agreement_score
from radiology_tasks.ran_score.solver import read_candidate
from radiology_tasks.ran_score.taxonomy import load_taxonomy, taxonomy_digest
from radiology_tasks.scorers.taxonomy import Taxonomy

BREAKDOWN_TITLE = "F1 by finding label"
_TOLERANCE = 1e-9
_SHOWN_LABELS = 3
_REPLAY_BUDGET = 2**62
"""The token budget of a replay: out of any stored answer's reach, so that token counts do not decide again whether
an answer was cut; the stand-in judge says so from the stored record (`stored_truncated`)."""


@dataclass(frozen=True)
class _Settings:
    """The run's -T settings that decide how answers are read and scored."""

    taxonomy: Taxonomy
    extraction: Extraction
    policy: UnscoredPolicy
    retries: int


@lru_cache(maxsize=8)
def _parsed_taxonomy(path: str | None, stamp: tuple[int, int] | None) -> Taxonomy:
    return load_taxonomy(path)


def _taxonomy(path: str | None) -> Taxonomy:
    """The taxonomy file `path` (None: the bundled one), parsed once while the file stays the same."""
    try:
        info = Path(path).expanduser().stat() if path else None
    except OSError:
        return load_taxonomy(path)  # raises the task's own message
    return _parsed_taxonomy(path, None if info is None else (info.st_mtime_ns, info.st_size))


def _settings(run: RunEvidence) -> _Settings:
    """The run's reading settings.

    Raises:
        ValueError: the taxonomy file cannot be read here, or a setting is not one the task accepts.
    """
    args = run.task_args
    extraction = args.get("extraction") or "batch"
    if extraction not in ("batch", "per_label"):
        raise ValueError(f"-T extraction {extraction!r} is not one the task accepts")
    retries = args.get("judge_retries")
    return _Settings(
        taxonomy=_taxonomy(args.get("taxonomy")),
        extraction=cast(Extraction, extraction),
        policy=check_policy(args.get("unscored") or "worst"),
        retries=1 if retries is None else int(retries),
    )


_Reader = Callable[[Extractor, str], Coroutine[Any, Any, ReportLabels]]
"""Reads one report's labels with an extractor: the solver's way for the reference side or the candidate side."""


class _ReplayError(Exception):
    """The stored answers of one report cannot have come from the task's own way of asking."""


class _Rejected(Exception):
    """A request the provider rejected, raised again from the message the attempt stored."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _StoredJudge:
    """Stands in for the judge: answers each prompt with the next stored attempt made for the same labels.

    An attempt the scorer counted as cut at its budget (`stored_truncated`: by its stop reason, or by its token
    count where the log records that) is answered with the stop reason ``max_tokens``, so the task's own code
    takes it as cut, re-asks as it did, and gives its labels the reason it gave them.
    """

    def __init__(self, queues: dict[str | None, list[dict[str, Any]]], label_of: dict[str, str] | None) -> None:
        self.queues = queues
        self.label_of = label_of

    async def generate(self, prompt: str, config: GenerateConfig | None = None, cache: bool = True) -> ModelOutput:
        label = None if self.label_of is None else self.label_of[prompt]
        queue = self.queues.get(label)
        if not queue:
            asked = "" if label is None else f" about {label}"
            raise _ReplayError(f"the task would have asked the judge{asked} again, but the log stores no answer")
        attempt = queue.pop(0)
        answer, stop = attempt.get("answer"), attempt.get("stop_reason")
        if not isinstance(answer, str):
            raise _ReplayError("a stored judge attempt has no answer text")
        if stop == "error":
            raise _Rejected(answer)
        if stored_truncated(attempt):
            stop = "max_tokens"
        try:
            output = ModelOutput.from_content(model="stored", content=answer, stop_reason=cast(StopReason, stop))
            output.usage = ModelUsage(
                input_tokens=attempt.get("input_tokens") or 0, output_tokens=attempt.get("output_tokens") or 0
            )
        except ValidationError as error:
            problem = error.errors()[0]["msg"]
            raise _ReplayError(f"a stored judge attempt is not one a judge call records ({problem})") from None
        return output


def _replayed(settings: _Settings, report: str, attempts: list[dict[str, Any]], read: _Reader) -> ReportLabels:
    """The labels `read` gives when the judge's stored attempts answer again, in order.

    Raises:
        _ReplayError: the task would have asked for more answers, or fewer, than the log stores.
    """
    queues: dict[str | None, list[dict[str, Any]]] = {}
    for attempt in attempts:
        queues.setdefault(attempt.get("label"), []).append(attempt)
    label_of = None
    if settings.extraction == "per_label":
        taxonomy = settings.taxonomy
        label_of = {extraction_prompt(taxonomy, [x], report, "per_label"): x.key for x in taxonomy.asked}
    reader = Extractor(
        cast(Model, _StoredJudge(queues, label_of)),
        settings.taxonomy,
        settings.extraction,
        ConstrainedConfig(GenerateConfig(), "none", ""),
        max_tokens=_REPLAY_BUDGET,
        temperature=0.0,
        retries=settings.retries,
    )
    labels: ReportLabels = asyncio.run(read(reader, report))
    left = sum(len(queue) for queue in queues.values())
    if left:
        raise _ReplayError(f"{left} stored judge answer(s) are ones the task would not have asked for")
    return labels


async def _read_reference(reader: Extractor, report: str) -> ReportLabels:
    return await reader.extract(report)


def _stored(taxonomy: Taxonomy, sample: SampleEvidence, side: Side) -> ReportLabels:
    """A side's labels as the sample stores them (for labels no stored answer gives, and for a redacted run,
    whose unscored reasons are hashes: their codes are in its parsed answers)."""
    by_column = sample.metadata.get(side_field(side, "labels")) or {}
    reasons = sample.metadata.get(side_field(side, "unscored")) or {}
    parsed = sample.metadata.get(PARSED_ANSWERS)
    if isinstance(parsed, dict) and isinstance(parsed.get(side_field(side, "unscored")), dict):
        reasons = parsed[side_field(side, "unscored")]
    unscored: dict[str, tuple[str, str]] = {}
    for label in taxonomy.labels:
        if by_column.get(label.column) is None:
            code, _, detail = str(reasons.get(label.column, "unscored")).partition(": ")
            unscored[label.key] = (code, detail)
    labels = {label.key: by_column.get(label.column) for label in taxonomy.labels}
    return ReportLabels(source="file", labels=labels, unscored=unscored)


def _side(run: RunEvidence, settings: _Settings, sample: SampleEvidence, side: Side) -> tuple[ReportLabels, list[str]]:
    """One side's labels read again from the stored answers, with a line for each reason they cannot be."""
    source = sample.metadata.get(side_field(side, "source"))
    if source == "judge":
        attempts = [a for a in sample.metadata.get("judge_attempts") or [] if a.get("report") == side]
        read: _Reader = _read_reference if side == "reference" else read_candidate
        report = (sample.target if side == "reference" else sample.candidate) or ""
        try:
            return _replayed(settings, report, attempts, read), []
        except _ReplayError as error:
            return _stored(settings.taxonomy, sample, side), [f"sample {sample.id}: {side} report: {error}"]
    if source == "cache" and side == "reference":
        # A reference read earlier in this run is reused: check against that reading.
        for other in run.samples:
            if (
                other.error is None
                and other.target == sample.target
                and other.metadata.get(side_field(side, "source")) == "judge"
            ):
                return _side(run, settings, other, side)[0], []
        line = (
            f"sample {sample.id}: its reference labels come from the label cache of an earlier run, so no judge "
            "answer in this log gives them (run with -T label_cache=off)"
        )
        return _stored(settings.taxonomy, sample, side), [line]
    if source == "file":
        return _stored(settings.taxonomy, sample, side), []  # one run-level line names the label file
    line = f"sample {sample.id}: its {side} labels have no source a judge answer gives ({source!r})"
    return _stored(settings.taxonomy, sample, side), [line]


def _reread(run: RunEvidence, settings: _Settings, sample: SampleEvidence) -> tuple[dict[str, ReportLabels], list[str]]:
    """Both sides' labels read again from the stored answers; a redacted run keeps hashes of the answers, so its
    labels are those it stores as read from them (its answers are checked against the judge's by hash only)."""
    if run.redacted:
        return {side: _stored(settings.taxonomy, sample, side) for side in SIDES}, []
    sides: dict[str, ReportLabels] = {}
    lines: list[str] = []
    for side in SIDES:
        sides[side], problems = _side(run, settings, sample, side)
        lines += problems
    return sides, lines


def ranked(run: RunEvidence) -> RankedScore:
    """The Ran Score (macro F1 over labels), a corpus statistic in [0, 1]; a sample without ``label_agreement``
    is unscored."""
    return RankedScore(key=MACRO_F1, bounded=True, corpus=True, per_sample=MAIN_KEY)


def expected(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """``label_agreement`` as the scorer gives it for the labels the sample's stored answers give."""
    try:
        settings = _settings(run)
    except ValueError:
        return {}  # run_checks names the setting
    sides, _ = _reread(run, settings, sample)
    score = agreement_score(settings.taxonomy, sides, None, settings.policy, sample.candidate)
    return {MAIN_KEY: float(cast(dict[str, float], score.value)[MAIN_KEY])}


def parsed_answers(run: RunEvidence, sample: SampleEvidence) -> dict[str, Any]:
    """The reason code of each label the judge's answers left unread, by side (the labels read are in the score
    metadata already); a redacted log keeps these in place of the reasons' text."""
    return {
        side_field(side, "unscored"): {
            column: str(reason).partition(": ")[0]
            for column, reason in (sample.metadata.get(side_field(side, "unscored")) or {}).items()
        }
        for side in SIDES
    }


def answers(sample: SampleEvidence) -> list[str]:
    """Every answer the judge returned for the sample (a rejected request stores the provider's message instead)."""
    attempts = sample.metadata.get("judge_attempts") or []
    return [str(a.get("answer")) for a in attempts if a.get("stop_reason") != "error"]


def _computed(compute: Metric, samples: list[SampleEvidence]) -> dict[str, float]:
    """What one of the task's metrics gives over the samples (a value the log does not hold is NaN)."""
    scores = [
        SampleScore(
            score=Score(value={k: math.nan if v is None else v for k, v in s.values.items()}, metadata=s.metadata),
            sample_id=s.id,
        )
        for s in samples
        if s.error is None
    ]
    return cast(dict[str, float], cast(MetricProtocol, compute)(scores))


def _policy_of(samples: list[SampleEvidence]) -> UnscoredPolicy:
    """The unscored policy the samples were scored under (the corpus F1 applies it to unknown candidate labels)."""
    for sample in samples:
        if sample.metadata.get(UNSCORED_POLICY) is not None:
            return check_policy(str(sample.metadata[UNSCORED_POLICY]))
    return "worst"


def corpus_score(samples: list[SampleEvidence]) -> float:
    """The Ran Score over `samples` (repeats count again), by the task's own metric over their stored labels."""
    columns: list[str] = []
    for sample in samples:
        if sample.error is None and sample.metadata.get(REFERENCE_LABELS):
            columns = list(sample.metadata[REFERENCE_LABELS])
            break
    figures = _computed(ran_f1(columns, columns, _policy_of(samples)), samples)
    return float(figures[MACRO_F1])


def _figures(settings: _Settings, samples: list[SampleEvidence]) -> dict[str, float]:
    """Every corpus figure the task logs, recomputed from the samples' stored labels."""
    columns, keys, policy = settings.taxonomy.columns, settings.taxonomy.keys, settings.policy
    figures: dict[str, float] = {}
    for compute in (ran_f1(columns, keys, policy), ran_per_label(columns, keys, policy), mean_of(MAIN_KEY)):
        figures |= _computed(compute, samples)
    return figures


def _same(logged: float | None, value: float) -> bool:
    if logged is None or math.isnan(logged):
        return math.isnan(value)
    return not math.isnan(value) and abs(logged - value) <= _TOLERANCE


def _shown(value: float | None) -> str:
    return "missing" if value is None or math.isnan(value) else f"{value:.6g}"


def _label_lines(settings: _Settings, sample: SampleEvidence, sides: dict[str, ReportLabels]) -> list[str]:
    lines = []
    for side, field in zip(SIDES, (REFERENCE_LABELS, CANDIDATE_LABELS), strict=True):
        stored = sample.metadata.get(field) or {}
        given = sides[side].labels
        differ = [
            f"{x.column}: logged {stored.get(x.column)}, answers give {given.get(x.key)}"
            for x in settings.taxonomy.labels
            if stored.get(x.column) != given.get(x.key)
        ]
        if differ:
            shown = "; ".join(differ[:_SHOWN_LABELS]) + (
                f" and {len(differ) - _SHOWN_LABELS} more" if len(differ) > _SHOWN_LABELS else ""
            )
            lines.append(
                f"sample {sample.id}: its stored {side} labels are not what its stored judge answers give ({shown})"
            )
    return lines


def _setting_lines(run: RunEvidence, settings: _Settings) -> list[str]:
    """Lines for a run whose taxonomy or label files keep its labels from being checked against the release."""
    lines = []
    recorded = (run.metadata.get("taxonomy") or {}).get("digest")
    digest = taxonomy_digest(settings.taxonomy)
    if recorded != digest:
        lines.append(f"the taxonomy here (digest {digest}) is not the one the run recorded ({recorded})")
    if digest != taxonomy_digest(_taxonomy(None)):
        lines.append("the run used a taxonomy of its own (-T taxonomy), not the released one, so its labels differ")
    for option in ("reference_labels", "candidate_labels"):
        if run.task_args.get(option):
            lines.append(f"-T {option}: labels read from a file cannot be checked against judge answers")
    return lines


def _sample_lines(run: RunEvidence, settings: _Settings, sample: SampleEvidence) -> list[str]:
    """Lines for a sample scored under another policy, or whose stored labels its stored answers do not give."""
    lines = []
    policy = sample.metadata.get(UNSCORED_POLICY)
    if policy is None:
        lines.append(f"sample {sample.id}: records no unscored policy (logs before ran_score 1.2.0 do not)")
    elif policy != settings.policy:
        lines.append(f"sample {sample.id}: scored under unscored={policy}, not the run's {settings.policy}")
    sides, problems = _reread(run, settings, sample)
    return lines + problems + _label_lines(settings, sample, sides)


def _figure_lines(run: RunEvidence, settings: _Settings) -> list[str]:
    """Lines for logged corpus figures the samples' labels do not give."""
    lines = []
    for name, value in _figures(settings, run.samples).items():
        logged = run.results.get(name)
        # From version 1.4.0 the log keeps the Ran Score (what is ranked) and leaves the other figures to
        # `radiology-tasks report`: each one a log holds (an older run's) is still compared.
        if name not in run.results:
            if name == MACRO_F1:
                lines.append(f"results: {name} is missing")
        elif not _same(logged, value):
            lines.append(f"results: logged {name} {_shown(logged)} but the samples give {_shown(value)}")
    return lines


def run_checks(run: RunEvidence) -> list[str]:
    """Lines for labels the stored answers do not give or cannot check, and for logged corpus figures that the
    samples' labels do not give."""
    try:
        settings = _settings(run)
    except ValueError as error:
        return [f"the run's settings cannot be used here: {error}"]
    lines = _setting_lines(run, settings)
    for sample in run.samples:
        if sample.error is None:
            lines += _sample_lines(run, settings, sample)
    return lines + _figure_lines(run, settings)


def breakdown(run: RunEvidence) -> dict[str, dict[str, float]] | None:
    """Each finding label's F1 over the run's samples (labels no sample could be compared on are left out)."""
    try:
        settings = _settings(run)
    except ValueError:
        return None
    columns = settings.taxonomy.columns
    per_label = _computed(ran_per_label(columns, columns, settings.policy), run.samples)
    rows = {column: per_label[f"f1_{column}"] for column in columns}
    return {BREAKDOWN_TITLE: {column: value for column, value in rows.items() if not math.isnan(value)}}


RESCORING = FunctionRescoring.of_module(__name__)
