"""The dataset names `-T data=NAME` accepts: the bundled files, and the registered layouts of public datasets."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

BUNDLED: dict[str, tuple[str, str]] = {
    "demo": (
        "demo_reports.jsonl",
        "Bundled synthetic report pairs (CT, chest X-ray, MRI) with planted errors and expert-style scores",
    ),
    "ran-score-demo": (
        "ran_score_demo.jsonl",
        "Bundled synthetic chest X-ray report pairs (English and Chinese) with team-written reference labels",
    ),
}
"""Bundled dataset name -> (file in `radiology_tasks/data`, description)."""


def bundled_path(filename: str) -> Path:
    """Path of a file bundled in `radiology_tasks/data`."""
    return Path(str(files("radiology_tasks") / "data" / filename))


def bundled_dataset(name: str) -> Path | None:
    """The file of the bundled dataset called `name`, or None."""
    return bundled_path(BUNDLED[name][0]) if name in BUNDLED else None


def dataset_names() -> list[tuple[str, str]]:
    """Every name `-T data=` takes, with a description: bundled sets, hub datasets, and datasets users download."""
    from radiology_tasks.core.layouts import registered_layouts

    names = [(name, description) for name, (_, description) in BUNDLED.items()]
    for layout in registered_layouts():
        where = f"hub {layout.hub_repo}" if layout.hub_repo else f"download: {layout.obtain}"
        names.append((layout.name, f"{layout.description} [{where}]"))
    return names
