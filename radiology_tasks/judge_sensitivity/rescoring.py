"""How the leaderboard re-scores a judge_sensitivity log and ranks its judge (see `radiology_tasks.core.family`).

Each variant's values are read again from the judge answer the log stores, with the GREEN/VERT reading code
the scorer uses (the second answer of a two-pass judge is read the same way). The run's discrimination,
robustness and balance are recomputed from the samples with the task's own metric, and on the judges' board
every reference is one unit: its variants give it a discrimination, a robustness and their balance
(`scorers.judge_sensitivity.sensitivity`), and the board shows their means over references.
"""

from __future__ import annotations

import math
from collections import defaultdict

from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.judge_sensitivity.metrics import discrimination_values, judged_variants
from radiology_tasks.judge_sensitivity.records import SensitivityRecord
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore
from radiology_tasks.report_judge.rescoring import expected_scores, logged_prompt, parsed_answer
from radiology_tasks.scorers.judge_sensitivity.answers import Differences, read_json_answer
from radiology_tasks.scorers.judge_sensitivity.sensitivity import balance, discrimination, robustness
from radiology_tasks.scorers.report_judge.reading import JudgePrompt, score_keys

_RUN_FIGURES = ("discrimination", "robustness", "balance", "discrimination_n", "robustness_n")
_REPORT_FIGURES = ("discrimination_n", "robustness_n")
_TOLERANCE = 1e-9


def _prompt(run: RunEvidence) -> JudgePrompt:
    return logged_prompt(run.task_args)


def _compare_scores(run: RunEvidence) -> bool:
    """Whether the prompt states a score that discrimination also compares (as the task's metric is set up)."""
    return _prompt(run) != "green"


def _record(sample: SampleEvidence) -> SensitivityRecord:
    return SensitivityRecord.read(sample.metadata)


def _excluded(sample: SampleEvidence) -> bool:
    return _record(sample).excluded


def ranked(run: RunEvidence) -> RankedScore:
    """The judge prompt's main score (``vert``, ``green``, ...), kept in [0, 1]."""
    return RankedScore(score_keys(_prompt(run))[0])


def parsed_answers(run: RunEvidence, sample: SampleEvidence) -> dict[str, object]:
    """What the scorer read from the kept judge answer (kept by a redacted log in place of its text); {} for a
    variant that was never judged."""
    return {} if _excluded(sample) else parsed_answer(run, sample, _prompt(run))


def expected(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict the scorer gives for the sample's stored judge answer, under the run's settings (for a
    redacted run, for the scores it keeps as read from that answer)."""
    prompt = _prompt(run)
    if _excluded(sample):
        # A variant that could not be made is never judged: every value is missing, none filled in.
        return dict.fromkeys(score_keys(prompt), math.nan)
    return expected_scores(run, sample, prompt)


def answers(sample: SampleEvidence) -> list[str]:
    """Every judge answer the sample stores: the kept one, and each attempt's of one or both passes."""
    return _record(sample).answers()


def _sample_scores(run: RunEvidence) -> list[SampleScore]:
    """The scored samples as the task's metrics take them."""
    return [
        SampleScore(score=Score(value=dict(s.values), metadata=s.metadata), sample_id=s.id)
        for s in run.samples
        if s.error is None and _record(s).variant is not None
    ]


def _same(logged: object, recomputed: float) -> bool:
    if not isinstance(logged, int | float) or math.isnan(logged):
        return math.isnan(recomputed)
    return not math.isnan(recomputed) and abs(logged - recomputed) <= _TOLERANCE


def _shown(value: object) -> str:
    return "missing" if not isinstance(value, int | float) or math.isnan(value) else f"{value:.6g}"


def _differences_lines(sample: SampleEvidence) -> list[str]:
    """A two-pass sample's stored differences must be what its kept first-pass answer lists."""
    record = _record(sample)
    kept = next((a for a in record.differences_attempts if a.problem is None), None)
    if kept is None:
        return []
    reading = read_json_answer(kept.answer or "", Differences)
    listed = reading.value.differences if reading.value is not None else None
    if listed != record.differences:
        return [f"sample {sample.id}: the stored differences are not what its first-pass judge answer lists"]
    return []


def run_checks(run: RunEvidence) -> list[str]:
    """Discrimination, robustness and balance recomputed from the samples against the log's results; excluded
    variants the judge was asked about; two-pass differences that do not follow from the first answer."""
    lines = []
    for sample in run.samples:
        if _excluded(sample) and sample.judge_calls:
            lines.append(f"sample {sample.id}: the variant is marked excluded but the judge was asked about it")
        if not run.redacted:  # a redacted log keeps hashes of the first-pass answers, not their lists
            lines += _differences_lines(sample)
    recomputed = discrimination_values(_sample_scores(run), ranked(run).key, compare_scores=_compare_scores(run))
    for name in _RUN_FIGURES:
        logged, value = run.results.get(name), float(recomputed[name])
        # From version 1.5.0 the variant counts are the report's, not the log's: compared only where logged.
        if name in _REPORT_FIGURES and name not in run.results:
            continue
        if not _same(logged, value):
            lines.append(
                f"results: {name} {_shown(logged)} is not what the samples' judge answers give ({_shown(value)})"
            )
    return lines


def judge_measures(run: RunEvidence) -> dict[str, dict[str, float]]:
    """Balance, discrimination and robustness of each reference (the unit), from its variants; NaN where a
    reference has no scored variant of the kind a measure needs."""
    by_reference = defaultdict(list)
    for variant in judged_variants(_sample_scores(run), ranked(run).key):
        by_reference[variant.source_id].append(variant)
    measures: dict[str, dict[str, float]] = {"balance": {}, "discrimination": {}, "robustness": {}}
    for reference, variants in sorted(by_reference.items()):
        d, _ = discrimination(variants, compare_scores=_compare_scores(run))
        r, _ = robustness(variants)
        measures["balance"][reference] = balance(d, r)
        measures["discrimination"][reference] = d
        measures["robustness"][reference] = r
    return measures


def sample_ids(run: RunEvidence) -> list[str]:
    """Every variant id the run's settings give: a variants file's rows, or each reference's planned variants."""
    from radiology_tasks.core.loading import load_pairs
    from radiology_tasks.core.task_data import DataOptions
    from radiology_tasks.core.task_options import logged_options
    from radiology_tasks.judge_sensitivity.dataset import (
        distinct_references,
        file_samples,
        is_variants_file,
        planned_samples,
    )
    from radiology_tasks.judge_sensitivity.plan import VariantOptions

    args = run.task_args
    on_bad_rows = args.get("on_bad_rows") or DataOptions().on_bad_rows
    loaded = load_pairs(
        args.get("data"), revision=args.get("revision"), layout=args.get("layout"), on_bad_rows=on_bad_rows
    )
    if is_variants_file(loaded):
        dataset = file_samples(loaded, on_bad_rows=on_bad_rows, seed=None, limit=None).dataset
    else:
        chosen = logged_options(VariantOptions, args).plan()
        dataset = planned_samples(distinct_references(loaded.pairs), chosen)
    return [str(sample.id) for sample in dataset]


RESCORING = FunctionRescoring.of_module(__name__, left_out=_excluded)
