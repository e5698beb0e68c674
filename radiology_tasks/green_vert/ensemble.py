"""Ensembles of LLM judges (VERT section 4.1.2): score averaging and linear regression.

Each Inspect log holds one judge's scores on the same expert-annotated samples. The logs are
joined by sample id; the average ensemble needs no training, the regression ensemble is fitted
on training samples and every judge, the average and the regression are then compared on the
same held-out samples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from radiology_tasks.core.agreement import Agreement, correlate
from radiology_tasks.core.metrics import EXPERT_SCORE
from radiology_tasks.core.undefined import correlation_undefined, interval_undefined

if TYPE_CHECKING:
    import numpy as np
    from inspect_ai.log import EvalLog
    from numpy.typing import NDArray

DEFAULT_SCORE_KEYS = ("vert", "green")
"""Score keys tried, after the task name, when no key is chosen."""

AVERAGE = "average ensemble"
REGRESSION = "regression ensemble"


@dataclass(frozen=True)
class JudgeResult:
    """One judge's agreement with the experts on the evaluation samples.

    Attributes:
        label: The judge model (with the log file name when two logs share a model).
        log: Path of the judge's evaluation log.
        score_key: Key of `Score.value` that was read.
        agreement: Correlation with the expert scores on the evaluation samples.
    """

    label: str
    log: str
    score_key: str
    agreement: Agreement


@dataclass(frozen=True)
class EnsembleReport:
    """Judges, their average and their regression ensemble, on the same evaluation samples.

    Attributes:
        judges: Every judge, in the order of the logs.
        average: The mean of the judges' scores.
        regression: The least-squares fit of the expert score on the judges' scores.
        intercept: Intercept of the regression.
        weights: Regression weight of each judge, in the order of `judges`.
        train_ids: Ids of the samples the regression was fitted on.
        eval_ids: Ids of the samples every correlation is computed on.
        train_source: Where the training samples came from.
        excluded: Samples left out of the evaluation set, by reason.
        excluded_train: Samples left out of separate training logs, by reason (empty otherwise).
        undefined: Why a row's tau, or only its interval, has no value, by row label (a judge's label,
            ``average ensemble``, ``regression ensemble``); rows with every value defined are absent.
        weights_not_unique: Why other weights would fit the training samples as well (a judge constant on them,
            or judges' scores that are linear combinations of each other); None when the fit is unique. The
            weights shown are then least squares' smallest ones, one choice among many.
    """

    judges: list[JudgeResult]
    average: Agreement
    regression: Agreement
    intercept: float
    weights: list[float]
    train_ids: list[str]
    eval_ids: list[str]
    train_source: str
    excluded: dict[str, int] = field(default_factory=dict)
    excluded_train: dict[str, int] = field(default_factory=dict)
    undefined: dict[str, str] = field(default_factory=dict)
    weights_not_unique: str | None = None

    @property
    def n_train(self) -> int:
        """Number of samples the regression was fitted on."""
        return len(self.train_ids)

    @property
    def n_eval(self) -> int:
        """Number of samples every correlation is computed on."""
        return len(self.eval_ids)


@dataclass(frozen=True)
class _JudgeScores:
    """The scores one log gives, by sample id (None = unscored or no expert score)."""

    path: str
    model: str
    dataset: str | None
    score_key: str
    judge: dict[str, float | None]
    expert: dict[str, float | None]


@dataclass(frozen=True)
class _Joined:
    """Samples scored by every judge and rated by the experts, in a fixed order."""

    ids: list[str]
    judge: list[list[float]]  # one row per sample, one column per judge
    expert: list[float]
    excluded: dict[str, int]
    dataset: str | None


def ensemble_report(
    logs: Sequence[str],
    *,
    score_key: str | None = None,
    train_logs: Sequence[str] | None = None,
    train_fraction: float = 0.5,
    higher_is_better: bool = True,
    seed: int = 0,
    n_resamples: int = 1000,
) -> EnsembleReport:
    """Compare judges with their average and their linear-regression ensemble.

    Without `train_logs`, the samples shared by all logs are split at random (seeded) and the
    regression is fitted on `train_fraction` of them; every correlation is then computed on the
    rest only. With `train_logs` (one per judge, in the same order as `logs`, scored on other
    samples) the regression is fitted on those and evaluated on all shared samples of `logs`.

    Args:
        logs: One Inspect eval log per judge, all on the same dataset.
        score_key: Key of `Score.value` to read. Default: the task name if it is a key, else
            ``vert``, else ``green``.
        train_logs: Logs of the same judges on separate training samples.
        train_fraction: Share of the shared samples used for fitting, when there are no
            `train_logs`.
        higher_is_better: False when the score grows with errors (e.g. ``green_ec``); the
            judges' and the average's correlations are then sign-flipped (the regression's
            never is: it predicts the expert score).
        seed: Seed of the train/evaluation split and of the bootstrap intervals.
        n_resamples: Bootstrap resamples of every confidence interval.

    Returns:
        The report.

    Raises:
        ValueError: On unreadable or mismatched logs (different datasets, no shared samples,
            no expert scores, a missing score key) or too few samples to fit or evaluate.
    """
    if len(logs) < 2:
        raise ValueError(f"an ensemble needs at least two judge logs, got {len(logs)}")
    judges = [_read_judge(path, score_key) for path in logs]
    evaluated = _join(judges)
    if train_logs is None:
        split = _random_split(evaluated, train_fraction, seed)
    else:
        split = _log_split(train_logs, judges, evaluated)
    _check_sizes(split, len(judges))
    return _report(judges, evaluated, split, higher_is_better=higher_is_better, seed=seed, n_resamples=n_resamples)


@dataclass(frozen=True)
class _Split:
    """The samples the regression is fitted on and those every correlation is computed on."""

    x_train: NDArray[np.float64]
    y_train: NDArray[np.float64]
    x_eval: NDArray[np.float64]
    y_eval: NDArray[np.float64]
    train_ids: list[str]
    eval_ids: list[str]
    train_source: str
    excluded_train: dict[str, int] = field(default_factory=dict)


def _random_split(evaluated: _Joined, train_fraction: float, seed: int) -> _Split:
    """A seeded random `train_fraction` of the shared samples to fit on, the rest to evaluate on."""
    import numpy as np

    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must lie in (0, 1), got {train_fraction}")
    order = np.random.default_rng(seed).permutation(len(evaluated.ids))
    n_train = round(train_fraction * len(order))
    train_rows, eval_rows = order[:n_train], order[n_train:]
    judge, expert = np.asarray(evaluated.judge, dtype=float), np.asarray(evaluated.expert, dtype=float)
    return _Split(
        judge[train_rows],
        expert[train_rows],
        judge[eval_rows],
        expert[eval_rows],
        [evaluated.ids[i] for i in train_rows],
        [evaluated.ids[i] for i in eval_rows],
        f"random {train_fraction:g} of the shared samples (seed {seed})",
    )


def _log_split(train_logs: Sequence[str], judges: Sequence[_JudgeScores], evaluated: _Joined) -> _Split:
    """Fit on the judges' training logs (one per judge, same order), evaluate on every shared sample."""
    import numpy as np

    if len(train_logs) != len(judges):
        raise ValueError(f"give one training log per judge: {len(judges)} logs but {len(train_logs)} training logs")
    trained = _join([_read_judge(path, judges[i].score_key) for i, path in enumerate(train_logs)])
    _check_disjoint(trained, evaluated)
    return _Split(
        np.asarray(trained.judge, dtype=float),
        np.asarray(trained.expert, dtype=float),
        np.asarray(evaluated.judge, dtype=float),
        np.asarray(evaluated.expert, dtype=float),
        trained.ids,
        evaluated.ids,
        "training logs: " + ", ".join(train_logs),
        trained.excluded,
    )


def _check_sizes(split: _Split, n_judges: int) -> None:
    """Refuse a split too small to fit the regression or to correlate on."""
    if len(split.y_train) < n_judges + 1:
        raise ValueError(
            f"the regression of {n_judges} judges needs at least {n_judges + 1} training samples, "
            f"got {len(split.y_train)}"
        )
    if len(split.y_eval) < 2:
        raise ValueError(f"need at least 2 evaluation samples, got {len(split.y_eval)}")


@dataclass
class _Correlating:
    """Correlates each row's scores with the experts' on the evaluation samples, noting why a figure is undefined.

    Attributes:
        expert: The expert scores of the evaluation samples.
        seed: Seed of the bootstrap intervals.
        n_resamples: Bootstrap resamples of each interval.
        undefined: Why a row's tau, or its interval, has no value, by row label.
    """

    expert: list[float]
    seed: int
    n_resamples: int
    undefined: dict[str, str] = field(default_factory=dict)

    _NAMES = {AVERAGE: "the judges' average", REGRESSION: "the regression's prediction"}

    def agree(self, label: str, key: str | None, values: NDArray[np.float64], higher: bool) -> Agreement:
        """Kendall's tau of row `label` (a judge's `key`, or an ensemble's prediction) with the experts."""
        scores = [float(v) for v in values]
        agreement = correlate(
            scores, self.expert, higher_is_better=higher, n_resamples=self.n_resamples, seed=self.seed
        )
        name = f"{label}'s {key}" if key is not None else self._NAMES[label]
        reason = _undefined(agreement, scores, self.expert, name, self.n_resamples)
        if reason is not None:
            self.undefined[label] = reason
        return agreement


def _report(
    judges: Sequence[_JudgeScores],
    evaluated: _Joined,
    split: _Split,
    *,
    higher_is_better: bool,
    seed: int,
    n_resamples: int,
) -> EnsembleReport:
    """Fit the regression on the split's training samples and correlate every row on its evaluation samples."""
    import numpy as np

    coefficients, _, rank, _ = np.linalg.lstsq(_with_intercept(split.x_train), split.y_train, rcond=None)
    predicted = _with_intercept(split.x_eval) @ coefficients
    labels = _labels(judges)
    rows = _Correlating([float(y) for y in split.y_eval], seed, n_resamples)
    x_eval = split.x_eval
    judged = [
        JudgeResult(
            label, judge.path, judge.score_key, rows.agree(label, judge.score_key, x_eval[:, i], higher_is_better)
        )
        for i, (label, judge) in enumerate(zip(labels, judges, strict=True))
    ]
    return EnsembleReport(
        judges=judged,
        average=rows.agree(AVERAGE, None, x_eval.mean(axis=1), higher_is_better),
        regression=rows.agree(REGRESSION, None, predicted, True),
        intercept=float(coefficients[0]),
        weights=[float(w) for w in coefficients[1:]],
        train_ids=split.train_ids,
        eval_ids=split.eval_ids,
        train_source=split.train_source,
        excluded=evaluated.excluded,
        excluded_train=split.excluded_train,
        undefined=rows.undefined,
        weights_not_unique=None if rank == len(judges) + 1 else _why_not_unique(split.x_train, labels),
    )


def _why_not_unique(x_train: NDArray[np.float64], labels: Sequence[str]) -> str:
    """Why the training samples do not pin the regression's weights down."""
    constant = [label for label, column in zip(labels, x_train.T, strict=True) if len(set(column.tolist())) == 1]
    if constant:
        return f"{', '.join(constant)} gave every training sample the same score"
    return "the judges' scores on the training samples are linear combinations of each other"


def _undefined(
    agreement: Agreement, values: list[float], expert: list[float], name: str, n_resamples: int
) -> str | None:
    """Why tau (or only its interval) has no value; None when both are defined."""
    if math.isnan(agreement.kendall_tau):
        reason = correlation_undefined(values, expert, x_name=name, y_name="the expert score", unit="held-out sample")
        return reason or "scipy gives no tau for these scores"
    if any(math.isnan(bound) for bound in agreement.kendall_tau_ci):
        return interval_undefined(agreement.n_pairs, n_resamples)
    return None


def format_report(report: EnsembleReport) -> str:
    """A plain-text table of Kendall's tau (with its 95% interval) for judges and ensembles."""
    rows = [(j.label, j.agreement) for j in report.judges]
    rows += [(AVERAGE, report.average), (REGRESSION, report.regression)]
    width = max(len(name) for name, _ in rows)
    keys = sorted({j.score_key for j in report.judges})
    lines = [
        f"Kendall's tau with expert scores (score: {', '.join(keys)}) on {report.n_eval} held-out samples",
        f"regression fitted on {report.n_train} samples: {report.train_source}",
        "",
        f"{'judge':<{width}}  {'tau':>7}  95% interval",
    ]
    for name, agreement in rows:
        low, high = agreement.kendall_tau_ci
        if math.isnan(agreement.kendall_tau):
            lines.append(f"{name:<{width}}  {'-':>7}  undefined: {report.undefined[name]}")
        elif math.isnan(low) or math.isnan(high):
            lines.append(f"{name:<{width}}  {agreement.kendall_tau:>7.4f}  no interval: {report.undefined[name]}")
        else:
            lines.append(f"{name:<{width}}  {agreement.kendall_tau:>7.4f}  [{low:.4f}, {high:.4f}]")
    weights = ", ".join(f"{j.label}={w:.4f}" for j, w in zip(report.judges, report.weights, strict=True))
    lines += ["", f"regression: intercept={report.intercept:.4f}, {weights}"]
    if report.weights_not_unique:
        lines.append(f"these weights are one fit among many: {report.weights_not_unique}")
    for title, counts in (("excluded", report.excluded), ("excluded from training", report.excluded_train)):
        if any(counts.values()):
            lines.append(f"{title}: " + ", ".join(f"{n} {reason}" for reason, n in counts.items() if n))
    return "\n".join(lines) + "\n"


def _with_intercept(x: NDArray[np.float64]) -> NDArray[np.float64]:
    import numpy as np

    return np.column_stack([np.ones(len(x)), x])


def _read_judge(path: str, score_key: str | None) -> _JudgeScores:
    """Read one log: each sample's judge score under the chosen key, and its expert score."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(path)
    if not log.samples:
        raise ValueError(f"{path}: the log holds no samples (was it written with --no-log-samples?)")
    scorer, key = _choose_score(log, path, score_key)
    judge: dict[str, float | None] = {}
    expert: dict[str, float | None] = {}
    for sample in log.samples:
        sample_id = str(sample.id)
        if sample_id in judge:
            raise ValueError(
                f"{path}: sample {sample_id} appears more than once (epochs > 1); give logs with one score per sample"
            )
        score = (sample.scores or {}).get(scorer)
        judge[sample_id] = _number(score.value, key, path, sample_id) if score else None
        expert[sample_id] = _expert(score.metadata if score else None, path, sample_id)
    if all(v is None for v in expert.values()):
        raise ValueError(f"{path}: no sample has an expert score (score metadata '{EXPERT_SCORE}')")
    return _JudgeScores(
        path=path,
        model=_judge_model(log),
        dataset=log.eval.dataset.name,
        score_key=key,
        judge=judge,
        expert=expert,
    )


def _choose_score(log: EvalLog, path: str, score_key: str | None) -> tuple[str, str]:
    """The scorer name and value key to read, from the first sample with a dict-valued score."""
    task = log.eval.task.split("/")[-1]
    wanted = [score_key] if score_key else [task, *DEFAULT_SCORE_KEYS]
    seen: dict[str, list[str]] = {}
    for sample in log.samples or []:
        for scorer, score in (sample.scores or {}).items():
            if isinstance(score.value, dict) and scorer not in seen:
                seen[scorer] = list(score.value)
    for key in wanted:
        for scorer, keys in seen.items():
            if key in keys:
                return scorer, key
    available = "; ".join(f"{scorer}: {', '.join(keys)}" for scorer, keys in seen.items()) or "none"
    raise ValueError(f"{path}: no score key among {', '.join(wanted)} (dict-valued scores: {available})")


def _number(value: object, key: str, path: str, sample_id: str) -> float | None:
    """The judge's score under `key`, or None when the sample is unscored (NaN)."""
    if isinstance(value, dict):
        if key not in value:
            raise ValueError(f"{path}: sample {sample_id} has no score '{key}'")
        value = value[key]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{path}: sample {sample_id} score '{key}' is not a number: {value!r}")
    return float(value)


def _expert(metadata: Mapping[str, object] | None, path: str, sample_id: str) -> float | None:
    value = (metadata or {}).get(EXPERT_SCORE)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{path}: sample {sample_id} {EXPERT_SCORE} is not a number: {value!r}")
    return float(value)


def _judge_model(log: EvalLog) -> str:
    """The grader model when the task used one, else the evaluated model."""
    roles = log.eval.model_roles or {}
    grader = roles.get("grader")
    if grader is None:
        return log.eval.model
    configs = grader if isinstance(grader, list) else [grader]
    return "+".join(config.model for config in configs)


def _labels(judges: Sequence[_JudgeScores]) -> list[str]:
    models = [j.model for j in judges]
    return [f"{j.model} ({Path(j.path).name})" if models.count(j.model) > 1 else j.model for j in judges]


def _join(judges: Sequence[_JudgeScores]) -> _Joined:
    """Samples present in every log, scored by every judge and carrying an expert score."""
    datasets = {j.dataset for j in judges if j.dataset}
    if len(datasets) > 1:
        raise ValueError(f"the logs score different datasets: {', '.join(sorted(datasets))}")
    all_ids = set().union(*(j.judge for j in judges))
    shared = sorted(set.intersection(*(set(j.judge) for j in judges)))
    if not shared:
        raise ValueError("the logs share no sample ids: " + ", ".join(j.path for j in judges))
    excluded = {"missing_from_some_log": len(all_ids) - len(shared), "unscored": 0, "no_expert_score": 0}
    ids: list[str] = []
    rows: list[list[float]] = []
    expert: list[float] = []
    for sample_id in shared:
        ratings = {rating for j in judges if (rating := j.expert[sample_id]) is not None}
        if len(ratings) > 1:
            raise ValueError(f"sample {sample_id} has different expert scores in different logs: {sorted(ratings)}")
        scores = [j.judge[sample_id] for j in judges]
        if any(s is None for s in scores):
            excluded["unscored"] += 1
        elif not ratings:
            excluded["no_expert_score"] += 1
        else:
            ids.append(sample_id)
            rows.append([float(s) for s in scores if s is not None])
            expert.append(ratings.pop())
    if not ids:
        raise ValueError(f"no shared sample is scored by every judge and rated by the experts ({excluded})")
    return _Joined(ids, rows, expert, excluded, next(iter(datasets), None))


def _check_disjoint(trained: _Joined, evaluated: _Joined) -> None:
    """Refuse training samples that are also evaluation samples of the same dataset."""
    if trained.dataset != evaluated.dataset:
        return
    overlap = sorted(set(trained.ids) & set(evaluated.ids))
    if overlap:
        raise ValueError(
            f"{len(overlap)} training samples are also evaluation samples (e.g. {overlap[0]}); "
            "fit the regression on other samples"
        )
