"""Group extracted triplets by finding and attribute and keep the frequent groups as a draft schema.

A group's count is the number of reports it occurs in (a report listing three nodules counts once), and a
group is kept when its count reaches the threshold (the paper uses 50). Names are grouped by
`normalize_name`. Triplets whose attribute only says the finding is there (``presence``, ``existence``)
count towards their finding but make no attribute: every finding gets an existence question anyway.

Each kept attribute gets an answer type by majority over its values (`scorers.ct_finebench.questions.answer_type`:
a place-naming attribute is ``location``, a value holding a number ``numeric``, anything else ``categorical``;
a tie goes to the type listed first in `ANSWER_TYPES`), its commonest values as examples, and a question to edit.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from radiology_tasks.core.records import QAPair
from radiology_tasks.scorers.ct_finebench.construction_answers import Triplet
from radiology_tasks.scorers.ct_finebench.construction_names import normalize_name
from radiology_tasks.scorers.ct_finebench.construction_schema import (
    AttributeSchema,
    AttributeType,
    SchemaAttribute,
    SchemaFinding,
)
from radiology_tasks.scorers.ct_finebench.questions import ANSWER_TYPES, answer_type

DEFAULT_MIN_COUNT = 50
"""The paper's frequency threshold (section 3.4)."""

MAX_EXAMPLES = 5
"""Commonest values written as examples per attribute."""


def existence_question(finding: str) -> str:
    """The draft existence question of a finding."""
    return f"Is there any {finding}?"


def attribute_question(finding: str, attribute: str) -> str:
    """The draft question of one attribute of a finding."""
    return f"What is the {attribute} of the {finding}?"


@dataclass(frozen=True)
class Group:
    """A finding, or a finding's attribute (``attribute`` set), with the number of reports it occurs in."""

    finding: str
    attribute: str | None
    count: int


@dataclass
class Grouping:
    """The outcome of grouping: the draft schema's findings and the groups below the threshold.

    Attributes:
        findings: Kept findings with their kept attributes, commonest first.
        below_threshold: Findings and attributes that did not reach the threshold, commonest first.
        reports: Reports read (with or without triplets).
        triplets: Triplets read.
    """

    findings: list[SchemaFinding] = field(default_factory=list)
    below_threshold: list[Group] = field(default_factory=list)
    reports: int = 0
    triplets: int = 0

    def schema(self) -> AttributeSchema:
        """The draft schema.

        Raises:
            ValueError: no finding reached the threshold.
        """
        if not self.findings:
            raise ValueError("no finding occurs in enough reports to reach the threshold; lower --min-count")
        return AttributeSchema(findings=self.findings)


def _is_existence(attribute: str) -> bool:
    return answer_type(QAPair(question="", answer="", attribute=attribute)) == "existence"


def infer_type(attribute: str, values: Sequence[str]) -> AttributeType:
    """The majority answer type of an attribute's values (never ``existence``; see the module docstring)."""
    votes = Counter(answer_type(QAPair(question="", answer=value, attribute=attribute)) for value in values)
    candidates = [kind for kind in ANSWER_TYPES if kind != "existence"]
    return max(candidates, key=lambda kind: (votes[kind], -candidates.index(kind)))


def common_values(values: Iterable[str], limit: int = MAX_EXAMPLES) -> list[str]:
    """The commonest values, counted without regard to case or spacing, each as first written."""
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    for value in values:
        key = " ".join(value.casefold().split())
        counts[key] += 1
        first.setdefault(key, value.strip())
    order = {key: position for position, key in enumerate(first)}
    ranked = sorted(counts, key=lambda key: (-counts[key], order[key]))
    return [first[key] for key in ranked[:limit]]


def _ranked(counts: Mapping[str, int]) -> list[str]:
    """Names by count, most first, then by name."""
    return sorted(counts, key=lambda name: (-counts[name], name))


def _kept_attributes(
    finding: str,
    counts: Mapping[str, int],
    values: Mapping[tuple[str, str], list[str]],
    min_count: int,
    below: list[Group],
) -> list[SchemaAttribute]:
    """The attributes of a kept finding that occur in at least `min_count` reports; the others go to `below`."""
    attributes = []
    for attribute in _ranked(counts):
        if counts[attribute] < min_count:
            below.append(Group(finding, attribute, counts[attribute]))
            continue
        group_values = values[(finding, attribute)]
        attributes.append(
            SchemaAttribute(
                attribute=attribute,
                type=infer_type(attribute, group_values),
                question=attribute_question(finding, attribute),
                examples=common_values(group_values),
                count=counts[attribute],
            )
        )
    return attributes


def group_triplets(reports: Mapping[str, Sequence[Triplet]], min_count: int = DEFAULT_MIN_COUNT) -> Grouping:
    """Group the triplets of each report and keep the groups that occur in at least `min_count` reports.

    Args:
        reports: ``report id -> its triplets``.
        min_count: The threshold, in reports.

    Returns:
        Kept findings (each with its kept attributes) ordered by count, then name; and the groups left out.
    """
    if min_count < 1:
        raise ValueError(f"min_count must be at least 1, got {min_count}")
    finding_reports: dict[str, set[str]] = defaultdict(set)
    attribute_reports: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    values: dict[tuple[str, str], list[str]] = defaultdict(list)
    grouping = Grouping(reports=len(reports))
    for report_id, triplets in reports.items():
        for triplet in triplets:
            grouping.triplets += 1
            finding, attribute = normalize_name(triplet.finding), normalize_name(triplet.attribute)
            if not finding:
                continue
            finding_reports[finding].add(report_id)
            if attribute and not _is_existence(attribute):
                attribute_reports[finding][attribute].add(report_id)
                values[(finding, attribute)].append(triplet.value)

    below: list[Group] = []
    finding_counts = {name: len(ids) for name, ids in finding_reports.items()}
    for finding in _ranked(finding_counts):
        if finding_counts[finding] < min_count:
            # Its attributes occur in no more reports than the finding itself: they are below too.
            below.append(Group(finding, None, finding_counts[finding]))
            continue
        attribute_counts = {name: len(ids) for name, ids in attribute_reports[finding].items()}
        attributes = _kept_attributes(finding, attribute_counts, values, min_count, below)
        grouping.findings.append(
            SchemaFinding(
                finding=finding,
                existence_question=existence_question(finding),
                count=finding_counts[finding],
                attributes=attributes,
            )
        )
    grouping.below_threshold = sorted(below, key=lambda group: (-group.count, group.finding, group.attribute or ""))
    return grouping
