"""Turning one report's existence and attribute answers into its question-answer pairs."""

from __future__ import annotations

from radiology_tasks.core.records import QAPair
from radiology_tasks.scorers.ct_finebench.construction_qa import (
    attribute_items,
    build_qa,
    finding_items,
    present_findings,
)
from radiology_tasks.scorers.ct_finebench.construction_schema import AttributeSchema, SchemaAttribute, SchemaFinding


def attribute(name: str, kind: str, question: str) -> SchemaAttribute:
    return SchemaAttribute(attribute=name, type=kind, question=question)


SCHEMA = AttributeSchema(
    findings=[
        SchemaFinding(
            finding="lung nodule",
            existence_question="Is there any lung nodule?",
            attributes=[
                attribute("size", "numeric", "What is the size of the lung nodule?"),
                attribute("location", "location", "Where is the lung nodule?"),
                attribute("margin", "categorical", "What are the margins of the lung nodule?"),
            ],
        ),
        SchemaFinding(
            finding="pleural effusion",
            existence_question="Is there any pleural effusion?",
            attributes=[attribute("amount", "categorical", "How much pleural fluid is there?")],
        ),
        SchemaFinding(finding="atelectasis", existence_question="Is there any atelectasis?"),
        SchemaFinding(
            finding="renal cyst",
            existence_question="Is there any renal cyst?",
            attributes=[attribute("size", "numeric", "What is the size of the renal cyst?")],
        ),
    ]
)
STATUSES = {"f1": "present", "f2": "absent", "f3": "not_mentioned", "f4": "present"}


def test_ids_follow_the_schema_and_only_present_findings_get_attribute_ids() -> None:
    findings = finding_items(SCHEMA)
    assert [(item.id, item.finding.finding) for item in findings] == [
        ("f1", "lung nodule"),
        ("f2", "pleural effusion"),
        ("f3", "atelectasis"),
        ("f4", "renal cyst"),
    ]
    items = attribute_items(present_findings(findings, STATUSES))
    assert [(item.id, item.finding.finding, item.attribute.attribute) for item in items] == [
        ("a1", "lung nodule", "size"),
        ("a2", "lung nodule", "location"),
        ("a3", "lung nodule", "margin"),
        ("a4", "renal cyst", "size"),
    ]


def pair(question: str, answer: str, finding: str, attribute: str, kind: str) -> QAPair:
    return QAPair(question=question, answer=answer, finding=finding, attribute=attribute, attribute_type=kind)


def test_unstated_attributes_are_dropped_and_stated_findings_get_existence_questions() -> None:
    findings = finding_items(SCHEMA)
    items = attribute_items(present_findings(findings, STATUSES))
    answers = {"a1": "8 mm", "a2": "right upper lobe", "a3": None, "a4": None}
    expected = [
        pair("Is there any lung nodule?", "present", "lung nodule", "existence", "existence"),
        pair("What is the size of the lung nodule?", "8 mm", "lung nodule", "size", "numeric"),
        pair("Where is the lung nodule?", "right upper lobe", "lung nodule", "location", "location"),
        # margin: not stated, no pair
        pair("Is there any pleural effusion?", "absent", "pleural effusion", "existence", "existence"),
        # atelectasis: not mentioned, no pair; renal cyst: present, its size not stated
        pair("Is there any renal cyst?", "present", "renal cyst", "existence", "existence"),
    ]
    assert build_qa(findings, STATUSES, items, answers) == expected
    positive_only = build_qa(findings, STATUSES, items, answers, existence="present")
    assert positive_only == [qa for qa in expected if qa.answer != "absent"]


def test_a_report_stating_nothing_has_no_pairs() -> None:
    findings = finding_items(SCHEMA)
    statuses = {item.id: "not_mentioned" for item in findings}
    assert build_qa(findings, statuses, [], {}) == []
