"""Task configs for EleutherAI's lm-evaluation-harness that score with this package's own code.

The YAML files in `configs/` are found with ``lm_eval --include_path "$(radiology-tasks lm-eval-path)"``;
their ``!function`` hooks live in the modules beside this one and call the same templates, answer readers
and grading rules as the Inspect tasks. Nothing here imports `lm_eval`: the harness imports us.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def config_dir() -> Path:
    """The directory of the YAML task configs (pass it to ``lm_eval --include_path``)."""
    return Path(str(files(__name__) / "configs"))
