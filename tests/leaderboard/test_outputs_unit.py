"""The leaderboard's written forms from a leaderboard built in memory: the exact Markdown (boards, breakdowns,
paired tests, judges' boards, runs not ranked), the CSV rows, the page and the files; and the two subcommands."""

from __future__ import annotations

from typing import Any

from radiology_tasks.leaderboard.outputs import markdown


def _entry(rank: int, system: str, score: float, **extra: Any) -> dict[str, Any]:
    return {
        "rank": rank,
        "system": system,
        "score": score,
        "ci_low": score - 0.1,
        "ci_high": score + 0.05,
        "n": 4,
        "n_unscored": rank - 1,
        "log": f"../{system}.eval",
        "log_sha256": "f" * 64,
        **extra,
    }


def _leaderboard() -> dict[str, Any]:
    ranked = {
        "id": "vert-vert-pairs-findings",
        "task": "vert",
        "score": "vert",
        "dataset": {"name": "pairs"},
        "track": "findings",
        "task_version": "1.4.0",
        "judge": {"model": "openai/judge"},
        "n_samples": 4,
        "note": "A note.",
        "entries": [
            _entry(1, "A|x", 0.8, breakdown={"By type": {"numeric": 0.5, "other": None}}),
            _entry(2, "B", 0.6, breakdown={"By type": {"numeric": 0.25, "location": 1.0}, "Second": {"r": 0.1}}),
            _entry(3, "C", 0.5, breakdown=None),
        ],
        "significance": {
            "resamples": 300,
            "seed": 2,
            "tests": [{"a": "A|x", "b": "B", "difference": 0.2, "paired_bootstrap_p": 0.01234, "randomization_p": 0.5}],
        },
    }
    plain = {
        **ranked,
        "id": "green",
        "track": None,
        "note": None,
        "significance": {**ranked["significance"], "tests": []},
    }
    plain["entries"] = [_entry(1, "D", 0.9)]
    judges = {
        "task": "judge_sensitivity",
        "score": "balance",
        "dataset": {"name": "refs"},
        "task_version": "1.3.0",
        "n_samples": 14,
        "note": None,
        "measures": ["balance", "robustness"],
        "entries": [
            {
                "rank": 1,
                "system": "judge|1",
                "log": "../j1.eval",
                "measures": {"balance": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8, "n": 7}, "robustness": None},
            }
        ],
        "significance": {
            "resamples": 100,
            "seed": 0,
            "tests": [
                {
                    "a": "judge|1",
                    "b": "j2",
                    "difference": -0.125,
                    "paired_bootstrap_p": 0.5,
                    "randomization_p": None,
                    "n": 7,
                },
                {"a": "j3", "b": "j2", "difference": 0.0, "paired_bootstrap_p": 1.0, "randomization_p": 0.25, "n": 6},
            ],
        },
    }
    return {
        "settings": {"confidence": 0.9, "resamples": 300, "seed": 2},
        "boards": [ranked, plain],
        "judge_boards": [
            judges,
            {**judges, "note": "Judged.", "significance": {**judges["significance"], "tests": []}},
        ],
        "not_ranked": [{"system": "E|e", "task": None, "log": "../e.eval", "reasons": ["one", "two|2"]}],
    }


def test_the_interval_columns_are_named_for_the_runs_confidence():
    leaderboard = _leaderboard()
    assert "95%" not in markdown(leaderboard), "intervals at 90% are not headed 95%"
    leaderboard["settings"]["confidence"] = 0.95
    assert markdown(leaderboard).count("| 95% interval |") == 6, "two boards, two judges' boards of two measures"
