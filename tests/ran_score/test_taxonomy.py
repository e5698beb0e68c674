"""The bundled taxonomy is the authors' 21 labels in their order; a bad taxonomy file is one clear line."""

from __future__ import annotations

import pytest
import yaml

from radiology_tasks.core.errors import InputError
from radiology_tasks.ran_score.taxonomy import bundled_taxonomy_path, load_taxonomy

AUTHORS_COLUMNS = [
    "Atelectasis",
    "Cardiomegaly",
    "Consolidation",
    "Edema",
    "Enlarged Cardiomediastinum",
    "Fracture",
    "Lung Lesion",
    "No Finding",
    "Pleural Effusion",
    "Pleural Other",
    "Lung Opacity",
    "Pneumonia",
    "Pneumothorax",
    "Support Devices",
    "emphysema",
    "interstitial lung disease",
    "calcification(lung and mediastinal)",
    "Trachea and bronchus",
    "cavity and cyst",
    "mediastinal other",
    "pulmonary vascular abnormal",
]


def test_the_bundled_taxonomy_has_the_authors_columns_in_order():
    taxonomy = load_taxonomy()
    assert taxonomy.columns == AUTHORS_COLUMNS
    assert [label.column for label in taxonomy.labels if not label.asked] == ["No Finding"]
    assert len(taxonomy.asked) == 20
    assert all(label.definition and label.include for label in taxonomy.asked)
    rules = " ".join(taxonomy.rules).lower()
    for topic in ("negation", "uncertainty", "resolved", "removed", "any language"):
        assert topic in rules


def test_no_finding_is_one_exactly_when_every_asked_label_is_zero():
    taxonomy = load_taxonomy()
    zeros = dict.fromkeys((label.key for label in taxonomy.asked), 0)
    assert taxonomy.complete(zeros)["no_finding"] == 1
    assert taxonomy.complete({**zeros, "fracture": 1})["no_finding"] == 0
    assert taxonomy.complete({**zeros, "fracture": None})["no_finding"] is None
    assert taxonomy.complete({**zeros, "fracture": None, "edema": 1})["no_finding"] == 0


def _entries() -> dict:
    return yaml.safe_load(bundled_taxonomy_path().read_text(encoding="utf-8"))


def _with(change) -> dict:
    data = _entries()
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["labels"][3].update(key="Edema"), "label 4 ('Edema'), field 'key': must be 1-40 lower-case"),
        (lambda d: d["labels"][2].update(key="atelectasis"), "label 3 ('Consolidation'), field 'key': 'atelectasis'"),
        (lambda d: d["labels"][4].update(column="Edema"), "label 5 ('Edema'), field 'column': 'Edema' is already used"),
        (lambda d: d["labels"][5].pop("definition"), "label 6 ('Fracture'): an asked label needs a definition"),
        (lambda d: d["labels"][6].update(derive="none_of_the_others"), "label 8 ('No Finding'), field 'derive': only"),
        (lambda d: d["labels"][0].update(colour="red"), "label 1 ('Atelectasis'), field 'colour': Extra inputs"),
        (lambda d: d["labels"][1].update(include="cardiomegaly"), "label 2 ('Cardiomegaly'), field 'include': Input"),
        (lambda d: d.pop("labels"), "field 'labels': Field required"),
    ],
)
def test_a_bad_entry_is_named_with_its_field(tmp_path, change, message):
    path = tmp_path / "taxonomy.yaml"
    path.write_text(yaml.safe_dump(_with(change)), encoding="utf-8")
    with pytest.raises(InputError) as error:
        load_taxonomy(str(path))
    assert str(error.value).startswith(f"{path}, {message}"), str(error.value)
    assert "\n" not in str(error.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_taxonomy(str(tmp_path / "missing.yaml"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("labels: [unclosed", encoding="utf-8")
    with pytest.raises(InputError, match="not valid YAML or JSON"):
        load_taxonomy(str(bad))
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="a taxonomy must be a mapping"):
        load_taxonomy(str(listed))


def test_a_smaller_taxonomy_in_json_loads(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(
        '{"name": "two", "labels": [{"column": "Effusion", "key": "effusion", "definition": "Pleural fluid."},'
        ' {"column": "Normal", "key": "normal", "derive": "none_of_the_others"}]}',
        encoding="utf-8",
    )
    taxonomy = load_taxonomy(str(path))
    assert taxonomy.columns == ["Effusion", "Normal"] and taxonomy.complete({"effusion": 0}) == {
        "effusion": 0,
        "normal": 1,
    }


def test_the_shared_bundled_taxonomy_is_ran_scores_default():
    from radiology_tasks.scorers.bundled_taxonomy import bundled_taxonomy

    assert bundled_taxonomy() == load_taxonomy()
    assert bundled_taxonomy_path().parent.name == "data"
