"""The dataset names `-T data=NAME` accepts: the bundled files, and the registered layouts of public datasets.

The bundled ``demo`` set is shared; a family that ships a data set of its own declares it
(`radiology_tasks.core.family.Family.datasets`) and keeps the file in its own package.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from radiology_tasks.core.family import BundledData as BundledData
from radiology_tasks.core.family import families

DEMO = BundledData(
    "radiology_tasks",
    "data/demo_reports.jsonl",
    "Bundled synthetic report pairs (CT, chest X-ray, MRI) with planted errors and expert-style scores",
)
"""The shared demo set: the data every task reads when `-T data` is not given (unless its family says otherwise)."""


def bundled() -> dict[str, BundledData]:
    """Every bundled data set by the name `-T data` takes: ``demo``, then those the families declare."""
    found = {"demo": DEMO}
    for family in families():
        for name, data in family.datasets.items():
            if name in found:
                raise ValueError(f"bundled dataset {name} is declared twice (family {family.name})")
            found[name] = data
    return found


def bundled_path(filename: str) -> Path:
    """Path of a shared file bundled in `radiology_tasks/data`."""
    return Path(str(files("radiology_tasks") / "data" / filename))


def bundled_dataset(name: str) -> Path | None:
    """The file of the bundled dataset called `name`, or None."""
    data = bundled().get(name)
    return None if data is None else data.path


def dataset_names() -> list[tuple[str, str]]:
    """Every name `-T data=` takes, with a description: bundled sets, hub datasets, and datasets users download."""
    from radiology_tasks.core.layouts import registered_layouts

    names = [(name, data.description) for name, data in bundled().items()]
    for layout in registered_layouts():
        where = f"hub {layout.hub_repo}" if layout.hub_repo else f"download: {layout.obtain}"
        names.append((layout.name, f"{layout.description} [{where}]"))
    return names
