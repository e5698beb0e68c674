"""``radiology-tasks ctfb-schema``: a triplet file becomes a schema file, never over a person's edits."""

from __future__ import annotations

import json
from pathlib import Path

from radiology_tasks.scorers.ct_finebench.construction_schema import load_schema
from tests.ct_finebench.construction_stub import cli


def line(report_id: str, *items: tuple[str, str, str], status: str = "ok") -> dict:
    construction = {"key": f"hash-{report_id}", "status": status}
    if status == "failed":
        return {"id": report_id, "construction": construction | {"reason": "invalid_response_format"}}
    keys = ("finding", "attribute", "value")
    return {"id": report_id, "triplets": [dict(zip(keys, item)) for item in items], "construction": construction}


LINES = [
    line("r1", ("lung nodule", "size", "8 mm"), ("lung nodule", "margin", "spiculated")),
    line("r2", ("Lung Nodules", "Size", "5 mm"), ("pleural effusion", "amount", "small")),
    line("r3", ("pulmonary nodule", "size", "4 mm")),
    line("r4", status="failed"),
]


def write_triplets(path: Path) -> Path:
    text = "".join(json.dumps(item) + "\n" for item in LINES) + '{"id": "r5", "trip'  # a cut last line
    path.write_text(text, encoding="utf-8")
    return path


def test_writes_the_frequent_groups_and_lists_the_rest(tmp_path, capsys):
    triplets = write_triplets(tmp_path / "triplets.jsonl")
    out = tmp_path / "schema.yaml"
    assert cli("ctfb-schema", triplets, "--min-count", "2", "--out", out) == 0
    # lung nodule: r1, r2 (2), with size in r1, r2 (2); margin, pleural effusion, pulmonary nodule: 1 report each.
    schema = load_schema(out)
    assert [(f.finding, f.count, [(a.attribute, a.type, a.count) for a in f.attributes]) for f in schema.findings] == [
        ("lung nodule", 2, [("size", "numeric", 2)])
    ]
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# CT-FineBench attribute schema drafted by `radiology-tasks ctfb-schema` from ")
    assert text.endswith(
        "# Below the threshold of 2 reports (not in the schema), commonest first:\n"
        "#   lung nodule / margin: 1 reports\n"
        "#   pleural effusion: 1 reports\n"
        "#   pulmonary nodule: 1 reports\n"
    )
    assert capsys.readouterr().out.splitlines() == [
        f"ctfb-schema: 3 reports, 5 triplets -> 1 findings and 1 attributes in at least 2 reports; wrote {out}",
        "ctfb-schema: 1 reports have failure lines and no triplets: rerun ctfb-triplets to retry them",
    ]


def test_an_existing_schema_is_kept_unless_forced(tmp_path, capsys):
    triplets = write_triplets(tmp_path / "triplets.jsonl")
    out = tmp_path / "schema.yaml"
    out.write_text("# my edits\n", encoding="utf-8")
    assert cli("ctfb-schema", triplets, "--out", out) == 2
    assert out.read_text(encoding="utf-8") == "# my edits\n"
    assert cli("ctfb-schema", triplets, "--out", out, "--force", "--min-count", "3") == 2  # nothing reaches 3
    assert cli("ctfb-schema", tmp_path / "none.jsonl", "--out", tmp_path / "new.yaml") == 2
    assert capsys.readouterr().err.splitlines() == [
        f"radiology-tasks ctfb-schema: {out} exists and may hold your edits; pass --force to overwrite it",
        "radiology-tasks ctfb-schema: no finding occurs in enough reports to reach the threshold; lower --min-count",
        f"radiology-tasks ctfb-schema: {tmp_path / 'none.jsonl'}: no such triplet file (write it with "
        "`radiology-tasks ctfb-triplets`)",
    ]
    assert cli("ctfb-schema", triplets, "--out", out, "--force", "--min-count", "1") == 0
    assert [f.finding for f in load_schema(out).findings] == ["lung nodule", "pleural effusion", "pulmonary nodule"]
