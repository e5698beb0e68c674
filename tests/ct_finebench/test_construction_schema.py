"""Grouping triplets into a draft schema, and reading the schema file a person edited.

The counts below are worked out by hand from `TRIPLETS`; a group counts reports, not triplets.
"""

from __future__ import annotations

import pytest

from radiology_tasks.scorers.ct_finebench.construction_answers import Triplet
from radiology_tasks.scorers.ct_finebench.construction_grouping import Group, common_values, group_triplets, infer_type
from radiology_tasks.scorers.ct_finebench.construction_schema import (
    AttributeSchema,
    SchemaAttribute,
    SchemaError,
    SchemaFinding,
    parse_schema,
    render_schema,
    schema_fingerprint,
)


def t(finding: str, attribute: str, value: str) -> Triplet:
    return Triplet(finding=finding, attribute=attribute, value=value)


TRIPLETS = {
    "r1": [
        t("Lung nodules", "Size", "8 mm"),
        t("lung nodule", "location", "right upper lobe"),
        t("Pleural effusion", "presence", "present"),
    ],
    # Two nodules in one report: the size group still counts r2 once.
    "r2": [
        t("lung nodule", "size", "5 mm"),
        t("lung nodule", "size", "3 mm"),
        t("lung_nodule", "Margins", "spiculated"),
    ],
    "r3": [t("LUNG NODULE", "location", "left lower lobe"), t("pleural effusions", "amount", "small")],
    "r4": [t("atelectasis", "severity", "mild")],
    "r5": [],
}


def test_groups_at_or_above_the_threshold_are_kept_in_count_order() -> None:
    grouping = group_triplets(TRIPLETS, min_count=2)
    assert (grouping.reports, grouping.triplets) == (5, 9)
    # lung nodule: r1, r2, r3 (3); pleural effusion: r1, r3 (2; "presence" counts the finding only); atelectasis: r4.
    assert [(f.finding, f.count) for f in grouping.findings] == [("lung nodule", 3), ("pleural effusion", 2)]
    nodule, effusion = grouping.findings
    # location: r1, r3 (2); size: r1, r2 (2); equal counts go by name. margin: r2 only (1) is below.
    assert nodule.attributes == [
        SchemaAttribute(
            attribute="location",
            type="location",
            question="What is the location of the lung nodule?",
            examples=["right upper lobe", "left lower lobe"],
            count=2,
        ),
        SchemaAttribute(
            attribute="size",
            type="numeric",
            question="What is the size of the lung nodule?",
            examples=["8 mm", "5 mm", "3 mm"],
            count=2,
        ),
    ]
    assert nodule.existence_question == "Is there any lung nodule?"
    assert effusion.attributes == []  # amount: r3 only
    assert grouping.below_threshold == [
        Group("atelectasis", None, 1),  # its severity attribute is not listed: it cannot be more frequent
        Group("lung nodule", "margin", 1),
        Group("pleural effusion", "amount", 1),
    ]


def test_a_higher_threshold_keeps_fewer_groups() -> None:
    grouping = group_triplets(TRIPLETS, min_count=3)
    assert [(f.finding, f.count, f.attributes) for f in grouping.findings] == [("lung nodule", 3, [])]
    assert [(g.finding, g.attribute, g.count) for g in grouping.below_threshold] == [
        ("lung nodule", "location", 2),
        ("lung nodule", "size", 2),
        ("pleural effusion", None, 2),
        ("atelectasis", None, 1),
        ("lung nodule", "margin", 1),
    ]


def test_no_finding_at_the_threshold_is_an_error() -> None:
    with pytest.raises(ValueError, match="lower --min-count"):
        group_triplets(TRIPLETS, min_count=4).schema()
    with pytest.raises(ValueError, match="min_count must be at least 1"):
        group_triplets(TRIPLETS, min_count=0)


@pytest.mark.parametrize(
    ("attribute", "values", "expected"),
    [
        ("size", ["8 mm", "small", "5 mm"], "numeric"),  # 2 of 3 hold a number
        ("size", ["small", "large"], "categorical"),
        ("size", ["8 mm", "small"], "categorical"),  # a tie goes to the type listed first
        ("laterality", ["left", "8 mm"], "location"),  # the name says it is a place
    ],
)
def test_infer_type(attribute: str, values: list[str], expected: str) -> None:
    assert infer_type(attribute, values) == expected


def test_common_values_count_without_case_or_spacing() -> None:
    assert common_values(["Small", "small ", "Large", "SMALL", "tiny", "large"], limit=2) == ["Small", "Large"]


SCHEMA = AttributeSchema(
    findings=[
        SchemaFinding(
            finding="lung nodule",
            existence_question="Is there any lung nodule?",
            count=3,
            attributes=[
                SchemaAttribute(
                    attribute="size", type="numeric", question="What is the size?", examples=["8 mm"], count=2
                )
            ],
        ),
        SchemaFinding(finding="pleural effusion", existence_question="Is there any pleural effusion?"),
    ]
)


def test_written_schema_reads_back_the_same() -> None:
    text = render_schema(SCHEMA, ["header line"], ["", "footer line"])
    assert text.startswith("# header line\nversion: 1\nfindings:\n- finding: lung nodule\n  count: 3\n")
    assert "    description: ''\n    examples: [8 mm]\n" in text
    assert text.endswith("#\n# footer line\n")
    assert parse_schema(text, "schema.yaml") == SCHEMA


def test_fingerprint_ignores_counts_only() -> None:
    recounted = SCHEMA.model_copy(
        update={"findings": [SCHEMA.findings[0].model_copy(update={"count": 99}), SCHEMA.findings[1]]}
    )
    reworded = parse_schema(render_schema(SCHEMA, []).replace("What is the size?", "How large is it?"), "s.yaml")
    assert schema_fingerprint(recounted) == schema_fingerprint(SCHEMA)
    assert schema_fingerprint(reworded) != schema_fingerprint(SCHEMA)


GOOD = """\
version: 1
findings:
- finding: lung nodule
  existence_question: Is there any lung nodule?
  aliases: [pulmonary nodule]
  attributes:
  - attribute: size
    type: numeric
    question: What is the size of the lung nodule?
- finding: pleural effusion
  existence_question: Is there any pleural effusion?
  attributes:
  - attribute: amount
    type: categorical
    question: How much fluid is there?
"""


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("type: categorical", "type: amount"),
            "schema.yaml: finding 2 (pleural effusion), attribute 1 (amount), field 'type': Input should be "
            "'numeric', 'categorical', 'location' or 'other'",
        ),
        (
            ("    question: What is the size", "    questoin: What is the size"),
            "schema.yaml: finding 1 (lung nodule), attribute 1 (size), field 'question': Field required",
        ),
        (
            ("  aliases: [pulmonary nodule]", "  aliases: [pulmonary nodule]\n  colour: red"),
            "schema.yaml: finding 1 (lung nodule), field 'colour': Extra inputs are not permitted",
        ),
        (
            ("  aliases: [pulmonary nodule]", "  aliases: [pulmonary nodule, 12]"),
            "schema.yaml: finding 1 (lung nodule), field 'aliases.1': Input should be a valid string",
        ),
        (
            ("- finding: pleural effusion\n", "- finding: Pulmonary Nodules\n"),
            "schema.yaml: finding 2 (Pulmonary Nodules), field 'finding': 'Pulmonary Nodules' names the same "
            "finding as finding 1 (lung nodule)",
        ),
        (
            (
                "  - attribute: amount",
                "  - attribute: Amounts\n    type: other\n    question: Q?\n  - attribute: amount",
            ),
            "schema.yaml: finding 2 (pleural effusion), attribute 2 (amount), field 'attribute': the same attribute "
            "as attribute 1 (Amounts)",
        ),
        (("version: 1", "version: 2"), "schema.yaml: field 'version': Input should be 1"),
        (
            ("  existence_question: Is there any pleural effusion?\n", ""),
            "schema.yaml: finding 2 (pleural effusion), field 'existence_question': Field required",
        ),
        (
            ("- finding: lung nodule", "- finding: lung nodule\n bad: [indent"),
            "schema.yaml, line 4: not valid YAML",
        ),  # the added line
    ],
)
def test_a_mistake_is_one_line_naming_the_entry_and_field(edit: tuple[str, str], message: str) -> None:
    old, new = edit
    assert old in GOOD
    with pytest.raises(SchemaError) as error:
        parse_schema(GOOD.replace(old, new, 1), "schema.yaml")
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_the_unedited_example_is_valid() -> None:
    schema = parse_schema(GOOD, "schema.yaml")
    assert [f.finding for f in schema.findings] == ["lung nodule", "pleural effusion"]
    assert schema.findings[0].aliases == ["pulmonary nodule"] and schema.findings[1].description is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "schema.yaml: expected a mapping with 'version' and 'findings' at the top"),
        ("version: 1\nfindings: []\n", "schema.yaml: field 'findings': List should have at least 1 item"),
    ],
)
def test_a_file_without_findings_is_refused(text: str, message: str) -> None:
    with pytest.raises(SchemaError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_schema(text, "schema.yaml")
