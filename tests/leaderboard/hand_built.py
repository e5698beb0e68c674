"""A leaderboard written by hand, valid against the shipped schema: a board with a family breakdown and a note, and
both kinds of judges' board."""

from __future__ import annotations

import copy
from typing import Any

from radiology_tasks.leaderboard.judges import (
    NO_RANDOMIZATION,
    PREFERENCE,
    PREFERENCE_LABEL,
    TAU,
    TAU_LABEL,
    TRUTH_LABELS,
)
from radiology_tasks.leaderboard.redact import HASH_ONLY, HASH_ONLY_UNCHECKED_DATA

SHA = "ab" * 32
JUDGE = {"model": "openai/judge", "temperatures": [0.0], "seeded": False}
DATASET = {
    "name": "demo",
    "layout": None,
    "data_sha256": SHA,
    "revision": None,
    "reports_sha256": None,
    "sample_ids_sha256": SHA,
}


def _entry(
    rank: int,
    system: str,
    score: float,
    breakdown: dict[str, dict[str, float]] | None,
    checks: str = "judge answers re-read",
) -> dict[str, Any]:
    card = dict.fromkeys(("institution", "paper", "code", "description"))
    return {
        "rank": rank,
        "system": system,
        **card,
        "score": score,
        "ci_low": score - 0.1,
        "ci_high": score + 0.1,
        "n": 4,
        "n_unscored": 0,
        "log": f"logs/{system}.eval",
        "log_sha256": SHA,
        "breakdown": breakdown,
        "expert_points": None,
        "empty": {},
        "checks": checks,
    }


def _judge_entry(rank: int, judge: str, measures: dict[str, float | None]) -> dict[str, Any]:
    shown = {
        m: None if v is None else {"value": v, "ci_low": v - 0.1, "ci_high": v + 0.05, "n": 8}
        for m, v in measures.items()
    }
    first = next(iter(measures.values()))
    card = dict.fromkeys(("institution", "paper", "code", "description"))
    return {
        "rank": rank,
        "system": judge,
        "submitted_as": f"{judge} team",
        **card,
        "judge": {**JUDGE, "model": judge},
        "score": first,
        "ci_low": first - 0.1,
        "ci_high": first + 0.05,
        "n": 8,
        "measures": shown,
        "log": f"logs/{judge.replace('/', '-')}.eval",
        "log_sha256": SHA,
        "empty": {m: f"no value: no unit of this run has a {m}" for m, v in measures.items() if v is None},
        "checks": "judge answers re-read",
    }


def truth_boards(agreement: dict[str, Any]) -> list[dict[str, Any]]:
    """An agreement board against the radiologists' mean errors (ReXVal), and one on data with preferences
    (RadPref) whose second judge ties every pair and whose first was ranked on its log's own experts."""
    errors = {
        **copy.deepcopy(agreement),
        "id": "judges-vert-vert-rexval-significant_errors",
        "truth": "significant_errors",
        "dataset": {**DATASET, "name": "rexval", "layout": "rexval"},
        "statistic": TRUTH_LABELS["significant_errors"],
        "measure_labels": {"kendall_tau_b": TRUTH_LABELS["significant_errors"]},
    }
    preference = {"value": 0.75, "ci_low": 0.5, "ci_high": 1.0, "n": 5, "right": 3, "wrong": 1, "ties": 1}
    tied = {"value": 0.1, "ci_low": 0.0, "ci_high": 0.2, "n": 8}
    radpref = {
        **copy.deepcopy(agreement),
        "id": "judges-vert-vert-radpref",
        "dataset": {**DATASET, "name": "radpref"},
        "measures": [TAU, PREFERENCE],
        "measure_labels": {TAU: TAU_LABEL, PREFERENCE: PREFERENCE_LABEL},
        "measure_units": {TAU: "samples", PREFERENCE: "pairs"},
        "entries": [
            {**_judge_entry(1, "openai/close", {TAU: 0.9}), "checks": HASH_ONLY_UNCHECKED_DATA},
            _judge_entry(2, "openai/tied", {TAU: 0.1}),
        ],
        "significance": {"resamples": 100, "seed": 0, "tests": []},
    }
    radpref["entries"][0]["measures"][PREFERENCE] = preference
    radpref["entries"][1]["measures"] = {TAU: tied, PREFERENCE: None}
    radpref["entries"][1]["empty"] = {PREFERENCE: "no value: the judge's vert ties all 5 pairs"}
    return [errors, radpref]


def hand_built() -> dict[str, Any]:
    """A leaderboard with a family breakdown, a board note and both kinds of judges' board (schema-valid)."""
    categories = {"(a) false finding": 0.5, "(b) missed finding": 0.25}
    report = {
        "id": "ran_score-macro_f1-demo",
        "task": "ran_score",
        "score": "macro_f1",
        "dataset": DATASET,
        "track": None,
        "task_version": "1.0.0",
        "judge": JUDGE,
        "task_config": {},
        "n_samples": 4,
        "trial": {"samples": 4, "dataset_samples": 41},
        "statistic": "macro_f1 of the whole sample set",
        "note": "macro_f1 is a corpus statistic: intervals and tests resample reports",
        "entries": [
            _entry(1, "System A", 0.8, {"F1 per label": {"Effusion": 0.9, "Nodule": 0.7}, "Errors": categories}),
            _entry(2, "System B", 0.6, {"F1 per label": {"Effusion": 0.5, "Nodule": 0.65}}, HASH_ONLY),
        ],
        "significance": {
            "resamples": 100,
            "seed": 0,
            "tests": [
                {
                    "a": "System A",
                    "b": "System B",
                    "difference": 0.2,
                    "paired_bootstrap_p": 0.04,
                    "randomization_p": 0.03,
                    "n": 4,
                    "empty": {},
                }
            ],
        },
    }
    tests = [
        {
            "a": "openai/close",
            "b": "openai/noisy",
            "difference": 0.5,
            "paired_bootstrap_p": 0.01,
            "randomization_p": None,
            "n": 8,
            "empty": {"randomization_p": NO_RANDOMIZATION},
        }
    ]
    agreement = {
        "id": "judges-vert-vert-demo",
        "kind": "agreement",
        "truth": "score",
        "task": "vert",
        "score": "vert",
        "measures": ["kendall_tau_b"],
        "dataset": DATASET,
        "task_version": "1.2.0",
        "task_config": {},
        "n_samples": 8,
        "trial": {"samples": 8, "dataset_samples": 41},
        "statistic": TAU_LABEL,
        "measure_labels": {"kendall_tau_b": TAU_LABEL},
        "measure_units": {"kendall_tau_b": "samples"},
        "note": "tau against experts; intervals resample samples",
        "entries": [
            _judge_entry(1, "openai/close", {"kendall_tau_b": 0.9}),
            _judge_entry(2, "openai/noisy", {"kendall_tau_b": 0.4}),
        ],
        "significance": {"resamples": 100, "seed": 0, "tests": tests},
    }
    measures = {
        **agreement,
        "id": "judges-judge_sensitivity-balance-demo",
        "kind": "measures",
        "truth": None,
        "task": "judge_sensitivity",
        "score": "balance",
        "measures": ["balance", "discrimination", "robustness"],
        "statistic": "mean balance over the units",
        "measure_labels": {m: f"mean {m} over the units" for m in ("balance", "discrimination", "robustness")},
        "measure_units": dict.fromkeys(("balance", "discrimination", "robustness"), "units"),
        "note": None,
        "entries": [_judge_entry(1, "openai/close", {"balance": 0.7, "discrimination": 0.8, "robustness": None})],
        "significance": {"resamples": 100, "seed": 0, "tests": []},
    }
    return {
        "schema_version": "1.3",
        "generated": "2025-01-01T00:00:00+00:00",
        "radiology_tasks_version": "0.0.0",
        "trial": True,
        "settings": {"confidence": 0.95, "resamples": 100, "seed": 0, "max_unscored": 0.1, "unscored": "worst"},
        "boards": [report],
        "judge_boards": [agreement, measures, *truth_boards(agreement)],
        "not_ranked": [],
    }
