"""Corpus metrics of the Ran Score: per-label and averaged precision, recall and F1 over all samples.

They read the labels `finding_agreement` keeps in `Score.metadata` (the `RanRecord` fields ``reference_labels``,
``candidate_labels``, ``gold_labels``, keyed by label column) and name each per-label value by the label's key
(``f1_pleural_effusion``). The arithmetic and the treatment of unknown labels are `scorers.ran_score.f1`'s.
"""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.metrics import bootstrap_statistic_interval
from radiology_tasks.core.unscored import check_policy
from radiology_tasks.ran_score.records import CANDIDATE_LABELS, GOLD_LABELS, REFERENCE_LABELS
from radiology_tasks.scorers.ran_score.f1 import F1Table, Labels, collect_decisions, f1_table

MACRO_F1 = "ran_score"
"""The key of the Ran Score itself (macro F1 over labels) among `ran_f1`'s values."""


def _by_key(sample: SampleScore, field: str, columns: list[str], keys: list[str]) -> Labels | None:
    values = (sample.score.metadata or {}).get(field)
    if values is None:
        return None
    return {key: values.get(column) for column, key in zip(columns, keys, strict=True)}


def _pairs(
    scores: list[SampleScore], truth: str, guess: str, columns: list[str], keys: list[str]
) -> list[tuple[Labels, Labels]]:
    pairs = []
    for sample in scores:
        reference, candidate = _by_key(sample, truth, columns, keys), _by_key(sample, guess, columns, keys)
        if reference is not None and candidate is not None:
            pairs.append((reference, candidate))
    return pairs


@metric
def ran_f1(columns: list[str], keys: list[str], unscored: str = "worst", brief: bool = False) -> Metric:
    """The Ran Score (macro F1 over labels) with macro/micro precision, recall and F1.

    Args:
        columns: Label columns, in taxonomy order.
        keys: The labels' keys, aligned with `columns`.
        unscored: ``worst`` counts an unknown candidate label as wrong; ``exclude`` leaves it out.
        brief: Give the Ran Score and its seeded bootstrap interval over samples only (a run's summary).

    Returns:
        A metric giving ``ran_score``, ``micro_f1``, ``macro_precision``, ``macro_recall``,
        ``micro_precision``, ``micro_recall``, ``labels_absent`` (labels positive on neither side, F1 = 0),
        ``decisions_left_out`` and ``decisions_filled_in`` (report-label decisions with an unknown label); with
        `brief`, ``ran_score``, ``ran_score_ci_low`` and ``ran_score_ci_high`` (the interval left out with fewer
        than two samples).
    """
    policy = check_policy(unscored)

    def table_of(scores: list[SampleScore]) -> F1Table:
        pairs = _pairs(scores, REFERENCE_LABELS, CANDIDATE_LABELS, columns, keys)
        return f1_table(collect_decisions(pairs, keys, count_unknown_as_wrong=policy == "worst"))

    def compute(scores: list[SampleScore]) -> Value:
        if brief:
            summary = {MACRO_F1: table_of(scores).macro_f1}
            interval = bootstrap_statistic_interval(scores, lambda drawn: table_of(drawn).macro_f1)
            if interval is not None:
                summary |= {f"{MACRO_F1}_ci_low": interval[0], f"{MACRO_F1}_ci_high": interval[1]}
            return summary
        pairs = _pairs(scores, REFERENCE_LABELS, CANDIDATE_LABELS, columns, keys)
        decisions = collect_decisions(pairs, keys, count_unknown_as_wrong=policy == "worst")
        table = f1_table(decisions)
        return {
            MACRO_F1: table.macro_f1,
            "micro_f1": table.micro_f1,
            "macro_precision": table.macro_precision,
            "macro_recall": table.macro_recall,
            "micro_precision": table.micro_precision,
            "micro_recall": table.micro_recall,
            "labels_absent": float(len(table.absent)),
            "decisions_left_out": float(sum(decisions.left_out.values())),
            "decisions_filled_in": float(sum(decisions.filled_in.values())),
        }

    return compute


@metric
def ran_per_label(columns: list[str], keys: list[str], unscored: str = "worst") -> Metric:
    """Each label's F1, precision, recall and support (reference positives compared) over all samples.

    Returns:
        A metric giving ``f1_<key>``, ``precision_<key>``, ``recall_<key>`` and ``support_<key>`` per label
        (NaN scores for a label no sample could be compared on).
    """
    policy = check_policy(unscored)

    def compute(scores: list[SampleScore]) -> Value:
        pairs = _pairs(scores, REFERENCE_LABELS, CANDIDATE_LABELS, columns, keys)
        table = f1_table(collect_decisions(pairs, keys, count_unknown_as_wrong=policy == "worst"))
        flat: dict[str, float] = {}
        for key, label in table.per_label.items():
            flat |= {
                f"f1_{key}": label.f1,
                f"precision_{key}": label.precision,
                f"recall_{key}": label.recall,
                f"support_{key}": float(label.support),
            }
        return flat

    return compute


@metric
def extractor_f1(columns: list[str], keys: list[str]) -> Metric:
    """The extractor's own agreement with radiologists: reference labels against the data's gold labels.

    Samples without gold labels are skipped; reference labels the judge did not give are left out.

    Returns:
        A metric giving ``extractor_macro_f1``, ``extractor_micro_f1``, ``extractor_f1_<key>`` per label and
        ``extractor_reports`` (samples with gold labels).
    """

    def compute(scores: list[SampleScore]) -> Value:
        pairs = _pairs(scores, GOLD_LABELS, REFERENCE_LABELS, columns, keys)
        table = f1_table(collect_decisions(pairs, keys, count_unknown_as_wrong=False))
        flat = {"extractor_macro_f1": table.macro_f1, "extractor_micro_f1": table.micro_f1}
        flat |= {f"extractor_f1_{key}": label.f1 for key, label in table.per_label.items()}
        flat["extractor_reports"] = float(len(pairs))
        return flat

    return compute
