"""A submission bundle is untrusted input: every path its manifest names stays inside the bundle, every field of the
manifest is type-checked, and the names it gives stay inert in every file the leaderboard writes."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.cli import main
from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard import bundle as bundle_module
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle
from radiology_tasks.leaderboard.manifest import SYSTEM_NAME_CHARS, read_bundle
from radiology_tasks.leaderboard.outputs import write_outputs
from radiology_tasks.leaderboard.verify import verify_bundle
from tests.leaderboard.memory_runs import VALUES, memory_run, sample, write_pairs

EVIL = "<img src=x onerror=alert(1)><script>alert(2)</script>"
FORMULA = '=cmd|" /C calc"!A0'


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Clean runs a.eval and b.eval, a refused run bad.eval, and elsewhere/x.eval outside any bundle; `read_run`
    gives each file's run whatever folder it is read from (so a reader that follows a path out would rank it)."""
    data = write_pairs(tmp_path)
    made = {
        "a.eval": memory_run(data),
        "b.eval": memory_run(data, [sample(f"s{i}", values={**VALUES, "vert": 0.7}) for i in range(4)]),
        "bad.eval": memory_run(data, status="error"),
        "x.eval": memory_run(data, sha256="e" * 64),
    }
    (tmp_path / "elsewhere").mkdir()
    paths = {name: tmp_path / ("elsewhere" if name == "x.eval" else "") / name for name in made}
    for name, path in paths.items():
        path.write_text(name)
        made[name] = replace(made[name], path=path, sha256=made[name].sha256[:-1] + str(len(name) % 10))

    def read(path: str | Path) -> Any:
        return made[Path(path).name]

    monkeypatch.setattr(bundle_module, "read_run", read)
    monkeypatch.setattr(board_module, "read_run", read)
    return paths


def _bundle(logs: dict[str, Path], tmp_path: Path, name: str | None = "A", log: str = "a.eval", to: str = "") -> Path:
    return write_bundle([logs[log]], tmp_path / (to or f"bundle-{log}"), SystemCard(name=name)).parent


def _edit(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _log_path(value: str) -> Callable[[dict[str, Any]], None]:
    def change(manifest: dict[str, Any]) -> None:
        manifest["runs"][0]["log"] = value

    return change


def _outside(kind: str, folder: Path, elsewhere: Path) -> str:
    """Make the bundle's run point outside it, one way; the part of the refusal that says how."""
    if kind == "absolute":
        _edit(folder, _log_path(str(elsewhere / "x.eval")))
        return "is an absolute path"
    if kind == "dot-dot":
        _edit(folder, _log_path("../elsewhere/x.eval"))
        return "leads outside the bundle"
    if kind == "symlinked file":
        (folder / "logs" / "a.eval").unlink()
        (folder / "logs" / "a.eval").symlink_to(elsewhere / "x.eval")
        return "leads outside the bundle"
    shutil_rmtree(folder / "logs")
    (folder / "logs").symlink_to(elsewhere, target_is_directory=True)
    _edit(folder, _log_path("logs/x.eval"))
    return "leads outside the bundle"


def shutil_rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path)


KINDS = ["absolute", "dot-dot", "symlinked file", "symlinked folder"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_log_outside_the_bundle_is_refused_by_every_reader(logs, tmp_path, kind):
    folder = _bundle(logs, tmp_path)
    how = _outside(kind, folder, tmp_path / "elsewhere")
    refusal = f"^{re.escape(str(folder))}: runs\\[0\\]\\.log '[^']*' {how}"
    with pytest.raises(ValueError, match=refusal):
        read_bundle(folder)
    with pytest.raises(ValueError, match=refusal):
        build_leaderboard([folder], tmp_path / "site", Settings(resamples=20))
    with pytest.raises(ValueError, match=refusal):
        verify_bundle(folder, originals=[logs["a.eval"]])
    with pytest.raises(ValueError, match="--replace replaces a submission bundle only"):
        write_bundle([logs["b.eval"]], folder, SystemCard(), replace=True)


@pytest.mark.parametrize("kind", KINDS)
def test_the_commands_refuse_it_naming_the_bundle_and_field_and_write_nothing(logs, tmp_path, kind, capsys):
    folder = _bundle(logs, tmp_path)
    _outside(kind, folder, tmp_path / "elsewhere")
    assert main(["leaderboard", str(folder), "--out", str(tmp_path / "site"), "--resamples", "20"]) == 2
    assert main(["verify", str(folder), "--logs", str(logs["a.eval"])]) == 2
    for line in capsys.readouterr().err.splitlines():
        assert line.startswith(("radiology-tasks leaderboard: ", "radiology-tasks verify: "))
        assert f"{folder}: runs[0].log " in line
    assert not (tmp_path / "site").exists()


def test_a_path_that_resolves_inside_the_bundle_is_read(logs, tmp_path):
    folder = _bundle(logs, tmp_path)
    _edit(folder, _log_path("logs/../logs/./a.eval"))
    (folder / "kept").mkdir()
    (folder / "kept" / "a.eval").symlink_to(folder / "logs" / "a.eval")
    assert read_bundle(folder).logs == (folder / "logs/../logs/./a.eval",)
    _edit(folder, _log_path("kept/a.eval"))
    leaderboard = build_leaderboard([folder], tmp_path / "site", Settings(resamples=20))
    assert [e["system"] for e in leaderboard["boards"][0]["entries"]] == ["A"]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda m: m["system"].update(name=42), "system.name", "Input should be a valid string"),
        (lambda m: m["system"].update(name=["A"]), "system.name", "Input should be a valid string"),
        (lambda m: m["system"].update(name=" \n"), "system.name", "needs a character other than white space"),
        (lambda m: m["system"].update(name="x" * 201), "system.name", f"at most {SYSTEM_NAME_CHARS} characters"),
        (lambda m: m["system"].update(paper={"url": "x"}), "system.paper", "Input should be a valid string"),
        (lambda m: m["system"].update(logo="x.png"), "system.logo", "Extra inputs are not permitted"),
        (lambda m: m.update(track="vip"), "track", "'vip' is not a track"),
        (lambda m: m.update(max_unscored=2), "max_unscored", "less than or equal to 1"),
        (lambda m: m.update(manifest_version=1), "manifest_version", "Input should be '1'"),
        (lambda m: m.update(notes="x"), "notes", "Extra inputs are not permitted"),
        (lambda m: m["runs"][0].update(sha256="A" * 64), r"runs\[0\].sha256", "String should match pattern"),
        (lambda m: m["runs"][0].update(log=""), r"runs\[0\].log", "at least 1 character"),
        (lambda m: m["runs"][0].update(n="4"), r"runs\[0\].n", "Input should be a valid integer"),
        (lambda m: m["runs"][0].update(mean="0.9"), r"runs\[0\].mean", "Input should be a valid number"),
        (lambda m: m["runs"][0].update(extra=1), r"runs\[0\].extra", "Extra inputs are not permitted"),
        (
            lambda m: m["runs"][0].update(redaction={"text": "t", "reason": "r", "source_sha256": "x", "hashed": 1}),
            r"runs\[0\].redaction.source_sha256",
            "String should match pattern",
        ),
    ],
)
def test_every_field_of_the_manifest_is_checked(logs, tmp_path, change, field, message):
    folder = _bundle(logs, tmp_path)
    _edit(folder, change)
    with pytest.raises(ValueError, match=f"^{re.escape(str(folder / 'manifest.json'))}: {field}: [^;]*{message}"):
        build_leaderboard([folder], tmp_path / "site", Settings(resamples=20))


def test_the_manifest_submit_writes_passes_the_readers_model(logs, tmp_path):
    folder = _bundle(logs, tmp_path, name=EVIL)
    bundle = read_bundle(folder)
    assert bundle.manifest.system.name == EVIL and bundle.logs == (folder / "logs" / "a.eval",)
    with pytest.raises(ValueError, match="^manifest.json: system.name: Value error, a system name needs a character"):
        write_bundle([logs["b.eval"]], tmp_path / "blank", SystemCard(name="   "))
    assert not (tmp_path / "blank").exists()


def _rendered_cells(markdown: str) -> list[list[str]]:
    """Each table row of the Markdown as GitHub renders it: the inner HTML of its cells."""
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("gfm-like").render(markdown)
    return [
        re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL) for row in re.findall(r"<tr>(.*?)</tr>", html, re.DOTALL)
    ]


def test_untrusted_names_stay_inert_in_the_markdown_and_the_csv(logs, tmp_path):
    bundles = [
        _bundle(logs, tmp_path, name=EVIL),
        _bundle(logs, tmp_path, name=FORMULA, log="b.eval"),
        _bundle(logs, tmp_path, name="pipe | `tick` [link](x.html)\nnext", log="b.eval", to="changed"),
    ]
    _edit(bundles[2], lambda m: m["runs"][0].update(sha256="f" * 64))  # not ranked: the log is not the one bundled
    leaderboard = build_leaderboard(bundles, tmp_path / "site", Settings(resamples=20))
    written = write_outputs(leaderboard, tmp_path / "site")
    markdown = written["markdown"].read_text()
    assert "<img" not in markdown and "<script" not in markdown
    rows = [cells for cells in _rendered_cells(markdown) if cells]
    escaped = "&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;"
    systems = [cells[1] for cells in rows[:2]]
    assert systems == [escaped, "=cmd|&quot; /C calc&quot;!A0"]
    (refused,) = [cells for cells in rows if cells[0].startswith("pipe")]
    assert refused[0] == "pipe | `tick` [link](x.html) next" and len(refused) == 4
    with written["csv"].open(newline="") as handle:
        csv_systems = [row["system"] for row in csv.DictReader(handle)]
    assert csv_systems == [EVIL, "'" + FORMULA]
    assert [e["system"] for e in json.loads(written["json"].read_text())["boards"][0]["entries"]] == [EVIL, FORMULA]
