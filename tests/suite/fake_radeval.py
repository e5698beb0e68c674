"""A stand-in for the `radeval` package with RadEval 2.2.1's calling convention, for tests without the install."""

from __future__ import annotations

import importlib.machinery
import types
from typing import Any

# What the fake returns per RadEval metric name: output key -> function of (reference, candidate).
OUTPUTS = {
    "bertscore": {"bertscore": lambda ref, hyp: 0.5 + 0.01 * len(hyp.split())},
    "ratescore": {"ratescore": lambda ref, hyp: 0.25},
    "radcliq": {"radcliq_v1": lambda ref, hyp: float(len(ref) > len(hyp))},
}


def fake_radeval(calls: list[dict[str, Any]]) -> types.ModuleType:
    """A module whose `RadEval(metrics=[...], per_sample=True)` returns one value per pair, recording each call."""

    class RadEval:
        def __init__(self, metrics: list[str], per_sample: bool = False, show_progress: bool = True) -> None:
            (self.name,) = metrics
            calls.append({"init": self.name, "per_sample": per_sample})

        def __call__(self, refs: list[str], hyps: list[str]) -> dict[str, list[float]]:
            calls.append({"call": self.name, "refs": refs, "hyps": hyps})
            return {key: [f(r, h) for r, h in zip(refs, hyps)] for key, f in OUTPUTS[self.name].items()}

    module = types.ModuleType("radeval")
    module.__spec__ = importlib.machinery.ModuleSpec("radeval", None)
    module.RadEval = RadEval  # type: ignore[attr-defined]
    return module
