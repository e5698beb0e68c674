"""A thin adapter over RadEval (``pip install radiology-tasks[radeval]``): model-based metrics, one pair at a time.

RadEval (https://github.com/jbdel/RadEval, PyPI ``radeval``) computes every metric itself; this module only
maps our metric names onto RadEval's, checks that the models a metric needs are already in the Hugging Face
cache, and reads RadEval's per-sample output. The API used, as read in the ``radeval`` 2.2.1 sources:
``radeval.RadEval(metrics=[name], per_sample=True, show_progress=False)``, called as
``evaluator(refs=[...], hyps=[...])``, returns ``{output key: [one float per pair]}``.

Nothing is imported from RadEval until a metric is run, and nothing here downloads: a metric whose model is
missing from the cache is left out with one line that names it and its model, and the others still run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ModelFile:
    """One file a metric loads from the Hugging Face Hub: a whole model (its ``config.json``) or one checkpoint."""

    repo_id: str
    filename: str = "config.json"

    def __str__(self) -> str:
        return self.repo_id if self.filename == "config.json" else f"{self.repo_id}/{self.filename}"


@dataclass(frozen=True)
class RadEvalMetric:
    """How one of our metric names maps onto RadEval.

    Attributes:
        name: What users type in ``-T metrics`` (``bertscore``, ``radgraph``, ...).
        radeval_name: RadEval's own name for the metric (its ``metrics=[...]`` entry).
        outputs: RadEval's per-sample output key -> our score key.
        models: What the metric loads from the Hub; all must be cached before it runs.
        lower_is_better: Score keys where a lower number means a better report (RadCliQ is an error estimate).
        unbounded: Score keys without a bottom of 0 that ``-T unscored=worst`` could fill in (BERTScore's cosine
            similarities can be negative; RadCliQ is an unbounded error estimate).
    """

    name: str
    radeval_name: str
    outputs: Mapping[str, str]
    models: tuple[ModelFile, ...]
    lower_is_better: frozenset[str] = field(default_factory=frozenset)
    unbounded: frozenset[str] = field(default_factory=frozenset)

    @property
    def bounded(self) -> list[str]:
        """Our score keys on [0, 1], higher is better: those ``-T unscored=worst`` may set to 0."""
        return [key for key in self.outputs.values() if key not in self.lower_is_better | self.unbounded]


_RRG_SCORERS = "StanfordAIMI/RRG_scorers"

RADEVAL_METRICS: dict[str, RadEvalMetric] = {
    m.name: m
    for m in (
        RadEvalMetric(
            "bertscore",
            "bertscore",
            {"bertscore": "bertscore"},
            (ModelFile("distilbert-base-uncased"),),
            unbounded=frozenset({"bertscore"}),
        ),
        RadEvalMetric(
            "radgraph",
            "radgraph",
            {f"radgraph_{level}": f"radgraph_{level}" for level in ("simple", "partial", "complete")},
            (ModelFile(_RRG_SCORERS, "radgraph-xl.tar.gz"),),
        ),
        RadEvalMetric(
            "ratescore",
            "ratescore",
            {"ratescore": "ratescore"},
            (ModelFile("Angelakeke/RaTE-NER-Deberta"), ModelFile("FremyCompany/BioLORD-2023-C")),
        ),
        RadEvalMetric(
            "chexbert",
            "f1chexbert",
            {"f1chexbert_sample_acc_5": "chexbert_acc_5", "f1chexbert_sample_acc_all": "chexbert_acc_all"},
            (ModelFile(_RRG_SCORERS, "chexbert.pth"), ModelFile("bert-base-uncased")),
        ),
        RadEvalMetric(
            "radcliq",
            "radcliq",
            {"radcliq_v1": "radcliq_v1"},
            (
                ModelFile(_RRG_SCORERS, "radgraph.tar.gz"),
                ModelFile(_RRG_SCORERS, "chexbert.pth"),
                ModelFile("bert-base-uncased"),
                ModelFile("distilroberta-base"),
            ),
            lower_is_better=frozenset({"radcliq_v1"}),
            unbounded=frozenset({"radcliq_v1"}),
        ),
        RadEvalMetric(
            "green_model",
            "green",
            {"green": "green_model"},
            (ModelFile("StanfordAIMI/GREEN-radllama2-7b"),),
        ),
    )
}
"""Our RadEval metric names. ``green_model`` is RadEval's GREEN with its fine-tuned 7B model, distinct from this
project's ``green`` LLM-judge task; ``chexbert`` gives RadEval's per-report CheXbert label accuracy (its F1 is a
corpus figure and has no per-report value)."""


def radeval_keys(names: Iterable[str]) -> list[str]:
    """Score keys of the RadEval metrics `names`, in their order."""
    return [key for name in names for key in RADEVAL_METRICS[name].outputs.values()]


def in_hf_cache(model: ModelFile) -> bool:
    """Whether `model` is in the local Hugging Face cache (no network is used)."""
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(model.repo_id, model.filename), str)


@dataclass
class RadEvalPlan:
    """Which RadEval metrics can run here, and one line for each one that cannot."""

    runnable: list[str]
    skipped: list[str]


def radeval_installed() -> bool:
    """Whether the ``radeval`` package can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("radeval") is not None


def plan_radeval(
    names: Sequence[str],
    *,
    cached: Callable[[ModelFile], bool] | None = None,
    installed: Callable[[], bool] | None = None,
) -> RadEvalPlan:
    """Check, for each asked RadEval metric, that RadEval is installed and its models are cached.

    Args:
        names: Our RadEval metric names (keys of `RADEVAL_METRICS`).
        cached: Whether a model file is available locally (default: the Hugging Face cache).
        installed: Whether RadEval is installed.

    Returns:
        The metrics that can run, and for each other one a line naming it and what it needs.

    Raises:
        ValueError: for a name that is no RadEval metric.
    """
    unknown = [name for name in names if name not in RADEVAL_METRICS]
    if unknown:
        raise ValueError(f"unknown RadEval metric {unknown[0]!r} (known: {', '.join(RADEVAL_METRICS)})")
    cached = cached or in_hf_cache
    if names and not (installed or radeval_installed)():
        return RadEvalPlan(
            [], [f"metric {name} needs the radeval package (pip install 'radiology-tasks[radeval]')" for name in names]
        )
    runnable: list[str] = []
    skipped: list[str] = []
    for name in names:
        missing = [model for model in RADEVAL_METRICS[name].models if not cached(model)]
        if missing:
            needs = ", ".join(str(model) for model in missing)
            skipped.append(f"metric {name} needs model {needs} (not in the Hugging Face cache)")
        else:
            runnable.append(name)
    return RadEvalPlan(runnable, skipped)


class RadEvalRunner:
    """Runs RadEval metrics on one report pair at a time, building each metric's evaluator once, on first use."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._evaluators: dict[str, Any] = {}

    def _evaluator(self, name: str) -> Any:
        if name not in self._evaluators:
            import radeval

            metric = RADEVAL_METRICS[name]
            self._evaluators[name] = radeval.RadEval(
                metrics=[metric.radeval_name], per_sample=True, show_progress=False
            )
        return self._evaluators[name]

    def score(self, reference: str, candidate: str) -> dict[str, float]:
        """Every score key of the runner's metrics for one pair; NaN where RadEval gave no finite number.

        Raises:
            ValueError: when RadEval's answer lacks an expected output key or does not hold one value per pair.
        """
        values: dict[str, float] = {}
        for name in self.names:
            metric = RADEVAL_METRICS[name]
            output = self._evaluator(name)(refs=[reference], hyps=[candidate])
            for radeval_key, key in metric.outputs.items():
                if radeval_key not in output:
                    raise ValueError(
                        f"RadEval metric {metric.radeval_name} gave no '{radeval_key}' (got {sorted(output)})"
                    )
                values[key] = _one_value(output[radeval_key], radeval_key)
        return values


def _one_value(value: Any, key: str) -> float:
    if isinstance(value, list | tuple):
        if len(value) != 1:
            raise ValueError(f"RadEval's '{key}' holds {len(value)} values for one report pair")
        value = value[0]
    number = float(value)
    return number if math.isfinite(number) else math.nan
