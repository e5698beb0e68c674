"""Step 2, ``radiology-tasks ctfb-schema``: group the triplets and write the draft schema file a person edits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from radiology_tasks.core.errors import InputError
from radiology_tasks.ct_finebench.construct.output import OK, read_lines
from radiology_tasks.scorers.ct_finebench.construction_answers import Triplet
from radiology_tasks.scorers.ct_finebench.construction_grouping import (
    DEFAULT_MIN_COUNT,
    Group,
    Grouping,
    group_triplets,
)
from radiology_tasks.scorers.ct_finebench.construction_schema import render_schema

COMMAND = "ctfb-schema"

MAX_LISTED_BELOW = 100
"""Groups below the threshold listed in the file's closing comments (the rest are counted)."""


def read_triplets_file(path: Path) -> tuple[dict[str, list[Triplet]], list[str]]:
    """The triplets of each report in a step 1 output, and the ids of its failure lines.

    Raises:
        InputError: The file is missing, or a line's triplets are not triplets.
    """
    if not path.is_file():
        raise InputError(f"{path}: no such triplet file (write it with `radiology-tasks ctfb-triplets`)")
    reports: dict[str, list[Triplet]] = {}
    failed: list[str] = []
    for line in read_lines(path):
        report_id = str(line["id"]).strip()
        if line["construction"]["status"] != OK:
            failed.append(report_id)
            continue
        try:
            reports[report_id] = [Triplet.model_validate(item) for item in line.get("triplets") or []]
        except ValidationError as error:
            raise InputError(f"{path}, report '{report_id}': {error.errors()[0]['msg']}") from None
    return reports, failed


def _group_line(group: Group) -> str:
    name = group.finding if group.attribute is None else f"{group.finding} / {group.attribute}"
    return f"  {name}: {group.count} reports"


def schema_text(grouping: Grouping, source: str, min_count: int) -> str:
    """The schema file: editing guidance, the draft schema, and the groups below the threshold."""
    header = [
        f"CT-FineBench attribute schema drafted by `radiology-tasks ctfb-schema` from {source}:",
        f"{grouping.reports} reports, {grouping.triplets} triplets; a finding or attribute is kept when it occurs "
        f"in at least {min_count} reports (count).",
        "Edit it, then build the questions with `radiology-tasks ctfb-qa --schema <this file>`:",
        "- remove: delete attributes (or whole findings) that are clinically irrelevant;",
        "- split: replace a general attribute (such as 'feature') by specific ones, each with its own question;",
        "- merge: keep one entry of a set of synonyms, list the other names of a finding under aliases, and",
        "  delete the other entries (groups below the threshold are listed at the end, to merge by hand);",
        "- comment: say what each attribute means under description, and give typical answers under examples.",
        "type is numeric, categorical, location or other: it decides how CT-FineBench grades an answer.",
        "question is asked of every report that states the finding; existence_question of every report that",
        "states it present or absent. count is for information only.",
        "",
    ]
    below = grouping.below_threshold
    footer = ["", f"Below the threshold of {min_count} reports (not in the schema), commonest first:"]
    footer += [_group_line(group) for group in below[:MAX_LISTED_BELOW]] or ["  (none)"]
    if len(below) > MAX_LISTED_BELOW:
        footer.append(f"  ... and {len(below) - MAX_LISTED_BELOW} more")
    return render_schema(grouping.schema(), header, footer)


def schema_command(args: Any) -> int:
    """``radiology-tasks ctfb-schema``: group a triplet file and write the draft schema."""
    out = Path(args.out)
    if out.exists() and not args.force:
        raise InputError(f"{out} exists and may hold your edits; pass --force to overwrite it")
    min_count = args.min_count if args.min_count is not None else DEFAULT_MIN_COUNT
    reports, failed = read_triplets_file(Path(args.triplets))
    grouping = group_triplets(reports, min_count)
    text = schema_text(grouping, args.triplets, min_count)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    attributes = sum(len(finding.attributes) for finding in grouping.findings)
    print(
        f"{COMMAND}: {grouping.reports} reports, {grouping.triplets} triplets -> {len(grouping.findings)} findings "
        f"and {attributes} attributes in at least {min_count} reports; wrote {out}"
    )
    if failed:
        print(f"{COMMAND}: {len(failed)} reports have failure lines and no triplets: rerun ctfb-triplets to retry them")
    return 0
