"""The built wheel installs one top-level package, `radiology_tasks`, with the repository's scorers/, solvers/ and
templates/ inside it (the repository keeps them at the top; `radiology_tasks/<name>` links to each)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("dist")
    # No isolation: hatchling comes with the dev extra, so the build needs no download.
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("radiology_tasks-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_installs_only_radiology_tasks(wheel: zipfile.ZipFile) -> None:
    top = {name.split("/")[0] for name in wheel.namelist()}
    assert {name for name in top if not name.endswith(".dist-info")} == {"radiology_tasks"}
    assert len(top) == 2, top


def test_the_wheel_holds_every_scorer_solver_and_template_under_radiology_tasks(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for folder in ("scorers", "solvers", "templates"):
        expected = {
            f"radiology_tasks/{path.relative_to(ROOT).as_posix()}"
            for path in (ROOT / folder).rglob("*")
            if path.is_file() and path.suffix in (".py", ".jinja", ".yaml", ".json") and "__pycache__" not in path.parts
        }
        assert expected and expected <= names, sorted(expected - names)[:5]
