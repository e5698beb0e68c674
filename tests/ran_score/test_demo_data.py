"""The bundled Ran Score demo set is what radiology_tasks/ran_score/data/README.md says it is."""

from __future__ import annotations

import json
from collections import Counter

from radiology_tasks.core.catalog import bundled_dataset
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ran_score.family import FAMILY
from radiology_tasks.ran_score.label_files import gold_from_metadata
from tests.ran_score.helpers import COLUMNS, TAXONOMY

DEMO = FAMILY.datasets["ran-score-demo"].path
ROWS = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]


def test_registered_and_loadable():
    assert DEMO.is_file() and DEMO.parent.parent.name == "ran_score", "the file is in the family's own folder"
    assert bundled_dataset("ran-score-demo") == DEMO and FAMILY.default_data == "ran-score-demo"
    pairs = load_pairs("ran-score-demo").pairs
    assert [p.id for p in pairs] == [row["id"] for row in ROWS]
    assert Counter(p.language for p in pairs) == {"en": 6, "zh": 4}
    assert all(p.modality == "XR" and p.anatomy == "chest" and p.metadata["synthetic"] is True for p in pairs)


def test_gold_labels_follow_the_taxonomy():
    for row in ROWS:
        gold = gold_from_metadata(row, TAXONOMY, source=row["id"])
        assert gold is not None and list(row["gold_labels"]) == COLUMNS
        asked = [gold[label.key] for label in TAXONOMY.asked]
        assert gold["no_finding"] == int(not any(asked)), row["id"]
    positive = {column for row in ROWS for column, value in row["gold_labels"].items() if value}
    assert len(positive - {"No Finding"}) == 14
    assert sum(row["gold_labels"]["No Finding"] for row in ROWS) == 2


def test_chinese_rows_are_chinese():
    for row in ROWS:
        has_cjk = any("\u4e00" <= char <= "\u9fff" for char in row["reference"] + row["candidate"])
        assert has_cjk == (row["language"] == "zh"), row["id"]
