"""CT-FineBench's question files (`csyrf/CT-FineBench`), joined by report id onto the user's reports.

The benchmark holds questions only: the CT-RATE and Merlin reports must be obtained separately, and the user's
report file (`-T reports=FILE`, flat layout) is joined with the questions by report id. Report ids match with
or without the volume file's extension (`valid_1_a_1.nii.gz` and `valid_1_a_1` are the same report).

Where each fact was confirmed is in the README's "Real datasets" section. The question file's exact keys were
not all seen, so the reader accepts the plausible shapes and names (`QUESTION_KEYS`, compared without regard to
case, so `Question` and `Volume_name` are read like `question` and `volume_name`) and recognises which shape the
file has (`detect_qa_layout`): one object per question with a report id; one object per report with a list of
questions; an object keyed by report id whose values are question lists (or report objects holding one); any
of these wrapped in a single top-level field. Anything else fails with one line listing the keys found.

* A report in the user's file with no questions in the benchmark is an error (naming the file, the first such
  row and how many there are): the benchmark covers every report of its test sets, so this means mismatched ids.
* Benchmark reports absent from the user's file are counted and logged as a warning, not an error: evaluating a
  subset (for example CT-RATE only) is normal.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.rows import read_rows
from radiology_tasks.core.tables import DataError, json_document

logger = logging.getLogger(__name__)

_VOLUME_SUFFIXES = (".nii.gz", ".nii", ".npz", ".mha")


class QALayoutError(InputError):
    """The question file does not have a shape or keys this reader knows; the message is one line."""


@dataclass(frozen=True)
class QALayout:
    """Where the question file keeps each part of a question-answer pair (None: not in the file).

    With `qa_list` unset every record is one question; with it set every record is one report and `qa_list`
    names the key holding that report's list of question objects, whose keys are the other names here. With
    `keyed_by_id` the file is one object whose keys are the report ids (`report_id` is then unused); each value
    is a question list, or a report object holding one under `qa_list`.
    """

    report_id: str = "report_id"
    question: str = "question"
    answer: str = "answer"
    finding: str | None = "finding"
    attribute: str | None = "attribute"
    attribute_type: str | None = None
    qa_list: str | None = None
    keyed_by_id: bool = False


@dataclass(frozen=True)
class QAKeys:
    """The names each part of a question may have in the file, most likely first (compared in lower case)."""

    report_id: tuple[str, ...] = ("report_id", "volume_name", "volumename", "study_id", "case_id", "image_id", "id")
    question: tuple[str, ...] = ("question",)
    answer: tuple[str, ...] = ("answer", "gt_answer", "ground_truth", "ground_truth_answer", "reference_answer")
    finding: tuple[str, ...] = ("finding", "finding_name", "disease", "abnormality")
    attribute: tuple[str, ...] = ("attribute", "attribute_name")
    attribute_type: tuple[str, ...] = ("attribute_type", "answer_type", "question_type")
    qa_list: tuple[str, ...] = ("qa", "qa_pairs", "qas", "questions", "qa_list")


QUESTION_KEYS = QAKeys()


def report_key(value: Any) -> str | None:
    """A report id as joined: trimmed, without a volume file's extension; None for a missing id."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    for suffix in _VOLUME_SUFFIXES:
        if text.lower().endswith(suffix):
            return text[: -len(suffix)]
    return text


def _first(names: Sequence[str], keys: Collection[str]) -> str | None:
    """The first of `names` among `keys`, compared in lower case; the key as the file spells it."""
    lowered = {str(key).lower(): key for key in keys}
    return next((lowered[name] for name in names if name in lowered), None)


def _question_dicts(value: Any) -> list[Mapping[str, Any]] | None:
    """`value` when it is a non-empty list of objects (a list of questions or reports), else None."""
    if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
        return value
    return None


def _object_list(value: Any) -> bool:
    """Whether `value` is a list of objects, possibly empty (a report without questions)."""
    return isinstance(value, list) and all(isinstance(item, Mapping) for item in value)


def _shown(keys: Collection[str]) -> str:
    if not keys:
        return "none"
    listed = sorted(keys)
    return ", ".join(listed[:12]) + (f" and {len(listed) - 12} more" if len(listed) > 12 else "")


def _item_layout(item_keys: Collection[str], label: str, where: str, keys: QAKeys, **shape: Any) -> QALayout:
    """The layout of question objects with `item_keys`; a required part missing is a `QALayoutError`."""
    found = {part: _first(getattr(keys, part), item_keys) for part in ("question", "answer", "finding", "attribute")}
    for part, name in found.items():
        if name is None:
            raise QALayoutError(
                f"{label} has no key '{part}' ({where} has: {_shown(item_keys)}); CT-FineBench's keys are not all "
                "confirmed: if they differ, update QUESTION_KEYS in radiology_tasks/ct_finebench/layout.py"
            )
    return QALayout(
        question=str(found["question"]),
        answer=str(found["answer"]),
        finding=found["finding"],
        attribute=found["attribute"],
        attribute_type=_first(keys.attribute_type, item_keys),
        **shape,
    )


def detect_qa_layout(records: Sequence[Mapping[str, Any]], label: str, keys: QAKeys) -> QALayout:
    """Recognise which of the accepted shapes (see the module docstring) the file's records have.

    Args:
        records: The file's records (a JSON list, or the one top-level object), at least one.
        label: The file, for messages.
        keys: The accepted names of each part.

    Raises:
        QALayoutError: one line naming the keys found, when no accepted shape fits.
    """
    first = records[0]
    report_id = _first(keys.report_id, first)
    qa_list = _first(keys.qa_list, first)
    if report_id is not None and qa_list is not None:
        # The first report that has questions shows their keys (a report may have none).
        listed = next((r[qa_list] for r in records if _question_dicts(r.get(qa_list)) is not None), None)
        if listed is not None:
            where = f"'{qa_list}' of the first report with questions"
            return _item_layout(listed[0], label, where, keys, report_id=report_id, qa_list=qa_list)
    if report_id is not None and _first(keys.question, first) is not None:
        return _item_layout(first, label, "the first row", keys, report_id=report_id)
    values = list(first.values())
    if len(records) == 1 and values and all(_object_list(v) or isinstance(v, Mapping) for v in values):
        reports = [v for v in values if isinstance(v, Mapping)]
        nested = _first(keys.qa_list, reports[0]) if reports else None
        listed = next((r[nested] for r in reports if _question_dicts(r.get(nested)) is not None), None)
        if nested is not None and listed is not None:
            where = f"'{nested}' of the first report with questions"
            return _item_layout(listed[0], label, where, keys, qa_list=nested, keyed_by_id=True)
        question = next((v[0] for v in values if _question_dicts(v) is not None), None)
        if question is not None and _first(keys.question, question) is not None:
            return _item_layout(question, label, "the first question", keys, keyed_by_id=True)
    raise QALayoutError(
        f"{label}: not a CT-FineBench layout this reader knows (keys found: {_shown(first)}); expected one question "
        "per row with a report id, one report per row with a list of questions, or an object keyed by report id; "
        "update QUESTION_KEYS in radiology_tasks/ct_finebench/layout.py"
    )


def _unwrapped(records: Sequence[Mapping[str, Any]], keys: QAKeys) -> Sequence[Mapping[str, Any]]:
    """The records inside a single top-level field (``{"data": [...]}``), or `records` themselves.

    A single field holding objects that carry report ids is a wrapper; one holding bare questions is one report
    keyed by its id, and stays as it is.
    """
    if len(records) == 1 and len(records[0]) == 1:
        inner = _question_dicts(next(iter(records[0].values())))
        if inner is not None and _first(keys.report_id, inner[0]) is not None:
            return inner
    return records


def _report_groups(records: Sequence[Mapping[str, Any]], layout: QALayout, label: str) -> Iterator[tuple[str, Any]]:
    """``(report id, that report's question objects)`` for every report in the records, in file order."""

    def listed(value: Any, report_id: str) -> Any:
        if not layout.qa_list:
            return value
        if not isinstance(value, Mapping) or layout.qa_list not in value:
            raise QALayoutError(f"{label}, report '{report_id}': no '{layout.qa_list}' list of questions")
        return value[layout.qa_list]

    if layout.keyed_by_id:
        for report_id, value in records[0].items():
            yield report_id, listed(value, report_id) if isinstance(value, Mapping) else value
        return
    for number, record in enumerate(records, start=1):
        key = report_key(record.get(layout.report_id))
        if key is None:
            raise QALayoutError(f"{label}, row {number}: no report id in '{layout.report_id}'")
        yield key, listed(record, key) if layout.qa_list else [record]


def _records(path: Path) -> list[Mapping[str, Any]]:
    document = json_document(path)
    records = document if isinstance(document, list) else [document]
    if not records or not all(isinstance(record, Mapping) for record in records):
        raise QALayoutError(f"{path}: expected JSON objects holding questions")
    return list(_unwrapped(records, QUESTION_KEYS))


def questions_by_report(paths: Sequence[Path], layout: QALayout | None = None) -> dict[str, list[dict[str, Any]]]:
    """The questions of one or more question files, grouped by report id (`report_key`), in file order.

    Args:
        paths: The question files (CT-RATE's and Merlin's, for example).
        layout: Where the files keep each part of a question; None recognises it from each file.

    Raises:
        QALayoutError: for a shape or keys the reader does not know, or a question lacking a part.
    """
    grouped: dict[str, list[dict[str, Any]]] = {}
    for path in paths:
        records = _records(path)
        file_layout = layout or detect_qa_layout(records, str(path), QUESTION_KEYS)
        item_keys = [
            k
            for k in (
                file_layout.question,
                file_layout.answer,
                file_layout.finding,
                file_layout.attribute,
                file_layout.attribute_type,
            )
            if k
        ]
        for report_id, items in _report_groups(records, file_layout, str(path)):
            if items is not None and not _object_list(items):
                raise QALayoutError(f"{path}, report '{report_id}': the questions are not a list of objects")
            for item in items or []:
                missing = [key for key in item_keys if key not in item]
                if missing:
                    raise QALayoutError(
                        f"{path}, report '{report_id}': a question has no '{missing[0]}' (it has: {_shown(item)}); "
                        "update QUESTION_KEYS in radiology_tasks/ct_finebench/layout.py"
                    )
                grouped.setdefault(str(report_key(report_id)), []).append(_qa_item(item, file_layout))
    if not grouped:
        raise QALayoutError(f"{', '.join(map(str, paths))}: the files hold no questions")
    return grouped


def _qa_item(item: Mapping[str, Any], layout: QALayout) -> dict[str, Any]:
    def text(key: str | None) -> str | None:
        value = None if key is None else item[key]
        return value if value is None or isinstance(value, str) else str(value)

    attribute_type = text(layout.attribute_type)
    return {
        "question": text(layout.question),
        "answer": text(layout.answer),
        "finding": text(layout.finding),
        "attribute": text(layout.attribute),
        "attribute_type": None if attribute_type is None else attribute_type.strip().lower(),
    }


def ct_finebench_rows(source: LayoutInput) -> Iterator[Row]:
    """The user's report rows (`-T reports`), numbered as in their file, each with its `qa` list and `modality` CT.

    Raises:
        InputError: when no report file is given or it does not exist.
        DataError: when the report file already has a `qa` column, or a report in it has no questions.
    """
    reports = source.options.reports_file
    if reports is None:
        raise InputError(
            "ct-finebench has questions only, no reports: pass your reports with -T reports=FILE "
            "(JSONL or CSV with id, reference and optionally candidate)"
        )
    if not reports.is_file():
        raise InputError(f"-T reports={reports}: no such file")
    questions = questions_by_report(source.files["questions"])
    return _joined(questions, reports)


def _joined(questions: dict[str, list[dict[str, Any]]], path: Path) -> Iterator[Row]:
    user_rows = list(read_rows(path))
    unmatched = []
    for number, row in user_rows:
        if row.get("qa") is not None:
            raise DataError(str(path), number, "qa", "the questions come from ct-finebench; remove this column")
        key = report_key(row.get("id"))
        if key is not None and key not in questions:
            unmatched.append((number, key))
    if unmatched:
        number, key = unmatched[0]
        raise DataError(
            str(path),
            number,
            "id",
            f"no ct-finebench questions for report id '{key}' ({len(unmatched)} of {len(user_rows)} reports have "
            "none); ids must match the benchmark's report ids (with or without the volume's .nii.gz)",
        )
    used = {report_key(row.get("id")) for _, row in user_rows}
    unused = [key for key in questions if key not in used]
    if unused:
        logger.warning(
            "ct-finebench: %d of %d benchmark reports (%d questions) have no report in %s and are not evaluated",
            len(unused),
            len(questions),
            sum(len(questions[key]) for key in unused),
            path,
        )
    for number, row in user_rows:
        key = report_key(row.get("id"))
        # Rows without an id pass through untouched so pair_from_row reports them under on_bad_rows.
        qa = {} if key is None else {"qa": questions[key]}
        yield number, {**row, "modality": row.get("modality") or "CT", **qa}


LAYOUT = Layout(
    name="ct-finebench",
    description="CT-FineBench questions (csyrf/CT-FineBench test set), joined by report id with your -T reports",
    files=(DataFile("questions", "*qa_test.json", many=True),),
    read=ct_finebench_rows,
    hub_repo="csyrf/CT-FineBench",
    hub_revision="2b06156ec7f5dd51041ea0af249e57014ca3eb45",
    takes_reports=True,
    credentialed=True,  # the reports joined to the questions are CT-RATE's (gated) or Merlin's
)
