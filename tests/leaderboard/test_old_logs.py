"""Logs written by the code before the day's refactors (tests/fixtures/old_logs) still read and re-score.

The promise kept: task names, `-T` names, score keys, metadata keys and template hash keys did not change, so
what the leaderboard holds against an old log is that its task version is not the released one, and that the
prompt templates changed since (`CHANGED_TEMPLATES`) differ from those it recorded. Every other check (scores
recomputed from the stored judge answers or texts, logged means, the data's SHA-256, the other prompt-template
hashes, the judge's settings) passes on the old logs as they are.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.leaderboard.checks import released_templates, released_version, run_violations
from radiology_tasks.leaderboard.evidence import RunEvidence, read_run
from radiology_tasks.leaderboard.rescore import rescorable_tasks, rescoring_violations

OLD_LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "old_logs"

CHANGED_TEMPLATES = ("generate_report.jinja",)
"""Templates whose released text changed after the old logs were written: the generation prompt, which every family
with prompts records, asks for the track's section(s) and shows the context as fields and each image's view
(report_generation 1.3.0)."""


@dataclasses.dataclass(frozen=True)
class OldLog:
    """What an old log is: its task, the version the old code wrote, and how many samples of how many."""

    task: str
    version: str
    samples: int
    dataset_samples: int


# Every run but ran_score was limited (`-T limit=...`), so the sample-set check rightly names the rest of the
# dataset as missing: that line is about the run's size, not its age, and appears the same with the released
# version. The judge_sensitivity dataset is the demo references times the variants made of each (28 here).
SUBMITTABLE = {
    "baselines.eval": OldLog("baselines", "1.2.0", 4, 41),
    "vert.eval": OldLog("vert", "1.3.0", 4, 41),
    "green.eval": OldLog("green", "1.3.0", 4, 41),
    "ran_score.eval": OldLog("ran_score", "1.2.0", 10, 10),
    "ct_finebench.eval": OldLog("ct_finebench", "1.2.0", 3, 21),
    "judge_sensitivity.eval": OldLog("judge_sensitivity", "1.3.0", 4, 28),
    "vert_over_generation.eval": OldLog("vert", "1.3.0", 3, 41),
}


@pytest.fixture(scope="module")
def runs() -> dict[str, RunEvidence]:
    # vert_over_generation names its candidates relatively (`-T candidates=report_generation.eval`), as run in
    # the folder holding both logs; the checks re-hash that file from the current directory.
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(OLD_LOGS)
        return {name: read_run(OLD_LOGS / name) for name in [*SUBMITTABLE, "report_generation.eval"]}


def _checked(run: RunEvidence) -> list[str]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(OLD_LOGS)
        return run_violations(run)


def _size_line(old: OldLog) -> list[str]:
    missing = old.dataset_samples - old.samples
    return [f"{missing} of the dataset's {old.dataset_samples} samples are missing: "] if missing else []


def _template_lines(run: RunEvidence) -> list[str]:
    return [f"prompt template {name} differs from the released one" for name in CHANGED_TEMPLATES if run.templates]


def _assert_lines(lines: list[str], old: OldLog, run: RunEvidence, *, version_line: str | None) -> None:
    size = _size_line(old)
    if size:
        assert lines[0].startswith(size[0]), lines
    assert lines[len(size) :] == [*([version_line] if version_line else []), *_template_lines(run)], lines


@pytest.mark.parametrize("name", SUBMITTABLE)
def test_an_old_log_is_refused_only_for_its_task_version(runs, name):
    run, old = runs[name], SUBMITTABLE[name]
    assert (run.short_task, run.task_version, len(run.samples)) == (old.task, old.version, old.samples)
    released = released_version(old.task)
    assert released != old.version, "the fixture must predate the release it is checked against"
    version_line = f"task version {old.version} is not the released {old.task} version {released}"
    _assert_lines(_checked(run), old, run, version_line=version_line)
    # The checks the version line could hide, stated on their own: every score recomputes from what is stored
    # and the templates the old run recorded are, key for key, the released ones but those changed since.
    assert rescoring_violations(run) == []
    released_now = released_templates(old.task)
    assert set(run.templates) == set(released_now)
    assert {k: v for k, v in run.templates.items() if k not in CHANGED_TEMPLATES} == {
        k: v for k, v in released_now.items() if k not in CHANGED_TEMPLATES
    }


@pytest.mark.parametrize("name", SUBMITTABLE)
def test_an_old_log_marked_with_the_released_version_passes_every_check(runs, name):
    # None of the version bumps changes what these stored answers score (no answer here is truncated, and the
    # runs judge one candidate per pair), so nothing but the run's size is left.
    run, old = runs[name], SUBMITTABLE[name]
    relabelled = dataclasses.replace(run, task_version=released_version(old.task))
    _assert_lines(_checked(relabelled), old, run, version_line=None)


def test_the_rescoring_check_is_live_on_an_old_log(runs):
    # A forged score in an old log is still caught: the pass above is not the check reading nothing.
    run = runs["vert.eval"]
    first = run.samples[0]
    forged = dataclasses.replace(first, values={**first.values, "vert": 0.123})
    lines = rescoring_violations(dataclasses.replace(run, samples=[forged, *run.samples[1:]]))
    assert lines == [
        f"sample {first.id}: logged vert 0.123 but its stored judge answer gives {first.values['vert']:.6g}"
    ]


def test_an_old_generation_log_reads_and_the_vert_run_over_it_rechecks(runs):
    generation = runs["report_generation.eval"]
    assert (generation.short_task, generation.task_version) == ("report_generation", "1.0.0")
    assert len(generation.samples) == 3
    # Generation-only runs were never submittable; that answer is unchanged.
    supported = ", ".join(rescorable_tasks())  # grows with every family that can be submitted
    assert {"baselines", "ct_finebench", "green", "judge_sensitivity", "ran_score", "vert"} <= set(rescorable_tasks())
    assert _checked(generation) == [
        f"task radiology_tasks/report_generation cannot be submitted yet (supported: {supported})"
    ]
    # The vert run judged over it re-scores (test above: only size and version lines) and its candidates file
    # hashes the same. The judge saw the generated reports as the candidates.
    judged = runs["vert_over_generation.eval"]
    assert {s.candidate for s in judged.samples} == {"Findings: no acute abnormality. Heart size normal. Lungs clear."}


def test_an_old_per_pair_generation_log_is_refused_as_new_candidates_naming_why():
    # report_generation 1.1.0 writes one report per study (its README changelog); a 1.0.0 log holds one per pair
    # (ctc-01-para, -err and -multi are three pairs of one study), so a new run judging it is refused with the
    # reason and the remedy, never judged against the wrong ids.
    with pytest.MonkeyPatch.context() as monkeypatch, pytest.raises(InputError) as refused:
        monkeypatch.chdir(OLD_LOGS)
        load_pairs("demo", candidates="report_generation.eval")
    assert str(refused.value) == (
        "-T candidates=report_generation.eval: its sample ids are not those the generation run selected from the "
        "judged data (missing ctc-02-para, ctc-03-para; extra ctc-01-err, ctc-01-multi); it holds one report per "
        "pair (report_generation 1.0.0): generate again, one report per study"
    )


def test_submit_refuses_an_old_log_with_the_version_and_changed_template_lines_alone(tmp_path):
    out = tmp_path / "bundle"
    result = subprocess.run(
        [sys.executable, "-m", "radiology_tasks.cli", "submit", str(OLD_LOGS / "ran_score.eval"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    released = released_version("ran_score")
    assert result.stderr.splitlines() == [
        "radiology-tasks submit: refused, 2 problem(s):",
        f"  ran_score.eval: task version 1.2.0 is not the released ran_score version {released}",
        "  ran_score.eval: prompt template generate_report.jinja differs from the released one",
    ]
    assert not out.exists()
