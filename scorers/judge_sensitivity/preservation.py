"""Facts of a reference that a variant must keep, read by code: what no injector or checker answer can overrule.

A weak injector can hand back a "paraphrase" that drops findings and adds a sentence, and a weak checker can
call it faithful. These checks read the facts straight from the two texts instead:

- **measurements**: every quantity, read and converted as CT-FineBench grades numeric answers
  (`scorers.numeric.quantities`), so "8 mm" and "0.8 cm" are one measurement and "8 mm" and
  "14 mm" are two; a number without a unit counts too;
- **laterality**: how often the text says right, left or both sides (bilateral), with the abbreviations
  CT-FineBench's answer matcher reads (`scorers.text_match.normalise`);
- **location**: the lobes named (right upper lobe, RUL, ...), from the same matcher;
- **negation**: how many negation cues the text has (no, not, without, negative for, free of, absent, none,
  not seen, not identified, not present);
- **findings**: which known finding words the text names (`finding_terms`: the head words of Ran Score's
  finding labels and their listed wordings), plurals read as the singular.

A paraphrase must keep every one of them: `fact_changes` of the reference and the paraphrase must be empty. An
error variant may change only the kinds of fact its error type changes (`ALLOWED_CHANGES`: a wrong location may
move a side or a lobe but not resize a finding, a wrong severity may change a measurement but not flip a side,
a false finding may add a finding but not remove one). Where a variant changed its facts is held by the
injection's own check (`scorers.judge_sensitivity.checks`: every sentence it does not list is kept byte for
byte); this module says whether what changed is what the variant says changed.

The reading is deliberately literal: a rewording that swaps a finding word for a synonym, or "normal" for "not
enlarged", is rejected too. A rejected variant is remade or left out, never mislabelled.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from radiology_tasks.scorers.numeric import quantities
from radiology_tasks.scorers.taxonomy import Taxonomy
from radiology_tasks.scorers.text_match import SYNONYMS, normalise

PreservationProblem = Literal[
    "measurement_changed",
    "laterality_changed",
    "location_changed",
    "negation_changed",
    "finding_dropped",
    "finding_added",
]
"""Which kind of fact a variant changed:

- ``measurement_changed``: a measurement (value or unit) is gone, new or different.
- ``laterality_changed``: the sides named (right, left, both) differ.
- ``location_changed``: the lobes named differ.
- ``negation_changed``: a negation was added or removed.
- ``finding_dropped``: a finding word of the reference no longer appears.
- ``finding_added``: a finding word appears that the reference does not have.
"""

ALL_CHANGES: frozenset[PreservationProblem] = frozenset(get_args(PreservationProblem))

ALLOWED_CHANGES: Mapping[str, frozenset[PreservationProblem]] = {
    # (a) false finding: a new finding, with its size and side, possibly where a normal or negated statement was.
    "a": ALL_CHANGES - {"finding_dropped"},
    # (b) missed finding and (f) missed comparison: a finding or a sentence taken out, with what it said.
    "b": ALL_CHANGES - {"finding_added"},
    "f": ALL_CHANGES - {"finding_added"},
    # (c) wrong location: another side, lobe or structure.
    "c": frozenset({"laterality_changed", "location_changed"}),
    # (d) wrong severity: grade, size or extent.
    "d": frozenset({"measurement_changed"}),
    # (e) invented comparison: "new", "larger than the prior 6 mm".
    "e": frozenset({"measurement_changed"}),
    # CT-FineBench's attribute edits: side, place or size (density and margin are not read here).
    "attribute": frozenset({"laterality_changed", "location_changed", "measurement_changed"}),
}
"""The kinds of fact an error variant of each type may change; a paraphrase may change none."""

_HEAD_CUT = re.compile(
    r"\b(?:of|in|on|at|with|without|attributed|due|called|described|from|to|alone|seen|shown|within|any)\b"
)
_PIECES = re.compile(r",|;|/|\(|\)|\bor\b|\band\b")
_MODIFIER = re.compile(r"(?:al|ar|ic|ed|ous|ary|oid|like)$")
NOT_FINDINGS = frozenset(
    {
        "size", "side", "loss", "ratio", "line", "lines", "process", "disease", "other", "lung", "segment",
        "acute", "knob", "nodes", "fluid", "leads", "hardware", "tube", "valve", "wires", "clips", "devices",
        "arteries", "vessels", "vascularity", "deviation", "opacities", "silhouette", "enlargement", "contour",
        "healing", "layering", "blunting", "overload",
    }
)  # fmt: skip
"""Head words of the taxonomy's wordings that name a structure, a measure or a quality rather than a finding."""


def _singular(word: str) -> str:
    """A plural finding word as its singular: opacities -> opacity, metastases -> metastasis, masses -> mass."""
    for plural, singular in (("ies", "y"), ("ases", "asis"), ("sses", "ss"), ("xes", "x"), ("ches", "ch")):
        if word.endswith(plural) and len(word) > len(plural) + 2:
            return word[: -len(plural)] + singular
    if word.endswith("s") and not word.endswith(("ss", "is", "us")) and len(word) > 4:
        return word[:-1]
    return word


def finding_terms(taxonomy: Taxonomy) -> frozenset[str]:
    """The finding words of a Ran Score taxonomy: for each asked label, the head word of its name and of each
    short wording it lists (cut at the first preposition), less modifiers and `NOT_FINDINGS`, as singulars."""
    terms: set[str] = set()
    for label in taxonomy.asked:
        for phrase in (label.column, label.key.replace("_", " "), *label.include):
            for piece in _PIECES.split(phrase.casefold()):
                words = re.findall(r"[a-z]+", _HEAD_CUT.split(piece)[0])
                if not 1 <= len(words) <= 3:
                    continue
                head = _singular(words[-1])
                if len(head) > 3 and not _MODIFIER.search(head) and head not in NOT_FINDINGS:
                    terms.add(head)
    return frozenset(terms)


_NEGATION = re.compile(r"\b(?:absent|not|without|negative|free of|none|neither)\b")
_SIDE = re.compile(r"\b(?:right|left|both)\b")
_BILATERALLY = re.compile(r"\bbilaterally\b")
_LOBES = tuple(name for name in SYNONYMS if name.endswith(" lobe"))
_LOBE = re.compile(r"\b(?:" + "|".join(map(re.escape, _LOBES)) + r")\b")


@dataclass(frozen=True)
class Facts:
    """The facts code reads from one text (see the module docstring).

    Attributes:
        measurements: Each quantity as (dimension, values in base units, largest first), counted.
        sides: ``right``, ``left`` and ``both``, counted.
        lobes: Lobe names, counted.
        negations: Number of negation cues.
        findings: Finding words named.
    """

    measurements: Counter[tuple[str | None, tuple[str, ...]]]
    sides: Counter[str]
    lobes: Counter[str]
    negations: int
    findings: frozenset[str]


def read_facts(text: str, terms: Iterable[str]) -> Facts:
    """The facts of `text`, with `terms` as the known finding words (singular, lower case)."""
    folded = normalise(text)
    measured: Counter[tuple[str | None, tuple[str, ...]]] = Counter(
        (quantity.dimension, tuple(str(value) for value in quantity.in_base_units(None)))
        for quantity in quantities(text)
    )
    sides = Counter(_SIDE.findall(folded)) + Counter({"both": len(_BILATERALLY.findall(folded))})
    words = {_singular(word) for word in folded.split()}
    return Facts(
        measurements=measured,
        sides=+sides,
        lobes=Counter(_LOBE.findall(folded)),
        negations=len(_NEGATION.findall(folded)),
        findings=frozenset(words & set(terms)),
    )


@dataclass(frozen=True)
class FactChange:
    """One kind of fact that differs between a reference and a variant.

    Attributes:
        problem: The kind (`PreservationProblem`).
        detail: What exactly differs, for the log.
    """

    problem: PreservationProblem
    detail: str


def _measure(key: tuple[str | None, tuple[str, ...]]) -> str:
    dimension, values = key
    return " x ".join(values) + (f" ({dimension}, base units)" if dimension else " (no unit)")


def _counted(name: str, before: Counter[str], after: Counter[str]) -> str:
    def show(counts: Counter[str]) -> str:
        return ", ".join(f"{key} x{count}" for key, count in sorted(counts.items())) or "none"

    return f"{name}: reference {show(before)}; variant {show(after)}"


def fact_changes(reference: str, variant: str, terms: Iterable[str]) -> list[FactChange]:
    """Every kind of fact that differs between `reference` and `variant`, in a fixed order (empty: all kept)."""
    terms = frozenset(terms)
    before, after = read_facts(reference, terms), read_facts(variant, terms)
    changes: list[FactChange] = []
    if before.measurements != after.measurements:
        gone = sorted(map(_measure, before.measurements - after.measurements))
        new = sorted(map(_measure, after.measurements - before.measurements))
        changes.append(FactChange("measurement_changed", f"gone: {gone or 'none'}; new: {new or 'none'}"))
    if before.sides != after.sides:
        changes.append(FactChange("laterality_changed", _counted("sides", before.sides, after.sides)))
    if before.lobes != after.lobes:
        changes.append(FactChange("location_changed", _counted("lobes", before.lobes, after.lobes)))
    if before.negations != after.negations:
        changes.append(
            FactChange("negation_changed", f"negations: reference {before.negations}; variant {after.negations}")
        )
    if dropped := sorted(before.findings - after.findings):
        changes.append(FactChange("finding_dropped", f"no longer named: {', '.join(dropped)}"))
    if added := sorted(after.findings - before.findings):
        changes.append(FactChange("finding_added", f"newly named: {', '.join(added)}"))
    return changes


def allowed_changes(categories: Iterable[str]) -> frozenset[PreservationProblem]:
    """The kinds of fact a variant made with `categories` may change (none for a paraphrase: no category).

    Raises:
        KeyError: for a category `ALLOWED_CHANGES` does not know.
    """
    allowed: frozenset[PreservationProblem] = frozenset()
    for category in categories:
        allowed |= ALLOWED_CHANGES[category]
    return allowed


def preservation_problem(
    reference: str, variant: str, categories: Iterable[str], terms: Iterable[str]
) -> FactChange | None:
    """The first change of a fact that a variant made with `categories` may not make, or None.

    Args:
        reference: The reference (or one of its sentences).
        variant: The variant (or the rewrite of that sentence).
        categories: The variant's error types (``a``-``f``, ``attribute``); empty for a paraphrase.
        terms: The known finding words (`finding_terms`).
    """
    allowed = allowed_changes(categories)
    kind = ", ".join(sorted(categories)) or "paraphrase"
    for change in fact_changes(reference, variant, terms):
        if change.problem not in allowed:
            return FactChange(change.problem, f"not a change a {kind} variant makes: {change.detail}")
    return None
