"""What `import radiology_tasks` offers a Python user, and what it costs."""

from __future__ import annotations

import subprocess
import sys

import radiology_tasks
from radiology_tasks.core.errors import InputError


def test_the_error_score_raises_is_importable_from_the_package():
    from radiology_tasks import InputError as exported

    assert exported is InputError
    assert "InputError" in radiology_tasks.__all__
    assert all(getattr(radiology_tasks, name) is not None for name in radiology_tasks.__all__)


def test_importing_the_package_imports_neither_inspect_nor_the_api():
    code = (
        "import sys; import radiology_tasks; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'inspect_ai' or m.startswith('radiology_tasks.')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
