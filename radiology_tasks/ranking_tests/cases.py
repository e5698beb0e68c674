"""Ranking cases: a reference, two or more candidates and the order a metric should put them in.

Two file layouts are read, both into `RankingCase`:

- the project's flat JSONL (``*.jsonl``), one case per line::

      {"id": "loc-1", "category": "location", "reference": "...", "candidates": ["best", "next", "worst"],
       "ties": [[2, 3]], "age": "71", "indication": "..."}

  ``candidates`` are in the expected order, best first; each is a string or an object ``{"text", "age",
  "indication"}`` (a candidate's own patient context overrides the case's). ``ties`` (optional) lists groups of
  1-based positions expected to score the same; each group's positions are consecutive. ``age`` and
  ``indication`` (optional) are the patient context of every candidate.
- the CRIMSON authors' RadJudge suite (``test_cases.py`` as the repository ships it, or the same list saved as
  ``*.json``): a list of categories ``{"category", "description", "tests": [...]}``, each test ``{"id",
  "ground_truth", "candidates": {"C1": {"text", "context": {"age", "indication"}}, ...}, "expected_ranking"}``
  where ``expected_ranking`` is ``"C1 > C2"`` (C1 should score higher), ``"C1 = C2"`` (the same), or a list of
  such statements that must all hold. The Python file is read as data (`ast.literal_eval`), never run.

Either way a case's expectation is a list of `Relation` s between two candidates. The flat layout states one per
neighbouring pair of candidates (``>`` or, inside a tie group, ``=``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from radiology_tasks.core.errors import InputError

FLAT_FIELDS = frozenset({"id", "category", "reference", "candidates", "ties", "age", "indication"})
CANDIDATE_FIELDS = frozenset({"text", "age", "indication"})
CONTEXT_FIELDS = frozenset({"age", "indication"})
DEMO = Path(__file__).parent / "data" / "demo.jsonl"
"""The bundled demo cases (written for this project), read when ``-T data`` is not given or is ``demo``."""

AUTHORS_VARIABLE = "RANKING_TESTS"
"""The name the authors' ``test_cases.py`` gives its list of categories."""


class Candidate(BaseModel):
    """One candidate report of a case, with the patient context the metric sees beside it."""

    model_config = ConfigDict(frozen=True)

    label: str
    text: str
    age: str | None = None
    indication: str | None = None


class Relation(BaseModel):
    """What the case expects of two of its candidates: `better` scores higher, or both the same (`tie`)."""

    model_config = ConfigDict(frozen=True)

    better: str
    worse: str
    tie: bool = False

    def __str__(self) -> str:
        return f"{self.better} {'=' if self.tie else '>'} {self.worse}"


class RankingCase(BaseModel):
    """A reference, its candidates and the relations a metric's scores should satisfy."""

    model_config = ConfigDict(frozen=True)

    id: str
    category: str
    reference: str
    candidates: list[Candidate]
    relations: list[Relation]


def data_path(data: str) -> Path:
    """The file ``-T data`` names: the bundled demo for ``demo``."""
    return DEMO if data == "demo" else Path(data)


def file_layout(path: Path) -> str:
    """The layout a ranking file is read as: ``flat`` (JSONL) or ``radjudge`` (the authors' suite)."""
    return "flat" if path.suffix == ".jsonl" else "radjudge"


def read_cases(path: str | Path) -> list[RankingCase]:
    """Read a ranking file: the flat JSONL layout, or the authors' suite as ``.py`` or ``.json``.

    Raises:
        InputError: naming the file, the row (line or test) and the field, for anything that is not a case.
    """
    file = Path(path)
    if not file.is_file():
        raise InputError(f"-T data={path}: no such file (give a .jsonl of ranking cases, or RadJudge's test_cases.py)")
    if file.suffix == ".jsonl":
        cases = _flat_file(file)
    elif file.suffix in (".py", ".json"):
        cases = _authors_file(file)
    else:
        raise InputError(f"{file}: ranking files are .jsonl (flat layout) or .py/.json (RadJudge's suite)")
    if not cases:
        raise InputError(f"{file}: no ranking case in the file")
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            raise InputError(f"{file}: case id '{case.id}' appears twice")
        seen[case.id] = case.category
    return cases


def _text(value: object, where: str, field: str, *, required: bool = True) -> str | None:
    """A non-empty string field (numbers, as ages often are, become text); None when absent and optional."""
    if value is None and not required:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}, field '{field}': expected non-empty text, got {value!r}")
    return value


def _fields(row: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(row) - allowed)
    if unknown:
        raise InputError(f"{where}: unknown field '{unknown[0]}' (known: {', '.join(sorted(allowed))})")


# The flat layout.


def _flat_file(file: Path) -> list[RankingCase]:
    cases = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file}, line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"{where}: not JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(row).__name__}")
        cases.append(flat_case(row, where))
    return cases


def flat_case(row: Mapping[str, Any], where: str) -> RankingCase:
    """One case of the flat layout; `where` names the file and line in errors."""
    _fields(row, FLAT_FIELDS, where)
    case_id = _text(row.get("id"), where, "id")
    category = _text(row.get("category"), where, "category")
    reference = _text(row.get("reference"), where, "reference")
    age = _text(row.get("age"), where, "age", required=False)
    indication = _text(row.get("indication"), where, "indication", required=False)
    items = row.get("candidates")
    if not isinstance(items, list) or len(items) < 2:
        raise InputError(f"{where}, field 'candidates': expected a list of two or more candidates, best first")
    candidates = []
    for position, item in enumerate(items, start=1):
        label = f"C{position}"
        if isinstance(item, dict):
            _fields(item, CANDIDATE_FIELDS, f"{where}, candidate {position}")
            text = item.get("text")
            own_age = _text(item.get("age"), where, f"candidates[{position}].age", required=False)
            own_indication = _text(item.get("indication"), where, f"candidates[{position}].indication", required=False)
        else:
            text, own_age, own_indication = item, None, None
        candidates.append(
            Candidate(
                label=label,
                text=str(_text(text, where, f"candidates[{position}]")),
                age=own_age or age,
                indication=own_indication or indication,
            )
        )
    tied = _tie_groups(row.get("ties"), len(candidates), where)
    relations = [
        Relation(better=a.label, worse=b.label, tie=tied.get(i) is not None and tied.get(i) == tied.get(i + 1))
        for i, (a, b) in enumerate(zip(candidates, candidates[1:], strict=False), start=1)
    ]
    return RankingCase(
        id=str(case_id), category=str(category), reference=str(reference), candidates=candidates, relations=relations
    )


def _tie_groups(value: object, count: int, where: str) -> dict[int, int]:
    """Position -> tie group number, from the ``ties`` field (absent: no ties)."""
    if value is None:
        return {}
    if not isinstance(value, list):
        raise InputError(f"{where}, field 'ties': expected a list of groups of positions, e.g. [[1, 2]]")
    group_of: dict[int, int] = {}
    for number, group in enumerate(value):
        if (
            not isinstance(group, list)
            or len(group) < 2
            or not all(isinstance(p, int) and not isinstance(p, bool) for p in group)
        ):
            raise InputError(f"{where}, field 'ties': group {group!r} is not a list of two or more positions")
        positions = sorted(group)
        if positions[0] < 1 or positions[-1] > count:
            raise InputError(f"{where}, field 'ties': group {group!r} names a position outside 1..{count}")
        if positions != list(range(positions[0], positions[0] + len(positions))):
            raise InputError(f"{where}, field 'ties': group {group!r} is not a run of neighbouring positions")
        for position in positions:
            if position in group_of:
                raise InputError(f"{where}, field 'ties': position {position} is in two groups")
            group_of[position] = number
    return group_of


# The authors' RadJudge layout.


def _authors_file(file: Path) -> list[RankingCase]:
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".json":
        try:
            categories = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(f"{file}: not JSON ({error.msg} at line {error.lineno})") from None
    else:
        categories = _python_list(file, text)
    if not isinstance(categories, list):
        raise InputError(f"{file}: expected a list of categories ({{'category', 'description', 'tests'}})")
    cases = []
    for index, category in enumerate(categories, start=1):
        where = f"{file}, category {index}"
        if not isinstance(category, dict):
            raise InputError(f"{where}: expected an object with 'category' and 'tests'")
        _fields(category, frozenset({"category", "description", "tests"}), where)
        name = str(_text(category.get("category"), where, "category"))
        tests = category.get("tests")
        if not isinstance(tests, list):
            raise InputError(f"{where} ({name}), field 'tests': expected a list of tests")
        for position, test in enumerate(tests, start=1):
            if not isinstance(test, dict):
                raise InputError(f"{where} ({name}), test {position}: expected an object")
            label = test.get("id")
            cases.append(authors_case(test, name, f"{where} ({name}), test {label or position}"))
    return cases


def _python_list(file: Path, text: str) -> Any:
    """The literal assigned to `AUTHORS_VARIABLE` in a Python file, read without running the file."""
    try:
        tree = ast.parse(text, filename=str(file))
    except SyntaxError as error:
        raise InputError(f"{file}, line {error.lineno}: not Python ({error.msg})") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == AUTHORS_VARIABLE for target in node.targets
        ):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                raise InputError(
                    f"{file}, line {node.lineno}: {AUTHORS_VARIABLE} is not a plain literal (lists, dicts, strings)"
                ) from None
    raise InputError(f"{file}: no {AUTHORS_VARIABLE} = [...] assignment (RadJudge's test_cases.py has one)")


_STATEMENT = re.compile(r"\s*(>|=)\s*")


def authors_case(test: Mapping[str, Any], category: str, where: str) -> RankingCase:
    """One test of the authors' suite; `where` names the file, category and test in errors."""
    _fields(test, frozenset({"id", "ground_truth", "candidates", "expected_ranking"}), where)
    case_id = _text(test.get("id"), where, "id")
    reference = _text(test.get("ground_truth"), where, "ground_truth")
    items = test.get("candidates")
    if not isinstance(items, dict) or len(items) < 2:
        raise InputError(f"{where}, field 'candidates': expected an object of two or more candidates (C1, C2, ...)")
    candidates = []
    for label, item in items.items():
        if not isinstance(item, dict):
            raise InputError(f"{where}, field 'candidates.{label}': expected an object with 'text'")
        _fields(item, frozenset({"text", "context"}), f"{where}, candidate {label}")
        context = item.get("context") or {}
        if not isinstance(context, dict):
            raise InputError(f"{where}, field 'candidates.{label}.context': expected an object")
        _fields(context, CONTEXT_FIELDS, f"{where}, candidate {label}, context")
        candidates.append(
            Candidate(
                label=str(label),
                text=str(_text(item.get("text"), where, f"candidates.{label}.text")),
                age=_text(context.get("age"), where, f"candidates.{label}.context.age", required=False),
                indication=_text(
                    context.get("indication"), where, f"candidates.{label}.context.indication", required=False
                ),
            )
        )
    relations = _statements(test.get("expected_ranking"), {c.label for c in candidates}, where)
    return RankingCase(
        id=str(case_id), category=category, reference=str(reference), candidates=candidates, relations=relations
    )


def _statements(value: object, labels: set[str], where: str) -> list[Relation]:
    """Relations from ``"C1 > C2"``, ``"C1 = C2"``, a chain of them (``"C1 > C2 > C3"``) or a list of these."""
    statements: Sequence[object] = value if isinstance(value, list) else [value]
    if not statements:
        raise InputError(f"{where}, field 'expected_ranking': empty list")
    relations = []
    for statement in statements:
        if not isinstance(statement, str):
            raise InputError(f"{where}, field 'expected_ranking': {statement!r} is not text such as 'C1 > C2'")
        parts = _STATEMENT.split(statement.strip())
        names, signs = parts[0::2], parts[1::2]
        if len(names) < 2 or any(name not in labels for name in names):
            raise InputError(
                f"{where}, field 'expected_ranking': {statement!r} must compare candidates "
                f"({', '.join(sorted(labels))}) with '>' or '='"
            )
        for better, sign, worse in zip(names, signs, names[1:], strict=False):
            if better == worse:
                raise InputError(f"{where}, field 'expected_ranking': {statement!r} compares {better} with itself")
            relations.append(Relation(better=better, worse=worse, tie=sign == "="))
    return relations
