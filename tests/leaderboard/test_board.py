"""`radiology-tasks leaderboard`: comparable runs ranked with intervals and paired tests; the rest listed with why."""

from __future__ import annotations

import csv
import json

import jsonschema
import pytest

from radiology_tasks.cli import main
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import CATEGORY_NAMES
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.outputs import schema, write_outputs
from radiology_tasks.scorers.leaderboard.significance import mean_interval, paired_test
from tests.leaderboard.boards import Fixture, build
from tests.leaderboard.runs import REFERENCES, SYSTEM_A, SYSTEM_B

RESAMPLES = 500


def _scripted(candidates: dict[str, str]) -> list[float]:
    """The scores the scripted judge gives, in sample-id order."""
    return [float(candidates[pid][-5:-1]) for pid in sorted(REFERENCES)]


@pytest.fixture(scope="module")
def board_fixture(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return build(tmp_path_factory.mktemp("board"), resamples=RESAMPLES)


def test_only_comparable_runs_are_ranked_together(board_fixture):
    (board,) = board_fixture.leaderboard["boards"]
    assert [(e["rank"], e["system"]) for e in board["entries"]] == [(1, "System A"), (2, "System B")]
    not_ranked = {row["log"].rsplit("/", 1)[-1]: row["reasons"] for row in board_fixture.leaderboard["not_ranked"]}
    logs = board_fixture.logs
    (judge_reason,) = not_ranked[logs["other judge"].name]
    other, board_judge = "openai-api/stubsvc/other-judge", "openai-api/stubsvc/stub-judge"
    assert judge_reason == f"not comparable: judge differs (model: {other} vs the board's {board_judge})"
    (brief_reason,) = not_ranked[logs["brief"].name]
    assert brief_reason == "not comparable: task configuration differs (detail: brief vs the board's full)"
    forged_reasons = not_ranked["forged.eval"]
    assert any("logged vert 1 but its stored judge answer gives" in reason for reason in forged_reasons)
    assert len(not_ranked) == 3


def test_scores_intervals_and_significance_follow_from_the_samples(board_fixture):
    (board,) = board_fixture.leaderboard["boards"]
    a_values, b_values = _scripted(SYSTEM_A), _scripted(SYSTEM_B)
    first, second = board["entries"]
    for entry, values in ((first, a_values), (second, b_values)):
        interval = mean_interval(values, resamples=RESAMPLES, seed=0)
        assert (entry["score"], entry["ci_low"], entry["ci_high"]) == pytest.approx(
            (interval.value, interval.low, interval.high)
        )
        assert (entry["n"], entry["n_unscored"]) == (8, 0)
    (test,) = board["significance"]["tests"]
    expected = paired_test(a_values, b_values, resamples=RESAMPLES, seed=0)
    assert (test["a"], test["b"]) == ("System A", "System B")
    assert test["difference"] == pytest.approx(0.3)
    assert (test["paired_bootstrap_p"], test["randomization_p"]) == (expected.bootstrap_p, expected.randomization_p)
    # A beats B by 0.3 on every sample: no resample reverses that; randomization is exact for 2**8 = 256 patterns.
    assert test["paired_bootstrap_p"] == pytest.approx(1 / (RESAMPLES + 1))
    assert test["randomization_p"] == pytest.approx(2 / 256)
    assert board["significance"] == {**board["significance"], "resamples": RESAMPLES, "seed": 0}


def test_entries_carry_provenance_profile_and_expert_points(board_fixture):
    (board,) = board_fixture.leaderboard["boards"]
    first, second = board["entries"]
    assert first["log"] == f"../bundle-a/logs/{board_fixture.logs['A'].name}"
    assert (board_fixture.out / first["log"]).resolve() == (
        board_fixture.bundles["A"] / "logs" / board_fixture.logs["A"].name
    )
    assert (first["institution"], first["paper"]) == ("Demo Hospital", "https://x.org")
    # The scripted judge finds one (b) error where it gives less than 0.7: for 3 of A's 8 reports, all of B's.
    (title,) = first["breakdown"]
    profile_a, profile_b = first["breakdown"][title], second["breakdown"][title]
    assert list(profile_a) == [f"({c}) {CATEGORY_NAMES[c]}" for c in "abcdef"]
    assert list(profile_a.values()) == [0.0, 3 / 8, 0.0, 0.0, 0.0, 0.0]
    assert list(profile_b.values()) == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    # Experts rated the data's own candidates (A's); B replaced them, so B has no judge-versus-expert points.
    pairs = load_pairs(str(board_fixture.root / "pairs.jsonl")).pairs
    expected = sorted((p.expert.normalized_score, float(SYSTEM_A[p.id][-5:-1])) for p in pairs)
    points = sorted(map(tuple, first["expert_points"]))
    assert [p for pair in points for p in pair] == pytest.approx([p for pair in expected for p in pair])
    assert second["expert_points"] is None
    assert board["judge"] == {"model": "openai-api/stubsvc/stub-judge", "temperatures": [0.0], "seeded": False}
    assert board["n_samples"] == 8 and board["task"] == "vert" and board["score"] == "vert"


def test_the_json_validates_against_the_shipped_schema(board_fixture, tmp_path):
    leaderboard = board_fixture.leaderboard
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(leaderboard, schema())
    written = write_outputs(leaderboard, tmp_path / "site")
    jsonschema.validate(json.loads(written["json"].read_text()), schema())
    broken = json.loads(written["json"].read_text())
    broken["boards"][0]["entries"][0]["log_sha256"] = "not-a-hash"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema())


def test_csv_and_markdown_hold_every_ranked_cell(board_fixture, tmp_path):
    written = write_outputs(board_fixture.leaderboard, tmp_path / "site")
    rows = list(csv.DictReader(written["csv"].open()))
    assert [(r["rank"], r["system"], r["task"], r["dataset"]) for r in rows] == [
        ("1", "System A", "vert", rows[0]["dataset"]),
        ("2", "System B", "vert", rows[0]["dataset"]),
    ]
    assert float(rows[0]["score"]) == pytest.approx(sum(_scripted(SYSTEM_A)) / 8)
    text = written["markdown"].read_text()
    assert "| 1 | System A | 0.725 |" in text and "| 2 | System B | 0.425 |" in text
    assert "| System A | System B | +0.300 |" in text
    assert "## Not ranked" in text and "not comparable: judge differs" in text
    page = written["page"].read_text()
    assert '<script type="application/json" id="leaderboard-data">' in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page.replace(
        "https://x.org", ""
    ), "the page loads nothing from the network"


def test_a_log_changed_after_bundling_is_not_ranked(board_fixture, tmp_path):
    bundled = board_fixture.bundles["B"] / "logs" / board_fixture.logs["B"].name
    original = bundled.read_bytes()
    try:
        bundled.write_bytes(board_fixture.logs["A"].read_bytes())
        leaderboard = build_leaderboard([board_fixture.bundles["B"]], tmp_path, Settings(resamples=50))
    finally:
        bundled.write_bytes(original)
    (row,) = leaderboard["not_ranked"]
    assert row["reasons"][0] == "the log changed after it was bundled (its SHA-256 is not the manifest's)"
    assert leaderboard["boards"] == []


def test_a_directory_without_a_manifest_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="not a submission bundle"):
        build_leaderboard([tmp_path], tmp_path / "out")


def test_leaderboard_command_writes_every_output(board_fixture, tmp_path, capsys):
    out = tmp_path / "site"
    inputs = [str(board_fixture.bundles["A"]), str(board_fixture.bundles["B"]), str(board_fixture.logs["brief"])]
    assert main(["leaderboard", *inputs, "--out", str(out), "--resamples", "100"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("1 board(s), 2 ranked run(s), 1 not ranked\n")
    assert "not ranked: " in printed and "task configuration differs" in printed
    assert sorted(p.name for p in out.iterdir()) == [
        "index.html",
        "leaderboard.csv",
        "leaderboard.json",
        "leaderboard.md",
    ]
    assert json.loads((out / "leaderboard.json").read_text())["settings"]["resamples"] == 100


def test_two_judges_of_the_same_candidates_are_ranked_on_the_judges_track(board_fixture, tmp_path):
    from scipy.stats import kendalltau

    from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle

    bundles = [
        write_bundle([board_fixture.logs[name]], tmp_path / name.replace(" ", "-"), SystemCard(track="judges")).parent
        for name in ("A", "other judge")
    ]
    leaderboard = build_leaderboard(bundles, tmp_path / "site", Settings(resamples=RESAMPLES, seed=0))
    assert leaderboard["boards"] == [] and leaderboard["not_ranked"] == []
    (board,) = leaderboard["judge_boards"]
    assert (board["kind"], board["task"], board["score"]) == ("agreement", "vert", "vert")
    assert {e["system"] for e in board["entries"]} == {
        "openai-api/stubsvc/stub-judge",
        "openai-api/stubsvc/other-judge",
    }
    # Both judges answer alike (one scripted reply): the same tau, the scipy figure over the expert-rated samples.
    pairs = load_pairs(str(board_fixture.root / "pairs.jsonl")).pairs
    experts = [p.expert.normalized_score for p in pairs]
    judged = [float(SYSTEM_A[p.id][-5:-1]) for p in pairs]
    for entry in board["entries"]:
        assert entry["measures"]["kendall_tau_b"]["value"] == pytest.approx(kendalltau(experts, judged).statistic)
    (test,) = board["significance"]["tests"]
    assert test["difference"] == pytest.approx(0.0)
    jsonschema.validate(leaderboard, schema())
