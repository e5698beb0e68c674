"""A task's rules declared from functions: each given function is the rule of its name, a rule not given keeps
`Rescoring`'s default, and the protocols hold exactly for the rules given."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from radiology_tasks.core.family import families
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rescore import family_rescoring
from radiology_tasks.leaderboard.rules import (
    CorpusStatistic,
    ExpertAgreement,
    FunctionRescoring,
    JudgeMeasures,
    LeavesOut,
    RankedScore,
    RescoresRedacted,
    Rescoring,
)
from tests.leaderboard.memory_runs import memory_run, sample, write_pairs

PROTOCOLS = {
    "corpus_score": CorpusStatistic,
    "agreement_key": ExpertAgreement,
    "judge_measures": JudgeMeasures,
    "left_out": LeavesOut,
    "parsed_answers": RescoresRedacted,
}


def _expected(run: RunEvidence, item: SampleEvidence) -> dict[str, float]:
    return {"hit": 1.0}


@pytest.fixture
def run(tmp_path: Path) -> RunEvidence:
    return memory_run(write_pairs(tmp_path))


def test_only_ranked_and_expected_keeps_every_default_and_no_protocol(run):
    rules = FunctionRescoring(ranked=RankedScore("hit"), expected=_expected)
    item = sample("s0")
    item.metadata["judge_answer"] = "the stored answer"
    assert rules.ranked(run) == RankedScore("hit") and rules.expected(run, item) == {"hit": 1.0}
    assert rules.needs_judge() is True and rules.answers(item) == ["the stored answer"]
    assert rules.run_checks(run) == [] and rules.breakdown(run) is None and rules.sample_ids(run) is None
    assert [name for name, protocol in PROTOCOLS.items() if isinstance(rules, protocol)] == []


def test_each_rule_given_is_called_and_makes_its_protocol_hold(run):
    calls: list[str] = []

    def ranked(given: RunEvidence) -> RankedScore:
        calls.append("ranked")
        return RankedScore("hit", bounded=False)

    rules = FunctionRescoring(
        ranked=ranked,
        expected=_expected,
        needs_judge=False,
        answers=lambda item: ["a", item.id],
        run_checks=lambda given: ["checked"],
        breakdown=lambda given: {"table": {"row": 1.0}},
        sample_ids=lambda given: ["x"],
        corpus_score=lambda samples: float(len(samples)),
        judge_measures=lambda given: {"m": {"u": 0.5}},
        left_out=lambda item: item.id == "s1",
        parsed_answers=lambda given, item: {"id": item.id},
        agreement_key="hit",
    )
    assert rules.ranked(run) == RankedScore("hit", bounded=False) and calls == ["ranked"]
    assert rules.needs_judge() is False and rules.answers(sample("s2")) == ["a", "s2"]
    assert rules.run_checks(run) == ["checked"] and rules.breakdown(run) == {"table": {"row": 1.0}}
    assert rules.sample_ids(run) == ["x"]
    assert all(isinstance(rules, protocol) for protocol in PROTOCOLS.values())
    assert isinstance(rules, CorpusStatistic) and rules.corpus_score([sample("a"), sample("b")]) == 2.0
    assert isinstance(rules, JudgeMeasures) and rules.judge_measures(run) == {"m": {"u": 0.5}}
    assert isinstance(rules, LeavesOut) and rules.left_out(sample("s1")) and not rules.left_out(sample("s0"))
    assert isinstance(rules, RescoresRedacted) and rules.parsed_answers(run, sample("s3")) == {"id": "s3"}
    assert isinstance(rules, ExpertAgreement) and rules.agreement_key(run) == "hit"


def test_agreement_key_may_depend_on_the_run(run):
    rules = FunctionRescoring(ranked=RankedScore("hit"), expected=_expected, agreement_key=lambda given: given.task)
    assert isinstance(rules, ExpertAgreement) and rules.agreement_key(run) == run.task


def test_a_rule_with_no_such_name_is_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument 'breakdwn'"):
        FunctionRescoring(ranked=RankedScore("hit"), expected=_expected, breakdwn=lambda run: None)  # type: ignore[call-arg]


def test_every_registered_familys_rules_are_rescorings():
    found = [family_rescoring(family, task) for family in families() for task in family.tasks]
    assert all(rules is None or isinstance(rules, Rescoring) for rules in found)
    assert sum(isinstance(rules, FunctionRescoring) for rules in found) >= 7


def _rescoring_module(name: str, monkeypatch: pytest.MonkeyPatch, **functions: object) -> types.ModuleType:
    """A module named `name` in `sys.modules` whose functions are `functions`, each defined there."""
    module = types.ModuleType(name)
    for attribute, function in functions.items():
        function.__module__ = name  # type: ignore[attr-defined]
        setattr(module, attribute, function)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def test_of_module_takes_each_rule_the_module_defines_under_its_name(run, monkeypatch):
    def breakdown(given: RunEvidence) -> dict[str, dict[str, float]]:
        return {"table": {"row": 2.0}}

    def _helper(given: RunEvidence) -> list[str]:
        return ["not a rule"]

    _rescoring_module(
        "toy_rescoring",
        monkeypatch,
        ranked=lambda given: RankedScore("hit"),
        expected=_expected,
        breakdown=breakdown,
        _helper=_helper,
        left_out=lambda item: True,
    )
    rules = FunctionRescoring.of_module("toy_rescoring")
    assert rules.ranked(run) == RankedScore("hit") and rules.expected(run, sample("s0")) == {"hit": 1.0}
    assert rules.breakdown(run) == {"table": {"row": 2.0}} and rules.run_checks(run) == []
    assert isinstance(rules, LeavesOut) and rules.left_out(sample("s0"))
    assert [name for name, protocol in PROTOCOLS.items() if isinstance(rules, protocol)] == ["left_out"]


def test_of_module_given_rules_add_and_replace_and_imports_are_not_taken(run, monkeypatch):
    def imported_checks(given: RunEvidence) -> list[str]:
        return ["someone else's"]

    _rescoring_module("toy_rescoring", monkeypatch, ranked=lambda given: RankedScore("hit"), expected=_expected)
    sys.modules["toy_rescoring"].run_checks = imported_checks  # defined in this test module: an import there
    rules = FunctionRescoring.of_module(
        "toy_rescoring", expected=lambda given, item: {"hit": 0.0}, corpus_score=lambda samples: 3.0
    )
    assert rules.expected(run, sample("s0")) == {"hit": 0.0} and rules.run_checks(run) == []
    assert isinstance(rules, CorpusStatistic) and rules.corpus_score([]) == 3.0


def test_of_module_without_ranked_or_a_misnamed_rule_is_refused(monkeypatch):
    _rescoring_module("toy_rescoring", monkeypatch, expected=_expected)
    with pytest.raises(TypeError, match="ranked"):
        FunctionRescoring.of_module("toy_rescoring")
    with pytest.raises(TypeError, match="unexpected keyword argument 'breakdwn'"):
        FunctionRescoring.of_module("toy_rescoring", ranked=RankedScore("hit"), breakdwn=lambda given: None)
