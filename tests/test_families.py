"""Family descriptors: every family declares itself once, and the shared code names (and imports) none of them."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import yaml
from inspect_ai.util import registry_info

import radiology_tasks
from radiology_tasks.core.family import families, family_of
from radiology_tasks.core.layouts import all_layouts
from radiology_tasks.lm_eval_tasks import config_dir
from radiology_tasks.templates import template_names

PACKAGE = Path(radiology_tasks.__file__).parent
SHARED = [
    PACKAGE / "leaderboard",
    PACKAGE / "agreement",
    PACKAGE / "cli.py",
    *(PACKAGE / f.name for f in families() if f.shared_host),
]


def _family_words() -> dict[str, re.Pattern[str]]:
    """Each family's name and task names, as a pattern that also matches them written with '-' or ' '."""
    words = {w for f in families() if f.name != "baselines" and not f.shared_host for w in (f.name, *f.tasks)}
    return {w: re.compile(r"\b" + re.escape(w).replace("_", "[_ -]?") + r"\b", re.IGNORECASE) for w in sorted(words)}


def _source_lines(root: Path) -> list[tuple[Path, int, str]]:
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.suffix in {".py", ".jinja", ".json"})
    return [(f, n, line) for f in files for n, line in enumerate(f.read_text().splitlines(), 1)]


def test_shared_code_names_no_family():
    # Dataset and layout names (`ct-finebench`) are data the user types, not a family the code branches on.
    data_names = [f"`{name}`" for name in all_layouts()]
    found = []
    for root in SHARED:
        for path, number, line in _source_lines(root):
            text = line
            for name in data_names:
                text = text.replace(name, "")
            hits = [word for word, pattern in _family_words().items() if pattern.search(text)]
            if hits:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {', '.join(hits)}: {line.strip()}")
    assert found == []


def test_the_word_check_finds_a_family_name():
    patterns = _family_words()
    assert patterns["ct_finebench"].search("if name == 'CT-FineBench':")
    assert patterns["vert"].search("task vert")
    assert not patterns["vert"].search("vertical-align")


def test_each_family_is_declared_once_with_its_tasks_templates_and_layouts():
    names = [f.name for f in families()]
    tasks = [t for f in families() for t in f.tasks]
    assert len(set(names)) == len(names) and len(set(tasks)) == len(tasks)
    templates = {name.split("/")[0] for name in template_names()}
    for family in families():
        assert set(family.templates) <= templates, family.name
        for name, function in family.task_functions().items():
            assert family_of(name) is family and registry_info(function).type == "task", name
        for module in family.layouts:
            assert importlib.import_module(module).LAYOUT.name in all_layouts(), module


def test_lm_eval_configs_are_the_families_and_the_group_lists_them_all():
    folder = config_dir()
    declared = [c for f in families() for c in f.lm_eval_configs]
    assert len(set(declared)) == len(declared)
    group = yaml.safe_load((folder / "radiology.yaml").read_text())
    on_disk = sorted(p.name for p in folder.glob("*.yaml") if p.name != "radiology.yaml")
    assert sorted(declared) == on_disk
    tasks = [yaml.safe_load((folder / name).read_text().replace("!function", ""))["task"] for name in declared]
    assert sorted(group["task"]) == sorted(tasks)


def test_the_registry_import_loads_no_lazy_part_of_a_family():
    # What a family's methods import when called (re-scoring, suite metrics, subcommands, lm-eval hooks) and the
    # leaderboard stay out of every `inspect` process; so do the heavy numeric libraries.
    code = "import sys, radiology_tasks._registry; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    lazy = ("rescoring", "suite", "commands", "family_commands", "lm_eval")
    packages = {family.name for family in families()}

    def lazy_part(module: str) -> bool:
        parts = module.split(".")
        return len(parts) == 3 and parts[0] == "radiology_tasks" and parts[1] in packages and parts[2] in lazy

    found = [
        m
        for m in loaded
        if m.startswith("radiology_tasks.leaderboard") or lazy_part(m) or m.split(".")[0] in ("scipy", "numpy")
    ]
    assert found == []
    assert "radiology_tasks.green_vert.family" in loaded, "the check reads the modules the registry loaded"
