"""Loaders for the Hugging Face datasets registered in `catalog.py`: RaTE-Eval, RadEval expert, CT-FineBench.

Each loader fetches one split of a hub dataset with `datasets.load_dataset` (imported only when the
rows are first requested) and yields `(row_number, flat_row)` in the layout of users' JSONL/CSV files,
so `rows.pair_from_row` validates hub data exactly like local data. Unless `revision` is given, each
dataset is read at the commit in `PINNED_REVISIONS`, so results do not move when the authors upload
new files; `-T revision=main` follows the newest upload instead.

What is known about each hub layout, and from where (the hub itself cannot be reached from the
machine this was written on, so nothing below was checked against the live files):

RaTE-Eval (`Angelakeke/RaTE-Eval`)
    The dataset card names three tasks and declares no `configs`, so the CSV files must be named
    explicitly (otherwise `datasets` would pick up the JSON side files of every task at once). The
    tree at commit 4370268 shows `Task1_sentence_rate/` holding `rate_train.csv`, `rate_test.csv`
    and JSON report lists. A public analysis script (`correlation.py`, found by code search) reads
    `Task2_paragraph_rate/rate_test.csv` with the columns `gt_report`, `similar_report` and
    `Score` (370 rows; the scores it saw run from 0 to 4.5 in steps of 0.25). Confirmed: the test
    file and its three columns, secondhand. Inferred, not seen: `Task2_paragraph_rate/rate_train.csv`
    by analogy with Task 1. The 0-5 scale in `RATE_EVAL_SCORE_SCALE` is the project's reading of the
    paper's rating scale. The pin is that tree's commit; a page fetched at another time showed Task 1's
    `rate_train.csv` at commit 18e0299 with a different size, so a newer upload may exist.

RadEval expert set (`IAMJB/RadEvalExpertDataset`)
    The repository tree (commit b4bd9d6) holds one file, `reader_study_final_with_annotationsv3.csv`
    (about 692 kB), which `datasets` exposes as split `train`. Its header - `annotator`, `type`,
    `ground_truth`, `images_path`, `prediction1`-`prediction3`, `annotation1`-`annotation3` - is
    checked as an exact set by a public acquisition script pinned to revision b4bd9d6ee75f..., and
    the same names are used by `download_radeval_data.py` in federicabologna/m3-eval: 208 studies,
    three candidates each. `type` is the report section; it takes three values, `finding`,
    `findings` and `impression`, and is kept as metadata as it is. Most annotation cells head their
    two sections `Significant` and `Insignificant` without a colon; some add one, or decorate the
    header (`**Significant:**`, `Clinically significant errors:`). Each header is followed by
    numbered lines `N. <category label>: <count>` for seven categories - the six ReXVal/GREEN
    categories (a)-(f) in order, then 7, an inarticulate report (grammar and readability). A public
    audit of the file's grammar also counts `=` as the separator and bare `N. <count>` lines, so
    both are read too. The labels and headers accepted are in `RADEVAL_CATEGORIES` and
    `_SEVERITY_HEADER`.

CT-FineBench (`csyrf/CT-FineBench`)
    The card says the repository holds only question-answer pairs (the CT-RATE and Merlin reports
    must be obtained separately); commit c97e6f6 uploaded seven files, among them
    `ctrate_qa_test.json` (4.9 MB) at the repository root; the card declares no `configs`. The
    paper's examples show each pair as finding / attribute / question / ground-truth answer. NOT
    confirmed: the JSON keys, the key holding the report id, and how questions are grouped. So the
    loader accepts the plausible shapes and names (`CT_FINEBENCH_LAYOUT`, a `QAKeys`) and recognises
    which one the file has (`detect_qa_layout`): one object per question with a report id; one
    object per report with a list of questions; an object keyed by report id whose values are
    question lists (or report objects holding one); any of these wrapped in a single top-level
    field. Anything else fails with one line listing the keys found. The file pattern in
    `CT_FINEBENCH_DATA_FILES` is built from the one file name seen (the Merlin file's name was
    not). The pin is commit 2b06156, a card edit whose parent is c97e6f6.

CT-FineBench joins the hub questions to the user's report file (`-T reports=FILE`) by report id:

* A report in the user's file with no questions in the benchmark is an error
  (`rows.DataError` naming the file, the first such row and how many there are): the benchmark
  covers every report of the CT-RATE and Merlin test sets, so this means mismatched ids.
* Benchmark reports absent from the user's file are counted and logged as a warning, not an
  error: evaluating a subset (for example CT-RATE only) is normal.

A RadEval annotation cell that cannot be read never becomes zero counts. The loader writes
`unreadable <cell>: <reason>` into the affected count column, so `rows.pair_from_row` rejects that
row with a `DataError` naming the row and the reason, and `on_bad_rows` decides whether the load
stops or the row is skipped and counted.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.records import ERROR_CATEGORIES
from radiology_tasks.core.rows import KNOWN_COLUMNS, DataError, read_rows

if TYPE_CHECKING:
    from datasets import Dataset

logger = logging.getLogger(__name__)

Row = tuple[int, dict[str, Any]]

RATE_EVAL_REPO = "Angelakeke/RaTE-Eval"
RADEVAL_EXPERT_REPO = "IAMJB/RadEvalExpertDataset"
CT_FINEBENCH_REPO = "csyrf/CT-FineBench"

# Commits read when no revision is given; see the module docstring for where each was seen.
PINNED_REVISIONS: dict[str, str] = {
    RATE_EVAL_REPO: "43702688ab0297f8cde91611cb60dbab53fe1903",
    RADEVAL_EXPERT_REPO: "b4bd9d6ee75fcd155b6de466f1b7b7bd774408be",
    CT_FINEBENCH_REPO: "2b06156ec7f5dd51041ea0af249e57014ca3eb45",
}

RATE_EVAL_DATA_FILES: dict[str, str] = {
    "test": "Task2_paragraph_rate/rate_test.csv",
    "train": "Task2_paragraph_rate/rate_train.csv",
}
# Flat-row column -> RaTE-Eval column.
RATE_EVAL_COLUMNS: dict[str, str] = {"reference": "gt_report", "candidate": "similar_report", "expert_score": "Score"}
RATE_EVAL_SCORE_SCALE: tuple[float, float] = (0.0, 5.0)

RADEVAL_EXPERT_DATA_FILES: dict[str, str] = {"train": "reader_study_final_with_annotationsv3.csv"}
RADEVAL_REFERENCE_COLUMN = "ground_truth"
RADEVAL_CANDIDATE_SLOTS = (1, 2, 3)  # columns prediction{n} and annotation{n}
# Category number in an annotation cell -> (suffix of the flat count column, pattern its label must match).
# Numbers 1-6 are the (a)-(f) categories; 7 (grammar and readability) is kept as metadata.
RADEVAL_CATEGORIES: dict[int, tuple[str, str]] = {
    1: ("a", r"false"),
    2: ("b", r"omission.*finding|missing"),
    3: ("c", r"location|position"),
    4: ("d", r"severity"),
    5: ("e", r"mention"),
    6: ("f", r"change"),
    7: ("inarticulate", r"inarticulate|grammar|readab"),
}
_SEVERITY_HEADER = re.compile(
    r"[\W_]*(?:clinically\s+)?(significant|insignificant)(?:\s+errors?)?[\W_]*", re.IGNORECASE
)
# `N. label: count`, `N. label = count`, or `N. count` with no label; the label may itself hold a colon.
_CATEGORY_LINE = re.compile(r"\s*([1-9])\s*[.)]\s*(?:(.*)[:=])?\s*(.*?)\s*")


@dataclass(frozen=True)
class QALayout:
    """Where CT-FineBench keeps each part of a question-answer pair (None: not in the hub data).

    With `qa_list` unset every hub row is one question; with it set every hub row is one report
    and `qa_list` names the column holding that report's list of question objects, whose keys are
    the other names here. With `keyed_by_id` the hub file is one object whose keys are the report
    ids (`report_id` is then unused); each value is a question list, or a report object holding
    one under `qa_list`.
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
    """The names each part of a CT-FineBench question may have in the hub data, most likely first."""

    report_id: tuple[str, ...] = ("report_id", "volume_name", "study_id", "case_id", "image_id", "id")
    question: tuple[str, ...] = ("question",)
    answer: tuple[str, ...] = ("answer", "gt_answer", "ground_truth", "ground_truth_answer", "reference_answer")
    finding: tuple[str, ...] = ("finding", "finding_name", "disease", "abnormality")
    attribute: tuple[str, ...] = ("attribute", "attribute_name")
    attribute_type: tuple[str, ...] = ("attribute_type", "answer_type", "question_type")
    qa_list: tuple[str, ...] = ("qa", "qa_pairs", "qas", "questions", "qa_list")


CT_FINEBENCH_LAYOUT = QAKeys()
CT_FINEBENCH_DATA_FILES: dict[str, str] = {"test": "*qa_test.json", "train": "*qa_train.json"}


class HubError(InputError):
    """A Hugging Face dataset that cannot be loaded; the message is one actionable line."""


class HubDependencyError(HubError):
    """The optional `datasets` package is not installed."""


class HubUnavailableError(HubError):
    """The hub could not be reached, or it has no such dataset or revision."""


class HubLayoutError(HubError):
    """The hub data does not have the files or columns this module expects."""


@dataclass(frozen=True)
class _Source:
    """One split of one hub dataset, named the same way in every message."""

    repo_id: str
    revision: str | None
    split: str

    @property
    def label(self) -> str:
        return f"{self.repo_id} (revision {self.revision or 'latest'}, split '{self.split}')"


def _source(repo_id: str, revision: str | None, split: str) -> _Source:
    return _Source(repo_id, revision or PINNED_REVISIONS.get(repo_id), split)


def _load(source: _Source, data_files: str) -> Dataset:
    """Fetch one split, turning the ways `datasets` fails into one-line `HubError`s."""
    try:
        import datasets
        from datasets.exceptions import DatasetGenerationError, DatasetNotFoundError
    except ImportError:
        raise HubDependencyError(
            "the Hugging Face datasets need the 'datasets' package: pip install 'radiology-tasks[hf]'"
        ) from None
    try:
        return datasets.load_dataset(
            source.repo_id, revision=source.revision, data_files={source.split: data_files}, split=source.split
        )
    except ConnectionError:
        raise HubUnavailableError(
            f"could not reach the Hugging Face Hub for {source.label}: download the dataset files and pass "
            "-T data=FILE.jsonl, or set HF_DATASETS_OFFLINE=1 with the dataset already in the local cache"
        ) from None
    except DatasetNotFoundError as exc:
        raise HubUnavailableError(
            f"{source.label}: {exc} Check the repository id and -T revision, "
            "or load a local copy with -T data=FILE.jsonl"
        ) from None
    except FileNotFoundError:
        raise HubLayoutError(f"{source.label} has no data file matching '{data_files}'") from None
    except DatasetGenerationError as exc:
        cause = str(exc.__cause__ or exc).strip().splitlines() or [type(exc).__name__]
        raise HubLayoutError(f"{source.label}: '{data_files}' could not be read as one table ({cause[0]})") from None


def _require_columns(dataset: Dataset, columns: Sequence[str], source: _Source, constant: str) -> None:
    for column in columns:
        if column not in dataset.column_names:
            raise HubLayoutError(
                f"{source.label} has no column '{column}' (it has: {', '.join(dataset.column_names)}); "
                f"if the layout changed, update {constant} in radiology_tasks/core/hub.py"
            )


def _extra_columns(record: Mapping[str, Any], consumed: set[str]) -> dict[str, Any]:
    """Hub columns not mapped to a flat column, kept as metadata; names that clash get a `hub_` prefix."""
    return {
        (f"hub_{name}" if name in KNOWN_COLUMNS else name): value
        for name, value in record.items()
        if name not in consumed
    }


def _reject_reports(dataset_name: str, reports: str | None) -> None:
    if reports is not None:
        raise InputError(f"-T reports=... applies only to ct-finebench, not to {dataset_name}")


def rate_eval_rows(
    *,
    revision: str | None = None,
    reports: str | None = None,
    repo_id: str = RATE_EVAL_REPO,
    split: str = "test",
) -> Iterator[Row]:
    """RaTE-Eval paragraph-level ratings: reference, candidate and a radiologist score on a 0-5 scale.

    Args:
        revision: Hub revision; None reads the commit pinned in `PINNED_REVISIONS`.
        reports: Not used by this dataset; must be None.
        repo_id: Hub repository, or a local folder with the same files.
        split: `test` (the official test set) or `train`.

    Returns:
        Numbered flat rows; ids are `<split>-<row number>`. The hub is read on first iteration.

    Raises:
        ValueError: for `reports` or an unknown split.
        HubError: when the data cannot be fetched or lacks a column in `RATE_EVAL_COLUMNS`.
    """
    _reject_reports("rate-eval", reports)
    if split not in RATE_EVAL_DATA_FILES:
        raise InputError(f"rate-eval has the splits {', '.join(RATE_EVAL_DATA_FILES)}, not {split!r}")
    return _rate_eval_rows(_source(repo_id, revision, split))


def _rate_eval_rows(source: _Source) -> Iterator[Row]:
    dataset = _load(source, RATE_EVAL_DATA_FILES[source.split])
    _require_columns(dataset, list(RATE_EVAL_COLUMNS.values()), source, "RATE_EVAL_COLUMNS")
    consumed = set(RATE_EVAL_COLUMNS.values())
    low, high = RATE_EVAL_SCORE_SCALE
    for number, record in enumerate(dataset, start=1):
        candidate = record[RATE_EVAL_COLUMNS["candidate"]]
        yield (
            number,
            {
                **_extra_columns(record, consumed),
                "id": f"{source.split}-{number}",
                "reference": record[RATE_EVAL_COLUMNS["reference"]],
                # "" (unlike None) makes pair_from_row reject the row instead of reading it as reference-only.
                "candidate": "" if candidate is None else candidate,
                "expert_score": record[RATE_EVAL_COLUMNS["expert_score"]],
                "expert_score_min": low,
                "expert_score_max": high,
            },
        )


def radeval_expert_rows(
    *,
    revision: str | None = None,
    reports: str | None = None,
    repo_id: str = RADEVAL_EXPERT_REPO,
    split: str = "train",
) -> Iterator[Row]:
    """RadEval expert set: 208 studies x 3 candidates with radiologists' per-category error counts.

    Each hub row becomes three flat rows, one per candidate, with `significant_a`..`f` and
    `insignificant_a`..`f` read from that candidate's annotation cell; category 7 (grammar and
    readability) goes to `significant_inarticulate` / `insignificant_inarticulate`, and the raw cell
    to `expert_annotation` (both metadata).

    Args:
        revision: Hub revision; None reads the commit pinned in `PINNED_REVISIONS`.
        reports: Not used by this dataset; must be None.
        repo_id: Hub repository, or a local folder with the same file.
        split: Only `train` exists (the hub file carries no split name).

    Returns:
        Numbered flat rows (the number is the hub row, shared by its three candidates); ids are
        `<hub row, 3 digits>-c<candidate>`. The hub is read on first iteration.

    Raises:
        ValueError: for `reports` or an unknown split.
        HubError: when the data cannot be fetched or lacks an expected column.
    """
    _reject_reports("radeval-expert", reports)
    if split not in RADEVAL_EXPERT_DATA_FILES:
        raise InputError(f"radeval-expert has the splits {', '.join(RADEVAL_EXPERT_DATA_FILES)}, not {split!r}")
    return _radeval_expert_rows(_source(repo_id, revision, split))


def _radeval_expert_rows(source: _Source) -> Iterator[Row]:
    dataset = _load(source, RADEVAL_EXPERT_DATA_FILES[source.split])
    slot_columns = [(f"prediction{n}", f"annotation{n}") for n in RADEVAL_CANDIDATE_SLOTS]
    columns = [RADEVAL_REFERENCE_COLUMN, *(c for pair in slot_columns for c in pair)]
    _require_columns(dataset, columns, source, "RADEVAL_REFERENCE_COLUMN / RADEVAL_CANDIDATE_SLOTS")
    for number, record in enumerate(dataset, start=1):
        extra = _extra_columns(record, set(columns))
        for slot, (prediction, annotation) in zip(RADEVAL_CANDIDATE_SLOTS, slot_columns):
            candidate = record[prediction]
            yield (
                number,
                {
                    **extra,
                    "id": f"{number:03d}-c{slot}",
                    "reference": record[RADEVAL_REFERENCE_COLUMN],
                    "candidate": "" if candidate is None else candidate,
                    "candidate_slot": slot,
                    "expert_annotation": record[annotation],
                    **_annotation_columns(record[annotation], annotation),
                },
            )


@dataclass
class _UnreadableAnnotation(Exception):
    """Why an annotation cell cannot be read, and the count column the row is rejected on."""

    column: str
    reason: str


def _annotation_columns(cell: str | None, cell_name: str) -> dict[str, Any]:
    """Flat count columns for one annotation cell, or an `unreadable` marker in the first bad one."""
    try:
        return _parse_annotation(cell)
    except _UnreadableAnnotation as problem:
        return {problem.column: f"unreadable {cell_name}: {problem.reason}"}


def _parse_annotation(cell: str | None) -> dict[str, int]:
    """Read one RadEval annotation cell into flat count columns (`significant_a`, ...).

    Lines that are neither a severity header nor a numbered category line are ignored: each of
    categories 1-6 must still carry an explicit count under both headers, so nothing defaults to
    zero. Category 7 may be absent, but when present it must be well formed too.

    Raises:
        _UnreadableAnnotation: naming an (a)-(f) count column, so the row is rejected, and the reason.
    """
    if cell is None or not cell.strip():
        raise _UnreadableAnnotation("significant_a", "the annotation is blank")
    counts: dict[str, int] = {}
    prefix: str | None = None
    headers: set[str] = set()
    for line in cell.splitlines():
        header = _SEVERITY_HEADER.fullmatch(line)
        if header:
            prefix = header.group(1).lower()
            if prefix in headers:
                raise _UnreadableAnnotation(f"{prefix}_a", f"the '{prefix}' section appears twice")
            headers.add(prefix)
            continue
        category = _CATEGORY_LINE.fullmatch(line)
        # A numbered line with neither a separator nor a bare count is prose (for example a reader's list).
        if category is not None and (category.group(2) is not None or category.group(3).isdigit()):
            _read_category(int(category.group(1)), category.group(2), category.group(3), prefix, counts)
    if not headers:
        first = cell.strip().splitlines()[0]
        raise _UnreadableAnnotation(
            "significant_a", f"no 'Significant' or 'Insignificant' header (first line {first!r})"
        )
    for prefix in ("significant", "insignificant"):
        for number, (suffix, _) in RADEVAL_CATEGORIES.items():
            if suffix in ERROR_CATEGORIES and f"{prefix}_{suffix}" not in counts:
                raise _UnreadableAnnotation(f"{prefix}_{suffix}", f"no '{prefix}' count for category {number}")
    return counts


def _read_category(number: int, label: str | None, count: str, prefix: str | None, counts: dict[str, int]) -> None:
    """Add one category line to `counts`; `label` is None on a `N. count` line, whose number alone names it."""
    if number not in RADEVAL_CATEGORIES:
        raise _UnreadableAnnotation(f"{prefix or 'significant'}_a", f"there is no category {number}")
    suffix, pattern = RADEVAL_CATEGORIES[number]
    # Problems with category 7 are reported on an (a)-(f) column: its own column is only metadata.
    blame = f"{prefix or 'significant'}_{suffix if suffix in ERROR_CATEGORIES else 'a'}"
    if prefix is None:
        raise _UnreadableAnnotation(blame, f"category {number} comes before any severity header")
    column = f"{prefix}_{suffix}"
    if label is not None and not re.search(pattern, label, re.IGNORECASE):
        raise _UnreadableAnnotation(blame, f"the label of category {number} ({label.strip()!r}) does not match")
    if column in counts:
        raise _UnreadableAnnotation(blame, f"category {number} is given twice under '{prefix}'")
    count = count.rstrip(".;").strip()
    if not re.fullmatch(r"[0-9]+", count):
        shown = f"{count!r} is not a whole number" if count else "is missing"
        raise _UnreadableAnnotation(blame, f"the count of category {number} {shown}")
    counts[column] = int(count)


def ct_finebench_rows(
    *,
    revision: str | None = None,
    reports: str | None = None,
    repo_id: str = CT_FINEBENCH_REPO,
    split: str = "test",
    layout: QALayout | None = None,
) -> Iterator[Row]:
    """CT-FineBench questions joined by report id onto the user's reports.

    Args:
        revision: Hub revision; None reads the commit pinned in `PINNED_REVISIONS`.
        reports: The user's JSONL/CSV file in the flat layout (`id`, `reference`, optional
            `candidate`, ...), read with `rows.read_rows`.
        repo_id: Hub repository, or a local folder with the same files.
        split: `test` (the benchmark) or `train` (CT-FineData).
        layout: Where the hub keeps each part of a question (see `QALayout`); None recognises it
            from the data (`detect_qa_layout`).

    Returns:
        The user's rows, numbered as in their file, each with a `qa` list of `{question, answer,
        finding, attribute, attribute_type}` and `modality` CT unless the file gives one. The hub
        and the file are read on first iteration.

    Raises:
        ValueError: when `reports` is missing or not a file, or the split is unknown.
        DataError: when the file already has a `qa` column, or a report in it has no questions.
        HubError: when the hub data cannot be fetched, or its layout is not one `detect_qa_layout`
            recognises (or lacks a column named in `layout`).
    """
    if reports is None:
        raise InputError(
            "ct-finebench has questions only, no reports: pass your reports with -T reports=FILE "
            "(JSONL or CSV with id, reference and optionally candidate)"
        )
    path = Path(reports).expanduser()
    if not path.is_file():
        raise InputError(f"-T reports={reports}: no such file")
    if split not in CT_FINEBENCH_DATA_FILES:
        raise InputError(f"ct-finebench has the splits {', '.join(CT_FINEBENCH_DATA_FILES)}, not {split!r}")
    return _ct_finebench_rows(_source(repo_id, revision, split), path, layout)


def _ct_finebench_rows(source: _Source, path: Path, layout: QALayout | None) -> Iterator[Row]:
    questions = _questions_by_report(source, layout)
    user_rows = list(read_rows(path))
    unmatched = []
    for number, row in user_rows:
        if row.get("qa") is not None:
            raise DataError(str(path), number, "qa", "the questions come from ct-finebench; remove this column")
        report_id = _report_id(row.get("id"))
        if report_id is not None and report_id not in questions:
            unmatched.append((number, report_id))
    if unmatched:
        number, report_id = unmatched[0]
        raise DataError(
            str(path),
            number,
            "id",
            f"no ct-finebench questions for report id '{report_id}' ({len(unmatched)} of {len(user_rows)} "
            f"reports have none); ids must match the benchmark's report ids (split '{source.split}')",
        )
    used = {_report_id(row.get("id")) for _, row in user_rows}
    unused = [report_id for report_id in questions if report_id not in used]
    if unused:
        logger.warning(
            "ct-finebench: %d of %d benchmark reports (%d questions) have no report in %s and are not evaluated",
            len(unused),
            len(questions),
            sum(len(questions[r]) for r in unused),
            path,
        )
    for number, row in user_rows:
        report_id = _report_id(row.get("id"))
        # Rows without an id pass through untouched so pair_from_row reports them under on_bad_rows.
        qa = {} if report_id is None else {"qa": questions[report_id]}
        yield number, {**row, "modality": row.get("modality") or "CT", **qa}


def _report_id(value: Any) -> str | None:
    if value is None or not str(value).strip():
        return None
    return str(value).strip()


def _first(names: Sequence[str], keys: Collection[str]) -> str | None:
    return next((name for name in names if name in keys), None)


def _question_dicts(value: Any) -> list[Mapping[str, Any]] | None:
    """`value` when it is a non-empty list of objects (a list of questions or reports), else None."""
    if isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
        return value
    return None


def _shown(keys: Collection[str]) -> str:
    listed = sorted(keys)
    return ", ".join(listed[:12]) + (f" and {len(listed) - 12} more" if len(listed) > 12 else "")


def _item_layout(item_keys: Collection[str], source: _Source, where: str, keys: QAKeys, **shape: Any) -> QALayout:
    """The layout of question objects with `item_keys`; a required part missing is a `HubLayoutError`."""
    found = {part: _first(getattr(keys, part), item_keys) for part in ("question", "answer", "finding", "attribute")}
    for part, name in found.items():
        if name is None:
            raise HubLayoutError(
                f"{source.label} has no column '{part}' ({where} has: {_shown(item_keys)}); CT-FineBench's layout "
                "is not confirmed: if it differs, update CT_FINEBENCH_LAYOUT in radiology_tasks/core/hub.py"
            )
    return QALayout(**found, attribute_type=_first(keys.attribute_type, item_keys), **shape)


def detect_qa_layout(records: Sequence[Mapping[str, Any]], source: _Source, keys: QAKeys) -> QALayout:
    """Recognise which of the accepted shapes (see the module docstring) the hub records have.

    Args:
        records: The hub file's records (rows of the loaded table), at least one.
        source: The split being read, for messages.
        keys: The accepted names of each part.

    Raises:
        HubLayoutError: one line naming the keys found, when no accepted shape fits.
    """
    first = records[0]
    report_id = _first(keys.report_id, first)
    qa_list = _first(keys.qa_list, first)
    if report_id is not None and qa_list is not None and _question_dicts(first[qa_list]) is not None:
        inner = first[qa_list][0]
        return _item_layout(
            inner, source, f"'{qa_list}' of the first report", keys, report_id=report_id, qa_list=qa_list
        )
    if report_id is not None and _first(keys.question, first) is not None:
        return _item_layout(first, source, "the first row", keys, report_id=report_id)
    values = list(first.values())
    if len(records) == 1 and values and all(_question_dicts(v) is not None or isinstance(v, Mapping) for v in values):
        value = values[0]
        if isinstance(value, Mapping):
            nested = _first(keys.qa_list, value)
            if nested is not None and _question_dicts(value[nested]) is not None:
                inner = value[nested][0]
                where = f"'{nested}' of the first report"
                return _item_layout(inner, source, where, keys, qa_list=nested, keyed_by_id=True)
        elif _first(keys.question, value[0]) is not None:
            return _item_layout(value[0], source, "the first question", keys, keyed_by_id=True)
    raise HubLayoutError(
        f"{source.label}: not a CT-FineBench layout this loader knows (keys found: {_shown(first)}); expected one "
        "question per row with a report id, one report per row with a list of questions, or an object keyed by "
        "report id; update CT_FINEBENCH_LAYOUT in radiology_tasks/core/hub.py"
    )


def _unwrapped(records: Sequence[Mapping[str, Any]], keys: QAKeys) -> Sequence[Mapping[str, Any]]:
    """The records inside a single top-level field (``{"data": [...]}``), or `records` themselves.

    A single field holding objects that carry report ids is a wrapper; one holding bare questions
    is one report keyed by its id, and stays as it is.
    """
    if len(records) == 1 and len(records[0]) == 1:
        inner = _question_dicts(next(iter(records[0].values())))
        if inner is not None and _first(keys.report_id, inner[0]) is not None:
            return inner
    return records


def _report_groups(
    records: Sequence[Mapping[str, Any]], layout: QALayout, source: _Source
) -> Iterator[tuple[str, Any]]:
    """``(report id, that report's question objects)`` for every report in the records, in hub order."""
    if layout.keyed_by_id:
        for report_id, value in records[0].items():
            yield report_id, value[layout.qa_list] if layout.qa_list and isinstance(value, Mapping) else value
        return
    for number, record in enumerate(records, start=1):
        report_id = _report_id(record.get(layout.report_id))
        if report_id is None:
            raise HubLayoutError(f"{source.label}, row {number}: no report id in column '{layout.report_id}'")
        yield report_id, record[layout.qa_list] if layout.qa_list else [record]


def _questions_by_report(source: _Source, layout: QALayout | None) -> dict[str, list[dict[str, Any]]]:
    """The hub's questions grouped by report id, in hub order."""
    # A loaded table is indexable and iterable like a list: rows are read lazily, not all at once.
    records = _unwrapped(_load(source, CT_FINEBENCH_DATA_FILES[source.split]), CT_FINEBENCH_LAYOUT)
    if len(records) == 0:
        raise HubLayoutError(f"{source.label}: the file holds no questions")
    layout = layout or detect_qa_layout(records, source, CT_FINEBENCH_LAYOUT)
    item_keys = [
        k for k in (layout.question, layout.answer, layout.finding, layout.attribute, layout.attribute_type) if k
    ]
    grouped: dict[str, list[dict[str, Any]]] = {}
    for report_id, items in _report_groups(records, layout, source):
        for item in items or []:
            missing = [key for key in item_keys if key not in item]
            if missing:
                raise HubLayoutError(
                    f"{source.label}, report '{report_id}': a question has no '{missing[0]}' (it has: "
                    f"{_shown(item)}); update CT_FINEBENCH_LAYOUT in radiology_tasks/core/hub.py"
                )
            grouped.setdefault(report_id, []).append(_qa_item(item, layout))
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
