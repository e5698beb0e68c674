"""What a family implements so its logs can be submitted: how a stored log is re-scored and ranked.

A family whose logs the leaderboard accepts implements `Submittable` (one method, `rescoring`), returning for
each of its submittable tasks a `Rescoring`: the rules every submittable task follows. What only some tasks
do is a protocol of its own (`CorpusStatistic`, `ExpertAgreement`, `JudgeMeasures`, `LeavesOut`), implemented
by the `Rescoring` of the tasks that need it and looked for with ``isinstance`` by the leaderboard.
"""

from __future__ import annotations

import inspect
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from radiology_tasks.scorers.score_record import PARSED_ANSWERS as PARSED_ANSWERS

if TYPE_CHECKING:
    from collections.abc import Callable

    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence


@dataclass(frozen=True)
class RankedScore:
    """The score a task's runs are ranked on.

    Attributes:
        key: The score key in each sample's value dict.
        bounded: The task keeps the score in [0, 1] (a missing score then counts as 0 on the board).
        corpus: The board's figure is a statistic over the whole sample set (a macro F1), not a mean of
            per-sample values: intervals and paired tests resample reports and recompute it (the task's
            `Rescoring` then implements `CorpusStatistic`).
        per_sample: For a corpus statistic, the per-sample key whose missing value marks a sample unscored.
    """

    key: str
    bounded: bool = True
    corpus: bool = False
    per_sample: str | None = None

    @property
    def sample_key(self) -> str:
        """The key each sample's value dict holds: the ranked key, or `per_sample` for a corpus statistic."""
        return self.per_sample or self.key


def stored_judge_answers(sample: SampleEvidence) -> list[str]:
    """The judge answers a sample stores under ``metadata["judge_answer"]`` (the convention of most judge tasks)."""
    answer = sample.metadata.get("judge_answer")
    return [answer] if isinstance(answer, str) else []


class Rescoring(ABC):
    """How the leaderboard checks and ranks a stored log of one task; subclass it and implement the first two.

    The other methods have the behaviour most tasks need; override them where a task differs.
    """

    @abstractmethod
    def ranked(self, run: RunEvidence) -> RankedScore:
        """The score the run is ranked on, under the run's settings."""

    @abstractmethod
    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        """The value dict the task's scorer gives for a sample's stored answers (judge answers, or the texts
        themselves for a metric without a judge), recomputed with the scorer's own code. Every key it returns is
        compared with the logged value."""

    def needs_judge(self) -> bool:
        """Runs are judged by a model (``--model-role grader``); False for metrics computed from text."""
        return True

    def answers(self, sample: SampleEvidence) -> list[str]:
        """The stored judge answers of a sample; each must be one the judge's model events returned."""
        return stored_judge_answers(sample)

    def run_checks(self, run: RunEvidence) -> list[str]:
        """Checks of run-level figures beyond the ranked score's ``<key>_mean`` (one line each)."""
        return []

    def breakdown(self, run: RunEvidence) -> dict[str, dict[str, float]] | None:
        """The task's own breakdown for the board (table title -> row label -> value); None: no breakdown."""
        return None

    def sample_ids(self, run: RunEvidence) -> list[str] | None:
        """The id of every sample the run's settings give, for a task whose samples are not the data's pairs
        (variants made from them, say); None: the ids of the pairs the run's data options load, or of their
        studies when the run records that it folded them (`radiology_tasks.core.studies`)."""
        return None


@runtime_checkable
class CorpusStatistic(Protocol):
    """A task ranked on a statistic over the whole sample set (`RankedScore.corpus`)."""

    def corpus_score(self, samples: list[SampleEvidence]) -> float:
        """The statistic over a list of samples (a list may repeat samples, as a bootstrap resample does)."""
        ...


@runtime_checkable
class ExpertAgreement(Protocol):
    """A task whose judges are ranked on the judges' track by agreement with the experts.

    The family only names the score its judge gives; the leaderboard pairs it with every expert truth the data
    carries, read from the data (`radiology_tasks.leaderboard.experts`), so no family keeps a copy of that code.
    """

    def agreement_key(self, run: RunEvidence) -> str:
        """The per-sample score compared with the experts (the ranked key, for the tasks here)."""
        ...


@runtime_checkable
class JudgeMeasures(Protocol):
    """A task whose judges are ranked on the judges' track by measures over units the task defines."""

    def judge_measures(self, run: RunEvidence) -> dict[str, dict[str, float]]:
        """Per measure name, the per-unit values its mean is taken over (units are resampled for intervals)."""
        ...


@runtime_checkable
class LeavesOut(Protocol):
    """A task that leaves samples out by design, with the reason in its log (a variant it could not make)."""

    def left_out(self, sample: SampleEvidence) -> bool:
        """Whether the task itself left `sample` out; such a sample is not counted as unscored."""
        ...


@runtime_checkable
class RescoresRedacted(Protocol):
    """A task whose logs can be submitted redacted (report and answer text replaced by hashes, see
    `radiology_tasks.leaderboard.redact`) and still re-scored: its `Rescoring.expected` and `Rescoring.run_checks`
    work from the parsed answers a redacted run (`RunEvidence.redacted`) keeps instead of reading the texts."""

    def parsed_answers(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, Any]:
        """What the scorer read from the sample's stored judge answers, as JSON, computed from the original log
        before redaction and kept under `PARSED_ANSWERS` ({} when the score metadata holds it already)."""
        ...


@runtime_checkable
class Submittable(Protocol):
    """A family whose logs the leaderboard accepts."""

    def rescoring(self, task: str) -> Rescoring | None:
        """The rules for `task` (one of the family's), or None when that task's logs cannot be submitted."""
        ...


class FunctionRescoring(Rescoring):
    """A task's `Rescoring` declared from the functions of its family's re-scoring module, one per rule.

    ``RESCORING = FunctionRescoring(ranked=ranked, expected=expected_values, breakdown=error_profile)`` in place of a
    subclass whose every method calls the module function of the same name. A rule not given keeps `Rescoring`'s
    default; a protocol's method not given is not there at all, so ``isinstance(rules, CorpusStatistic)`` (and the
    other protocols above) holds exactly for the rules given.

    Args:
        ranked: The ranked score, or the function giving it under a run's settings (`Rescoring.ranked`).
        expected: `Rescoring.expected`.
        needs_judge: `Rescoring.needs_judge`.
        agreement_key: The score compared with the experts, or the function giving it (`ExpertAgreement`).
        answers: `Rescoring.answers`.
        run_checks: `Rescoring.run_checks`.
        breakdown: `Rescoring.breakdown`.
        sample_ids: `Rescoring.sample_ids`.
        corpus_score: `CorpusStatistic.corpus_score`.
        judge_measures: `JudgeMeasures.judge_measures`.
        left_out: `LeavesOut.left_out`.
        parsed_answers: `RescoresRedacted.parsed_answers`.
    """

    def __init__(
        self,
        *,
        ranked: RankedScore | Callable[[RunEvidence], RankedScore],
        expected: Callable[[RunEvidence, SampleEvidence], dict[str, float]],
        needs_judge: bool = True,
        agreement_key: str | Callable[[RunEvidence], str] | None = None,
        answers: Callable[[SampleEvidence], list[str]] | None = None,
        run_checks: Callable[[RunEvidence], list[str]] | None = None,
        breakdown: Callable[[RunEvidence], dict[str, dict[str, float]] | None] | None = None,
        sample_ids: Callable[[RunEvidence], list[str] | None] | None = None,
        corpus_score: Callable[[list[SampleEvidence]], float] | None = None,
        judge_measures: Callable[[RunEvidence], dict[str, dict[str, float]]] | None = None,
        left_out: Callable[[SampleEvidence], bool] | None = None,
        parsed_answers: Callable[[RunEvidence, SampleEvidence], dict[str, Any]] | None = None,
    ) -> None:
        self._ranked, self._expected, self._needs_judge = ranked, expected, needs_judge
        if isinstance(agreement_key, str):
            agreement_key = _constant(agreement_key)
        rules = {
            "agreement_key": agreement_key,
            "answers": answers,
            "run_checks": run_checks,
            "breakdown": breakdown,
            "sample_ids": sample_ids,
            "corpus_score": corpus_score,
            "judge_measures": judge_measures,
            "left_out": left_out,
            "parsed_answers": parsed_answers,
        }
        # Each rule given becomes the instance's method of that name: it shadows the class's default, and it is
        # what the protocols' isinstance checks find.
        self.__dict__.update({name: rule for name, rule in rules.items() if rule is not None})

    @classmethod
    def of_module(cls, module_name: str, **given: Any) -> FunctionRescoring:
        """The rules of a re-scoring module that names its functions after the rules they are.

        ``RESCORING = FunctionRescoring.of_module(__name__, left_out=_excluded)`` at the end of the module: each rule
        the module defines under the rule's own name (``ranked``, ``expected``, ``answers``, ``run_checks``, ...) is
        taken, and `given` adds or replaces rules by name, as the constructor's keywords do. A function the module
        only imports under a rule's name is not taken (it is some other module's rule).

        Raises:
            TypeError: a rule `given` has no such name, or neither the module nor `given` has ``ranked`` and
                ``expected``.
        """
        module = sys.modules[module_name]
        defined = {
            name: rule
            for name in _RULE_NAMES
            if callable(rule := getattr(module, name, None)) and getattr(rule, "__module__", None) == module_name
        }
        return cls(**{**defined, **given})

    def ranked(self, run: RunEvidence) -> RankedScore:
        """The ranked score given, or the one the given function names for `run`."""
        return self._ranked if isinstance(self._ranked, RankedScore) else self._ranked(run)

    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        """The given `expected` function's value dict."""
        return self._expected(run, sample)

    def needs_judge(self) -> bool:
        """As given (True unless the task's metric is computed from text)."""
        return self._needs_judge


_RULE_NAMES = tuple(
    name for name in inspect.signature(FunctionRescoring.__init__).parameters if name not in ("self", "needs_judge")
)
"""The rules `FunctionRescoring` takes as functions, by the name of each (its keywords)."""


def _constant(key: str) -> Callable[[RunEvidence], str]:
    """A rule that names the same score for every run."""

    def agreement_key(run: RunEvidence) -> str:
        return key

    return agreement_key
