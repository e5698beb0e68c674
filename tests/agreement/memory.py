"""Runs for the agreement table built in memory: a run's figures as its run report would give them."""

from __future__ import annotations

from radiology_tasks.agreement.model import Dataset, RowId, Value
from radiology_tasks.agreement.runs import AgreementRun

RATE = Dataset("rate", "rate-eval", "aaaa1111", None, None, "ids-rate", 12)
REXVAL = Dataset("rexval", "rexval", "bbbb2222", None, None, "ids-rexval", 8)
RADPREF = Dataset("radpref", "radpref", "cccc3333", None, None, "ids-radpref", 10)


Figure = tuple[str, Value]


def figure(name: str, value: float | None, reason: str | None = None) -> Figure:
    """One figure of a run report by name (undefined ones carry a reason)."""
    return name, Value(value, reason)


def tau(
    key: str,
    value: float | None,
    *,
    infix: str = "",
    low: float | None = None,
    high: float | None = None,
    n: int = 12,
    unscored: int = 0,
    no_expert: int = 0,
    reason: str | None = None,
) -> list[Figure]:
    """The figures `expert_agreement` gives for `key` (its interval around the value unless given)."""
    name = f"{key}{infix}_kendall_tau"
    low = low if low is not None or value is None else value - 0.1
    high = high if high is not None or value is None else value + 0.1
    return [
        figure(name, value, reason if value is None else None),
        figure(f"{name}_ci_low", low, reason if low is None else None),
        figure(f"{name}_ci_high", high, reason if high is None else None),
        figure(f"{key}{infix}_n_pairs", float(n)),
        figure(f"{key}{infix}_n_unscored", float(unscored)),
        figure(f"{key}{infix}_n_no_expert", float(no_expert)),
        figure(f"{key}{infix}_sign", 1.0),
    ]


def preference(
    key: str, accuracy: float | None, *, right: int, wrong: int, ties: int, reason: str | None = None
) -> list[Figure]:
    """The figures the shared preference metric gives for `key`."""
    return [
        figure(f"{key}_preference_accuracy", accuracy, reason),
        figure(f"{key}_preference_pairs", float(right + wrong + ties)),
        figure(f"{key}_preference_right", float(right)),
        figure(f"{key}_preference_wrong", float(wrong)),
        figure(f"{key}_preference_ties", float(ties)),
    ]


def run(
    log: str,
    figures: list[Figure],
    *,
    keys: list[str] | None = None,
    dataset: Dataset = RATE,
    judge: str | None = None,
    judged: tuple[str, ...] = (),
    created: str = "2026-01-01T00:00:00+00:00",
    task: str = "metric_suite",
) -> AgreementRun:
    """A run on `dataset` scoring `keys` (by default every key its Kendall figures name)."""
    if keys is None:
        found = [name.split("_kendall_tau")[0] for name, _ in figures if name.endswith("_kendall_tau")]
        keys = list(dict.fromkeys(k.replace("_vs_total_errors", "").replace("_vs_errors", "") for k in found))
    rows = tuple(RowId(key, judge if key in judged else None) for key in keys)
    return AgreementRun(
        log=log,
        task=task,
        created=created,
        dataset=dataset,
        rows=rows,
        figures=dict(figures),
    )
