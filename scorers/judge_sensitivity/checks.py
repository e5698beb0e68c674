"""What code can check about a variant before any model is asked whether it is plausible.

An injection must change exactly the number of sentences asked for, each one once, quote each original
sentence exactly, really change it, and leave every other sentence byte for byte as it was: the modified
report the injector returns must be the reference with exactly its stated changes applied
(`SplitReport.admits`). A paraphrase must rewrite every sentence of the reference (none dropped, none
added) and differ from it somewhere; its text is assembled here from the rewrites, with the reference's own
whitespace between them. Then `check_kept_facts` holds the variant to the facts of the reference that code can
read (`scorers.judge_sensitivity.preservation`): each rewrite keeps its sentence's measurements, sides, lobes,
negations and finding words; an injection changes only the kinds of fact its error type changes.

Each failed check has a stable code (`CheckProblem`) and a detail for the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from radiology_tasks.scorers.judge_sensitivity.answers import InjectionAnswer, ParaphraseAnswer
from radiology_tasks.scorers.judge_sensitivity.preservation import PreservationProblem, preservation_problem
from radiology_tasks.scorers.judge_sensitivity.sentences import SplitReport

CheckProblem = Literal[
    "wrong_change_count",
    "sentence_out_of_range",
    "sentence_changed_twice",
    "original_mismatch",
    "sentence_unchanged",
    "deletion_not_allowed",
    "nothing_left",
    "report_mismatch",
    "wrong_sentence_count",
    "sentence_dropped",
    "report_unchanged",
]
"""Why a variant failed a code check:

- ``wrong_change_count``: the injection lists another number of changed sentences than asked for.
- ``sentence_out_of_range``: a change or rewrite names a sentence index the reference does not have.
- ``sentence_changed_twice``: two changes (or rewrites) name the same sentence.
- ``original_mismatch``: a change quotes its original sentence differently from the reference.
- ``sentence_unchanged``: a change leaves its sentence as it was.
- ``deletion_not_allowed``: a sentence was deleted for an error type that adds or alters content.
- ``nothing_left``: every sentence was deleted.
- ``report_mismatch``: the modified report is not the reference with exactly the stated changes.
- ``wrong_sentence_count``: a paraphrase has another number of rewrites than the reference has sentences.
- ``sentence_dropped``: a rewrite is empty.
- ``report_unchanged``: the variant is identical to the reference.
"""


@dataclass(frozen=True)
class CheckResult:
    """The outcome of a code check: the variant's text, or the first problem found.

    Attributes:
        text: The variant report when every check passed, else None.
        problem: The `CheckProblem` or `PreservationProblem` code, None when every check passed.
        detail: What exactly was wrong, for the log.
    """

    text: str | None
    problem: CheckProblem | PreservationProblem | None = None
    detail: str = ""


def _failed(problem: CheckProblem, detail: str) -> CheckResult:
    return CheckResult(None, problem, detail)


def check_injection(reference: SplitReport, answer: InjectionAnswer, n_changes: int, *, deletions: bool) -> CheckResult:
    """Check that an injection changed exactly `n_changes` sentences and nothing else.

    Args:
        reference: The reference, split as it was shown to the injector.
        answer: The injector's answer.
        n_changes: How many sentences must change (one error each).
        deletions: Whether a change may delete its sentence (omission error types).

    Returns:
        The modified report when the answer passes, else the first problem.
    """
    changes = answer.changes_detail
    if len(changes) != n_changes:
        return _failed("wrong_change_count", f"asked for {n_changes} changed sentences, got {len(changes)}")
    replacements: dict[int, str] = {}
    for change in changes:
        index = change.sentence_index
        if not 0 <= index < len(reference.sentences):
            return _failed("sentence_out_of_range", f"sentence {index}; the report has {len(reference.sentences)}")
        if index in replacements:
            return _failed("sentence_changed_twice", f"sentence {index}")
        if change.original != reference.sentences[index]:
            return _failed("original_mismatch", f"sentence {index} is quoted as {change.original!r}")
        modified = change.modified.strip()
        if modified == change.original:
            return _failed("sentence_unchanged", f"sentence {index}")
        if not modified and not deletions:
            return _failed("deletion_not_allowed", f"sentence {index} was deleted")
        replacements[index] = modified
    if all(replacements.get(i) == "" for i in range(len(reference.sentences))):
        return _failed("nothing_left", "every sentence was deleted")
    if not reference.admits(answer.modified_report, replacements):
        return _failed(
            "report_mismatch", "the modified report is not the reference with exactly the listed changes applied"
        )
    return CheckResult(answer.modified_report)


def check_paraphrase(reference: SplitReport, answer: ParaphraseAnswer) -> CheckResult:
    """Check that a paraphrase rewrites every sentence of the reference, and assemble it.

    Args:
        reference: The reference, split as it was shown to the paraphraser.
        answer: The paraphraser's answer.

    Returns:
        The paraphrased report (the rewrites joined by the reference's own whitespace), else the first problem.
    """
    count = len(reference.sentences)
    if len(answer.sentences) != count:
        return _failed("wrong_sentence_count", f"the report has {count} sentences, got {len(answer.sentences)}")
    rewrites: dict[int, str] = {}
    for item in answer.sentences:
        index = item.sentence_index
        if not 0 <= index < count:
            return _failed("sentence_out_of_range", f"sentence {index}; the report has {count}")
        if index in rewrites:
            return _failed("sentence_changed_twice", f"sentence {index}")
        rewrite = item.paraphrase.strip()
        if not rewrite:
            return _failed("sentence_dropped", f"sentence {index} has an empty rewrite")
        rewrites[index] = rewrite
    text = reference.replaced(rewrites)
    if text == reference.join():
        return _failed("report_unchanged", "every sentence was kept word for word")
    return CheckResult(text)


def check_kept_facts(
    reference: SplitReport,
    answer: InjectionAnswer | ParaphraseAnswer,
    text: str,
    categories: Sequence[str],
    terms: Iterable[str],
) -> CheckResult:
    """Check that a variant that passed its other checks keeps the facts code reads (`preservation`).

    Args:
        reference: The reference, split as it was shown to the injector.
        answer: The injector's answer.
        text: The variant, as `check_injection` or `check_paraphrase` returned it.
        categories: The variant's error types (``attribute`` for an attribute edit); empty for a paraphrase.
        terms: The known finding words.

    Returns:
        `text` when every fact is kept (or changed only as the error type may), else the first problem. A
        paraphrase is compared sentence by sentence, each rewrite with its own sentence.
    """
    terms = frozenset(terms)
    if isinstance(answer, ParaphraseAnswer):
        for item in sorted(answer.sentences, key=lambda s: s.sentence_index):
            index = item.sentence_index
            found = preservation_problem(reference.sentences[index], item.paraphrase.strip(), (), terms)
            if found is not None:
                return CheckResult(None, found.problem, f"sentence {index}: {found.detail}")
        return CheckResult(text)
    found = preservation_problem(reference.join(), text, categories, terms)
    return CheckResult(text) if found is None else CheckResult(None, found.problem, found.detail)
