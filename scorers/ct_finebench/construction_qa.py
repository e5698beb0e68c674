"""Turn a report's judge answers into its CT-FineBench question-answer pairs.

Step 3 asks the judge twice per report. First, for every schema finding (ids ``f1``, ``f2``, ... in schema
order), whether the report states it present, states it absent, or does not mention it. Then, for the
attributes of the findings it states present (ids ``a1``, ``a2``, ...), the report's answer to each attribute
question, or null when the report does not say. The pairs follow the schema's order: per finding its existence
question, then its stated attributes; an attribute the report does not state has no pair (paper, section 3.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast, get_args

from radiology_tasks.core.records import QAPair
from radiology_tasks.scorers.ct_finebench.construction_contracts import ExistenceStatus
from radiology_tasks.scorers.ct_finebench.construction_schema import AttributeSchema, SchemaAttribute, SchemaFinding

ExistenceQuestions = Literal["stated", "present"]
"""Which findings get an existence question: those the report states present or absent (``stated``), or
only those it states present (``present``, the paper's positive findings)."""
EXISTENCE_QUESTIONS: tuple[ExistenceQuestions, ...] = get_args(ExistenceQuestions)

EXISTENCE_ATTRIBUTE = "existence"


@dataclass(frozen=True)
class FindingItem:
    """A schema finding under the id the existence answer gives its status by."""

    id: str
    finding: SchemaFinding


@dataclass(frozen=True)
class AttributeItem:
    """An attribute of a finding under the id the attribute answer gives its value by."""

    id: str
    finding: SchemaFinding
    attribute: SchemaAttribute


def finding_items(schema: AttributeSchema) -> list[FindingItem]:
    """Every schema finding with its id ``f1``, ``f2``, ... in schema order."""
    return [FindingItem(f"f{number}", finding) for number, finding in enumerate(schema.findings, start=1)]


def present_findings(items: Sequence[FindingItem], statuses: Mapping[str, ExistenceStatus]) -> list[SchemaFinding]:
    """The findings whose status is ``present``, in schema order."""
    return [item.finding for item in items if statuses.get(item.id) == "present"]


def attribute_items(findings: Sequence[SchemaFinding]) -> list[AttributeItem]:
    """The attributes of these findings with ids ``a1``, ``a2``, ... in order."""
    pairs = [(finding, attribute) for finding in findings for attribute in finding.attributes]
    return [AttributeItem(f"a{number}", finding, attribute) for number, (finding, attribute) in enumerate(pairs, 1)]


def build_qa(
    findings: Sequence[FindingItem],
    statuses: Mapping[str, ExistenceStatus],
    attributes: Sequence[AttributeItem],
    answers: Mapping[str, str | None],
    existence: ExistenceQuestions = "stated",
) -> list[QAPair]:
    """The report's question-answer pairs.

    Args:
        findings: Every schema finding with its id.
        statuses: ``finding id -> status`` from the existence answer.
        attributes: The attributes asked about, with their ids.
        answers: ``attribute id -> answer``; None (or a missing id) when the report does not state it.
        existence: Which findings get an existence question (`ExistenceQuestions`).

    Returns:
        Per finding in schema order: its existence pair, then one pair per stated attribute.
    """
    by_finding: dict[str, list[AttributeItem]] = {}
    for attribute_item in attributes:
        by_finding.setdefault(attribute_item.finding.finding, []).append(attribute_item)
    pairs: list[QAPair] = []
    for item in findings:
        status = statuses.get(item.id)
        asked = status == "present" or (status == "absent" and existence == "stated")
        if not asked:
            continue
        finding = item.finding
        pairs.append(
            QAPair(
                question=finding.existence_question,
                answer=cast(str, status),  # asked: present or absent
                finding=finding.finding,
                attribute=EXISTENCE_ATTRIBUTE,
                attribute_type="existence",
            )
        )
        if status != "present":
            continue
        for attribute_item in by_finding.get(finding.finding, []):
            answer = answers.get(attribute_item.id)
            if answer is None:
                continue
            pairs.append(
                QAPair(
                    question=attribute_item.attribute.question,
                    answer=answer,
                    finding=finding.finding,
                    attribute=attribute_item.attribute.attribute,
                    attribute_type=attribute_item.attribute.type,
                )
            )
    return pairs
