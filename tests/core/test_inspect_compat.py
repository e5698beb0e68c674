"""Inspect internals are used from one module only, and an Inspect upgrade that moves one is named clearly."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from radiology_tasks.core import inspect_compat

REPO = Path(__file__).resolve().parents[2]
PRIVATE = re.compile(r"\binspect_ai(?:\.\w+)*\._\w+")


@pytest.mark.parametrize(("name", "module"), sorted(inspect_compat.INTERNALS.items()))
def test_each_internal_is_where_the_compat_module_takes_it_from(name: str, module: str) -> None:
    found = getattr(importlib.import_module(module), name, None)
    assert found is not None, inspect_compat.moved_message(name)
    assert getattr(inspect_compat, name) is found


def test_no_other_module_uses_inspect_internals() -> None:
    compat = REPO / "radiology_tasks" / "core" / "inspect_compat.py"
    users = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("radiology_tasks", "scorers", "solvers")
        for path in sorted((REPO / folder).rglob("*.py"))
        if path != compat
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if PRIVATE.search(line)
    ]
    assert users == [], "use radiology_tasks/core/inspect_compat.py instead of Inspect internals"


def test_the_message_names_the_internal_its_module_and_this_file() -> None:
    message = inspect_compat.moved_message("active_generate_config")
    assert "active_generate_config in inspect_ai.model._generate_config" in message
    assert message.endswith("update radiology_tasks/core/inspect_compat.py")


def test_an_internal_inspect_no_longer_has_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(inspect_compat.INTERNALS, "gone_helper", "inspect_ai.model._model")
    monkeypatch.setitem(inspect_compat.INTERNALS, "moved_helper", "inspect_ai._no_such_module")
    with pytest.raises(ImportError, match="no gone_helper in inspect_ai.model._model: Inspect moved an internal"):
        inspect_compat.internal("gone_helper")
    with pytest.raises(ImportError, match="no moved_helper in inspect_ai._no_such_module"):
        inspect_compat.internal("moved_helper")
