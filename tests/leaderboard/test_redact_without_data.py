"""A redacted run on a leaderboard machine that does not hold its data: ranked as its log recorded the data, and
labelled so; a run that is not redacted still needs its data.

One vert run on demo data marked credentialed is bundled redacted, and then its data file is deleted, as on a
machine without credentialed access. Edits of the run are made in memory where the check reads the run alone,
and written as logs where the board is built.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.core import hub
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle
from radiology_tasks.leaderboard.checks import run_violations
from radiology_tasks.leaderboard.evidence import RunEvidence, read_run
from radiology_tasks.leaderboard.outputs import schema, write_outputs
from radiology_tasks.leaderboard.redact import HASH_ONLY, HASH_ONLY_UNCHECKED_DATA
from radiology_tasks.leaderboard.run_data import data_absence, data_checked
from tests.leaderboard.credentialed_runs import mark_flat_credentialed
from tests.leaderboard.runs import edited, run_task, scripted_judge, write_data

SETTINGS = Settings(resamples=20)
FORGED_SHA = "f" * 64


class Runs:
    """The run's data file (deleted), its original log and its redacted copy in a bundle."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.data = write_data(directory)
        with pytest.MonkeyPatch.context() as monkeypatch:
            with scripted_judge(monkeypatch):
                self.original = run_task(directory / "logs", data=str(self.data))
            mark_flat_credentialed(monkeypatch)
            write_bundle([self.original], directory / "bundle", SystemCard(name="System A"))
        self.bundle = directory / "bundle"
        self.redacted = self.bundle / "logs" / self.original.name
        self.data.unlink()

    @contextmanager
    def data_here(self) -> Iterator[Path]:
        """The data file written again for the duration of a test (the same bytes the run read)."""
        write_data(self.directory)
        try:
            yield self.data
        finally:
            self.data.unlink()

    def copy(self, name: str) -> Path:
        """A byte-for-byte copy of the redacted log, as a second system's identical run."""
        return Path(shutil.copy(self.redacted, self.directory / name))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return Runs(tmp_path_factory.mktemp("without-data"))


@pytest.fixture
def redacted(runs: Runs) -> RunEvidence:
    run = read_run(runs.redacted)
    assert run.redacted and not runs.data.exists()
    return run


def test_a_redacted_bundle_ranks_without_its_data_and_says_so(runs, tmp_path):
    built = build_leaderboard([runs.bundle], tmp_path, SETTINGS)
    assert built["not_ranked"] == []
    (board,) = built["boards"]
    (entry,) = board["entries"]
    assert entry["checks"] == HASH_ONLY_UNCHECKED_DATA
    recorded = read_run(runs.redacted).fingerprint
    assert board["dataset"]["data_sha256"] == recorded["data_sha256"]
    assert board["n_samples"] == 8
    jsonschema.validate(built, schema())
    written = write_outputs(built, tmp_path)
    assert f"System A ({HASH_ONLY_UNCHECKED_DATA})" in written["markdown"].read_text()


@pytest.mark.slow
def test_the_page_labels_a_run_whose_data_was_not_checked(runs, tmp_path):
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    assert chromium, "the page is checked in Debian's Chromium (apt-get install chromium)"
    page_file = write_outputs(build_leaderboard([runs.bundle], tmp_path, SETTINGS), tmp_path)["page"]
    problems: list[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(page_file.as_uri())
        labels = page.eval_on_selector_all("table.ranking td .checks", "cs => cs.map(c => c.textContent)")
        browser.close()
    assert problems == []
    assert labels == [HASH_ONLY_UNCHECKED_DATA]


def test_with_its_data_here_a_redacted_run_is_checked_against_it(runs, redacted, tmp_path):
    with runs.data_here() as data:
        assert data_absence(redacted) is None and data_checked(redacted)
        assert run_violations(redacted) == []
        (board,) = build_leaderboard([runs.bundle], tmp_path, SETTINGS)["boards"]
        assert board["entries"][0]["checks"] == HASH_ONLY
        data.write_text(data.read_text() + json.dumps({"id": "p9", "reference": "A new report."}) + "\n")
        lines = run_violations(redacted)
    assert "1 of the dataset's 9 samples are missing: p9" in lines[0]
    assert any(line.startswith(f"data {runs.data} changed since the run (data_sha256 ") for line in lines)


def test_data_that_is_here_but_unreadable_is_not_taken_as_absent(redacted, tmp_path):
    (tmp_path / "notes.txt").write_text("not a dataset\n")
    unreadable = replace(redacted, task_args={**redacted.task_args, "data": str(tmp_path)})
    assert data_absence(unreadable) is None and data_checked(unreadable)
    lines = run_violations(unreadable)
    assert lines and lines[0].startswith(f"the dataset {tmp_path} cannot be loaded here to check the sample set")


def test_hub_data_that_cannot_be_fetched_is_absent(redacted, monkeypatch, tmp_path):
    def offline(layout, revision):
        raise hub.HubUnavailableError(f"could not fetch {layout.hub_repo} (offline)")

    monkeypatch.setattr(hub, "fetch", offline)
    # A folder of the hub dataset's name where the board runs is not its copy: the name is fetched from the hub.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "radeval-expert").mkdir()
    on_hub = replace(redacted, task_args={**redacted.task_args, "data": "radeval-expert", "revision": "abc"})
    assert data_absence(on_hub) == "could not fetch IAMJB/RadEvalExpertDataset (offline)"
    assert not data_checked(on_hub)
    assert run_violations(on_hub) == []


def test_two_redacted_runs_with_different_recorded_fingerprints_are_not_compared(runs, tmp_path):
    def other_data(log: EvalLog) -> None:
        log.eval.metadata["data"]["fingerprint"]["data_sha256"] = FORGED_SHA

    other = edited(runs.redacted, other_data, "other-data.eval")
    built = build_leaderboard([runs.redacted, runs.copy("same-data.eval"), other], tmp_path, SETTINGS)
    (board,) = built["boards"]
    assert [Path(e["log"]).name for e in board["entries"]] == [runs.redacted.name, "same-data.eval"]
    assert {e["checks"] for e in board["entries"]} == {HASH_ONLY_UNCHECKED_DATA}
    (refused,) = built["not_ranked"]
    assert refused["log"].endswith("other-data.eval")
    recorded = board["dataset"]["data_sha256"]
    assert refused["reasons"] == [
        f"not comparable: data revision differs (data_sha256: {FORGED_SHA} vs the board's {recorded})"
    ]


def test_a_run_that_is_not_redacted_still_needs_its_data(runs, tmp_path):
    whole = read_run(runs.original)
    assert not whole.redacted and data_checked(whole)
    lines = run_violations(whole)
    assert lines[0].startswith(f"the dataset {runs.data} cannot be loaded here to check the sample set")
    built = build_leaderboard([runs.original], tmp_path, SETTINGS)
    assert built["boards"] == [] and built["not_ranked"][0]["reasons"] == lines


def test_a_forged_score_in_a_redacted_run_without_its_data_is_refused(runs, tmp_path):
    def forge(log: EvalLog) -> None:
        score = log.samples[1].scores["report_judge"]
        score.value = {**score.value, "vert": 0.99}

    forged = edited(runs.redacted, forge, "forged.eval")
    run = read_run(forged)
    assert any(
        line.startswith(f"sample {run.samples[1].id}: logged vert 0.99 but its stored judge answer gives")
        for line in run_violations(run)
    )
    built = build_leaderboard([forged], tmp_path, SETTINGS)
    assert built["boards"] == [] and len(built["not_ranked"]) == 1


def _without(run: RunEvidence, *keys: str) -> RunEvidence:
    data = {k: v for k, v in run.metadata["data"].items() if k not in keys}
    return replace(run, metadata={**run.metadata, "data": data})


def test_without_its_data_a_redacted_run_must_record_what_it_is_compared_by(redacted):
    where = f"the dataset {redacted.data_name} is not here ({data_absence(redacted)})"
    assert data_absence(redacted) is not None and not data_checked(redacted)
    assert run_violations(redacted) == []
    no_sha = _without(redacted, "fingerprint")
    assert f"{where} and the log records no SHA-256 of it to compare runs by" in run_violations(no_sha)
    no_count = _without(redacted, "samples")
    assert run_violations(no_count) == [
        f"{where} and the log records no count of its samples to check the run's against"
    ]
    fewer = replace(redacted, samples=redacted.samples[1:])
    assert f"the log records 8 samples of the dataset {redacted.data_name} at eval time but holds 7" in (
        run_violations(fewer)
    )
    limited = replace(redacted, task_args={**redacted.task_args, "limit": 8})
    assert run_violations(limited) == [f"{where} to show that the run, limited to -T limit=8, covers all of it"]


def test_a_trial_board_refuses_a_redacted_run_without_its_data(redacted):
    where = f"the dataset {redacted.data_name} is not here ({data_absence(redacted)})"
    assert run_violations(redacted, trial=True) == [
        f"{where}, so a trial board cannot count how much of it the run covers; rank it where the data is"
    ]
