"""The attribute schema file: one entry per finding with the attributes its questions ask about.

`radiology-tasks ctfb-schema` writes it from the grouped triplets; a person then edits it (remove, split,
merge, comment) and `radiology-tasks ctfb-qa` reads it back. It is YAML so that comments survive the edit.
Reading validates it with pydantic; the first mistake is reported in one line that names the entry and the
field, for example ``schema.yaml: finding 2 (pleural effusion), attribute 1 (size), field 'type': Input should
be 'numeric', 'categorical', 'location' or 'other'``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError

from radiology_tasks.scorers.ct_finebench.construction_names import normalize_name

SCHEMA_VERSION: Final = 1

AttributeType = Literal["numeric", "categorical", "location", "other"]
"""The answer type of an attribute question; existence is asked once per finding (``existence_question``)."""

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def _blank_is_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


# The file is written with empty descriptions for the person to fill in; empty means none.
Description = Annotated[str | None, BeforeValidator(_blank_is_none)]


class SchemaAttribute(BaseModel):
    """One attribute of a finding, and the question that asks for it.

    Attributes:
        attribute: The attribute's name, e.g. ``size``.
        type: The answer type, which decides how CT-FineBench grades the answer.
        question: The question put to a report, e.g. ``What is the size of the lung nodule?``.
        description: What the attribute means, for the judge that writes the answers (optional).
        examples: Typical values, shown to that judge (optional).
        count: Reports whose triplets had this attribute (written by the grouping; informational).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    attribute: Text
    type: AttributeType
    question: Text
    description: Description = None
    examples: list[Text] = Field(default_factory=list)
    count: int | None = Field(default=None, ge=0)


class SchemaFinding(BaseModel):
    """One finding, its other names and its attributes.

    Attributes:
        finding: The finding's name, e.g. ``lung nodule``.
        existence_question: The question whether the finding is there, answered ``present`` or ``absent``.
        aliases: Other names of the same finding, shown to the judge (a merge keeps the merged names here).
        description: What counts as this finding (optional).
        count: Reports whose triplets had this finding (written by the grouping; informational).
        attributes: The finding's attributes, in the order their questions are asked.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    finding: Text
    existence_question: Text
    aliases: list[Text] = Field(default_factory=list)
    description: Description = None
    count: int | None = Field(default=None, ge=0)
    attributes: list[SchemaAttribute] = Field(default_factory=list)


class AttributeSchema(BaseModel):
    """The whole schema file.

    Attributes:
        version: The file format's version (1).
        findings: The findings, in the order their questions are asked.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = SCHEMA_VERSION
    findings: list[SchemaFinding] = Field(min_length=1)


class SchemaError(ValueError):
    """A schema file that cannot be used; the message is one line naming the entry and the field."""


def _entry(data: Any, kind: str, index: int) -> str:
    """``finding 2 (pleural effusion)``: the 1-based position and, when readable, the name (field `kind`)."""
    name = data[index].get(kind) if isinstance(data, list) and isinstance(data[index], dict) else None
    return f"{kind} {index + 1}" + (f" ({name})" if isinstance(name, str) and name.strip() else "")


def _location(raw: Any, loc: Sequence[int | str]) -> str:
    """Where a pydantic error is, in words: ``finding 2 (pleural effusion), attribute 1 (size), field 'type'``."""
    parts: list[str] = []
    node = raw
    index = 0
    while index < len(loc):
        key = loc[index]
        nested = node.get(key) if isinstance(node, dict) else None
        if key in ("findings", "attributes") and index + 1 < len(loc) and isinstance(loc[index + 1], int):
            position = int(loc[index + 1])
            kind = "finding" if key == "findings" else "attribute"  # also the field holding the entry's name
            parts.append(_entry(nested, kind, position))
            node = nested[position] if isinstance(nested, list) else None
            index += 2
            continue
        rest = ".".join(str(part) for part in loc[index:])
        parts.append(f"field '{rest}'")
        break
    return ", ".join(parts)


def _check_names(schema: AttributeSchema) -> str | None:
    """The first finding or attribute named twice (after normalisation), as an error message."""
    findings: dict[str, str] = {}
    for number, finding in enumerate(schema.findings, start=1):
        entry = f"finding {number} ({finding.finding})"
        for field, name in [("finding", finding.finding), *(("aliases", alias) for alias in finding.aliases)]:
            key = normalize_name(name)
            if key in findings:
                return f"{entry}, field '{field}': '{name}' names the same finding as {findings[key]}"
            findings[key] = entry
        attributes: dict[str, str] = {}
        for position, attribute in enumerate(finding.attributes, start=1):
            key = normalize_name(attribute.attribute)
            here = f"attribute {position} ({attribute.attribute})"
            if key in attributes:
                return f"{entry}, {here}, field 'attribute': the same attribute as {attributes[key]}"
            attributes[key] = here
    return None


def parse_schema(text: str, source: str) -> AttributeSchema:
    """Validate the text of a schema file.

    Args:
        text: The YAML text.
        source: The file name, for messages.

    Raises:
        SchemaError: with one line naming the entry and the field at fault.
    """
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise SchemaError(f"{source}{where}: not valid YAML ({problem})") from None
    if not isinstance(raw, dict):
        raise SchemaError(f"{source}: expected a mapping with 'version' and 'findings' at the top")
    try:
        schema = AttributeSchema.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = _location(raw, first["loc"]) or "the top level"
        raise SchemaError(f"{source}: {where}: {first['msg']}") from None
    problem = _check_names(schema)
    if problem is not None:
        raise SchemaError(f"{source}: {problem}")
    return schema


def load_schema(path: Path) -> AttributeSchema:
    """Read and validate a schema file (see `parse_schema`)."""
    return parse_schema(path.read_text(encoding="utf-8"), str(path))


def schema_fingerprint(schema: AttributeSchema) -> str:
    """A short hash of everything in the schema that changes the questions or the judge's prompts.

    Counts are left out: they describe the triplets the schema came from, not the questions.
    """
    content = schema.model_dump(
        exclude={"findings": {"__all__": {"count": True, "attributes": {"__all__": {"count"}}}}}
    )
    return hashlib.sha256(json.dumps(content, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def render_schema(schema: AttributeSchema, header: Sequence[str], footer: Sequence[str] = ()) -> str:
    """The YAML text of a schema, with comment lines before and after it.

    Every optional field is written, empty where the grouping has nothing, so the person editing the file
    sees where descriptions and aliases go.
    """
    body = {
        "version": schema.version,
        "findings": [
            {
                "finding": finding.finding,
                "count": finding.count,
                "existence_question": finding.existence_question,
                "aliases": finding.aliases,
                "description": finding.description or "",
                "attributes": [
                    {
                        "attribute": attribute.attribute,
                        "type": attribute.type,
                        "count": attribute.count,
                        "question": attribute.question,
                        "description": attribute.description or "",
                        "examples": attribute.examples,
                    }
                    for attribute in finding.attributes
                ],
            }
            for finding in schema.findings
        ],
    }
    text = yaml.safe_dump(body, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000)
    comments = [f"# {line}".rstrip() for line in header]
    trailer = [f"# {line}".rstrip() for line in footer]
    return "\n".join([*comments, text.rstrip("\n"), *trailer]) + "\n"
