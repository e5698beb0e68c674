"""ReXrank prediction files as a generator's authors hold them: the context read into fields, the images found
beside the file (or under `-T image_root`) with their views and key image, and nothing lost without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radiology_tasks.core.data_options import DataOptions
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import LayoutInput
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.rexrank import read_context, rexrank_candidates, rexrank_rows, study_images
from radiology_tasks.core.tables import DataError
from tests.real_layouts import rexrank_file, rexrank_images

# Each shape as the real test sets write it (ReXrank's data/ folder: MIMIC-CXR, CheXpert Plus, IU X-ray), and the
# example prediction file's `<context>` tags.
CONTEXTS = [
    (
        "Age:50-60.Gender:M.Indication: ___-year-old male with confusion.  Evaluate for acute process.",
        ("50-60", "M", "___-year-old male with confusion.  Evaluate for acute process.", None),
    ),
    (
        "Age:50-60.Gender:M.Indication: Evaluate for pneumonia.Comparison: Portable AP chest radiograph from ___.",
        ("50-60", "M", "Evaluate for pneumonia.", "Portable AP chest radiograph from ___."),
    ),
    ("Age:60-70.Gender:F.Comparison: ___, chest x-ray.", ("60-70", "F", None, "___, chest x-ray.")),
    ("Age:40-50.Gender:M.", ("40-50", "M", None, None)),
    ("Comparison: Radiograph of earlier the same date.", (None, None, None, "Radiograph of earlier the same date.")),
    ("Indication: Worsening pneumothorax.", (None, None, "Worsening pneumothorax.", None)),
    ("", (None, None, None, None)),
    ("Age:77.0.Gender:F.Indication:nanComparison: None.", ("77", "F", None, "None.")),
    (
        "Age:19.0.Gender:M.Indication: Hepatic failure, line placement.\nComparison: None.",
        ("19", "M", "Hepatic failure, line placement.", "None."),
    ),
    ("Age:nan.Gender:U.Indication: Assess lines.Comparison: None.", (None, None, "Assess lines.", "None.")),
    ("Indication: Chest pain, dyspnea Comparison: None.", (None, None, "Chest pain, dyspnea", "None.")),
    (" Comparison: Chest 2 views. XXXX.", (None, None, None, "Chest 2 views. XXXX.")),
    ("<context>Age:60-70.Gender:F.Indication: Worse dyspnoea.</context>", ("60-70", "F", "Worse dyspnoea.", None)),
    ("Shortness of breath.", (None, None, "Shortness of breath.", None)),
    ("Shortness of breath. Indication: Query effusion.", (None, None, "Shortness of breath. Query effusion.", None)),
    # Age and gender open the string: a label word later on belongs to the part it is in.
    ("Indication: Fall.Comparison: Age: 3 years ago.", (None, None, "Fall.", "Age: 3 years ago.")),
    ("Comparison: Gender: not stated.", (None, None, None, "Gender: not stated.")),
    ("Indication: 7.0", (None, None, "7.0", None)),
]


@pytest.mark.parametrize(("context", "expected"), CONTEXTS)
def test_the_context_is_read_into_its_parts_as_written(context: str, expected: tuple) -> None:
    fields = read_context(context)
    assert (fields["age"], fields["sex"], fields["indication"], fields["comparison"]) == expected


def test_a_context_that_is_not_text_has_no_parts() -> None:
    assert read_context(float("nan")) == dict.fromkeys(("age", "sex", "indication", "comparison"))


def test_a_label_inside_a_part_stays_in_that_part() -> None:
    # Only the first Indication after the Age and Gender parts starts a part; the words of a part are kept whole.
    fields = read_context("Indication: Comparison with outside films requested.Comparison: None.")
    assert (fields["indication"], fields["comparison"]) == ("Comparison with outside films requested.", "None.")


def test_views_follow_the_images_with_chexpert_plus_projection_beside_them() -> None:
    chexpert = {
        "image_path": ["valid/p1/study1/view1_frontal.png", "valid/p1/study1/view2_lateral.png"],
        "frontal_lateral": ["Frontal", "Lateral"],
        "ap_pa": ["PA", float("nan")],
    }
    assert study_images(chexpert) == (
        ["valid/p1/study1/view1_frontal.png", "valid/p1/study1/view2_lateral.png"],
        ["Frontal, PA", "Lateral"],
    )
    mimic = {"image_path": ["/p10/s1/a.jpg", "/p10/s1/b.jpg"], "frontal_lateral": ["lateral", float("nan")]}
    assert study_images(mimic) == (["p10/s1/a.jpg", "p10/s1/b.jpg"], ["lateral", None])
    # Some IU X-ray studies list three views for two images: no view can be told to belong to an image.
    iu = {"image_path": ["CXR1/0.png", "CXR1/1.png"], "frontal_lateral": ["Frontal", "Lateral", "Frontal"]}
    assert study_images(iu) == (["CXR1/0.png", "CXR1/1.png"], None)


def test_a_study_reads_as_a_chest_x_ray_with_its_context_views_and_key_image(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    first, second = load_pairs(str(path)).pairs
    study = tmp_path / "p10/p10046166/s50051329"
    assert (first.modality, first.anatomy, first.section) == ("XR", "chest", "findings")
    assert (first.age, first.sex, first.indication, first.comparison) == (
        "50-60",
        "M",
        "___-year-old male with cough.",
        "None.",
    )
    # Resolved against the data file's folder (no -T image_root), the lateral first as the file lists it.
    assert first.images == [str(study / "lateral.jpg"), str(study / "frontal.jpg")]
    assert (first.views, first.key_image) == (["lateral", "antero-posterior"], str(study / "frontal.jpg"))
    assert (second.indication, second.comparison) == (None, "Chest radiograph of earlier the same date.")
    assert first.metadata["context"].startswith("Age:50-60.")  # the string as written stays with the study
    assert (first.candidate, second.candidate) == (
        "Lungs are clear. No effusion.",
        "ET tube in standard position. Mild congestion.",
    )


def test_the_track_is_the_section_asked_for(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    pairs = load_pairs(str(path), track="findings_impression").pairs
    assert {pair.section for pair in pairs} == {"findings_impression"}
    assert [pair.reference for pair in pairs] == [
        "Findings: The lungs are clear.\nNo pleural effusion or pneumothorax. Impression: No acute cardiopulmonary "
        "process.",
        "Findings: Endotracheal tube 4 cm above the carina.\nMild vascular congestion. Impression: None",
        "Findings: None Impression: Right upper lobe pneumonia.",
    ]


def test_image_root_replaces_the_data_files_folder(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    root = tmp_path / "MIMIC-CXR-JPG" / "files"
    first = load_pairs(str(path), image_root=str(root)).pairs[0]
    assert first.images[0] == str(root / "p10/p10046166/s50051329/lateral.jpg")


def test_chexpert_plus_keeps_its_own_age_and_sex_beside_the_contexts(tmp_path: Path) -> None:
    path = tmp_path / "ReXRank_CheXpertPlus.json"
    study = {
        "image_path": ["valid/patient1/study1/view1_frontal.png"],
        "report": "Findings: None. Impression: No change.",
        "context": "Age:77.0.Gender:F.Indication:nanComparison: None.",
        "section_findings": float("nan"),
        "section_impression": "No change.",
        "frontal_lateral": ["Frontal"],
        "ap_pa": ["AP"],
        "age": 77.0,
        "sex": "Female",
        "key_image_path": "valid/patient1/study1/view1_frontal.png",
        "model_prediction": "Stable.",
    }
    path.write_text(json.dumps({"patient1_study1": study}), encoding="utf-8")
    (pair,) = load_pairs(str(path), track="findings_impression").pairs
    assert (pair.age, pair.sex, pair.indication, pair.comparison, pair.views) == (
        "77",
        "F",
        None,
        "None.",
        ["Frontal, AP"],
    )
    assert (pair.metadata["rexrank_age"], pair.metadata["rexrank_sex"]) == (77.0, "Female")


def test_views_that_do_not_match_the_images_are_named_in_the_log(tmp_path: Path) -> None:
    path = tmp_path / "ReXRank_IUXray_test.json"
    study = {
        "key_image_path": "CXR1633_IM-0414/0.png",
        "image_path": ["CXR1633_IM-0414/0.png", "CXR1633_IM-0414/1.png"],
        "section_findings": "Normal heart.",
        "section_impression": "Normal chest.",
        "frontal_lateral": ["Frontal", "Lateral", "Frontal"],
        "context": "Indication: Chest pain Comparison: None.",
        "model_prediction": "Normal.",
    }
    path.write_text(json.dumps({"CXR1633_IM-0414": study}), encoding="utf-8")
    loaded = load_pairs(str(path))
    assert loaded.pairs[0].views == []
    summary = loaded.summary()
    assert summary["fields_unused"] == 1
    assert summary["unused_fields"] == [
        {
            "row": 1,
            "id": "CXR1633_IM-0414",
            "field": "frontal_lateral",
            "reason": "3 views for 2 images: no view is shown",
        }
    ]


# --- what the model under test is sent: every image found, or the run stops naming it ---


def test_generating_finds_the_images_beside_the_file_without_an_image_root(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    files = rexrank_images(path)
    loaded = load_pairs(str(path), per_study=True)
    assert loaded.pairs[0].images == [
        str(files[name]) for name in json.loads(path.read_text())["50051329"]["image_path"]
    ]
    assert loaded.summary()["images"] == {
        "choice": "all",
        "missing": "error",
        "images": 3,
        "prior_images": 0,
        "omitted_count": 0,
        "omitted": [],
    }


def test_a_missing_image_stops_the_run_naming_the_study_and_the_file(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    missing = "/p12/p12000002/s58765432/frontal.jpg"
    files = rexrank_images(path, skip=(missing,))
    with pytest.raises(DataError) as stopped:
        load_pairs(str(path), per_study=True)
    assert (stopped.value.row, stopped.value.field) == (2, "images")
    assert stopped.value.problem.startswith(f"study '58765432': no such image file {files[missing]} (-T image_root")
    # Without the images at all (no root given, none beside the file), the first study stops the run.
    with pytest.raises(DataError, match="study '50051329': no such image file .*lateral.jpg"):
        load_pairs(str(rexrank_file(tmp_path / "bare" / "predictions.json")), per_study=True)


def test_an_omitted_image_is_counted_and_named(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    missing = "/p10/p10046166/s50051329/lateral.jpg"
    files = rexrank_images(path, skip=(missing,))
    loaded = load_pairs(str(path), per_study=True, missing_images="omit")
    first = loaded.pairs[0]
    assert (first.images, first.views) == ([str(files["/p10/p10046166/s50051329/frontal.jpg"])], ["antero-posterior"])
    images = loaded.summary()["images"]
    assert (images["images"], images["omitted_count"]) == (2, 1)
    assert images["omitted"] == [{"id": "50051329", "field": "images", "file": str(files[missing])}]


def test_skipping_bad_rows_skips_a_study_whose_image_is_missing_and_counts_it(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    rexrank_images(path, skip=("/p12/p12000002/s58765432/frontal.jpg",))
    loaded = load_pairs(str(path), per_study=True, on_bad_rows="skip")
    assert [pair.id for pair in loaded.pairs] == ["50051329"]
    assert [(s.row, s.field) for s in loaded.skipped] == [(2, "images")]


def test_the_key_image_option_sends_the_frontal_key_image_only(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    files = rexrank_images(path)
    first = load_pairs(str(path), per_study=True, images="key").pairs[0]
    assert (first.images, first.views) == ([str(files["/p10/p10046166/s50051329/frontal.jpg"])], ["antero-posterior"])


def test_judging_the_predictions_needs_no_image(tmp_path: Path) -> None:
    # Replayed candidates are judged on their text: the images are listed, never opened.
    loaded = load_pairs(str(rexrank_file(tmp_path / "predictions.json")))
    assert len(loaded.pairs[0].images) == 2 and "images" not in loaded.summary()


@pytest.mark.parametrize("option", [{"images": "key"}, {"missing_images": "omit"}])
def test_the_image_options_apply_only_when_reports_are_generated(tmp_path: Path, option: dict) -> None:
    with pytest.raises(InputError, match=r"^-T images and -T missing_images apply when the model under test"):
        load_pairs(str(rexrank_file(tmp_path / "predictions.json")), **option)


# --- the rest of the reader, as the file's own quirks have it ---


def test_image_paths_as_written_lose_only_their_leading_slash_and_blanks() -> None:
    assert study_images({"image_path": " /p10/s1/a.jpg "}) == (["p10/s1/a.jpg"], None)
    assert study_images({"image_path": ["/p10/s1/a.jpg", "", "  ", 7, None, "b.jpg"]}) == (
        ["p10/s1/a.jpg", "b.jpg"],
        None,
    )
    assert study_images({"image_path": float("nan")}) == ([], None)


def test_a_projection_list_that_does_not_match_the_views_is_not_used() -> None:
    study = {"image_path": ["a.png", "b.png"], "frontal_lateral": ["Frontal", "  "], "ap_pa": ["PA"]}
    assert study_images(study) == (["a.png", "b.png"], ["Frontal", None])
    with_blank = {"image_path": ["a.png"], "frontal_lateral": [float("nan")], "ap_pa": ["AP"]}
    assert study_images(with_blank) == (["a.png"], ["AP"])


def test_what_a_study_keeps_beside_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "predictions.json"
    study = {
        "image_path": ["a.png"],
        "section_findings": "Clear lungs.",
        "section_impression": "Normal.",
        "section_clinical_history": float("nan"),
        "split": "test",
        "model_prediction": 5,
    }
    path.write_text(json.dumps({"s1": study}), encoding="utf-8")
    (pair,) = load_pairs(str(path)).pairs
    # The sections and the prediction are the pair's reference and candidate; a NaN key is no metadata.
    assert pair.metadata == {"image_path": ["a.png"], "split": "test"}
    assert (pair.candidate, pair.key_image, pair.views, pair.age) == (None, None, [], None)
    assert pair.images == [str(tmp_path / "a.png")]


def test_a_study_without_the_tracks_section_is_left_out_and_named(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    studies = json.loads(path.read_text(encoding="utf-8"))
    studies["59999999"], studies["50051329"]["section_findings"] = studies.pop("59999999"), "  "
    studies = {key: studies[key] for key in ("50051329", "59999999", "58765432")}
    path.write_text(json.dumps(studies), encoding="utf-8")
    loaded = load_pairs(str(path))
    # A blank findings section is no findings; the studies after a left-out one are still read.
    assert [pair.id for pair in loaded.pairs] == ["58765432"]
    assert loaded.left_out == [
        {"row": 1, "id": "50051329", "reason": "no section_findings (track findings)"},
        {"row": 2, "id": "59999999", "reason": "no section_findings (track findings)"},
    ]
    assert "fields_unused" not in loaded.summary()  # every study's views match its images


def test_a_study_that_is_not_an_object_is_refused_naming_its_row(tmp_path: Path) -> None:
    path = tmp_path / "predictions.json"
    good = {
        "image_path": ["a.png"],
        "section_findings": "Clear.",
        "section_impression": "Normal.",
        "model_prediction": "Ok.",
    }
    path.write_text(json.dumps({"s0": good, "s1": "text"}), encoding="utf-8")
    with pytest.raises(DataError) as refused:
        load_pairs(str(path))
    assert (refused.value.source, refused.value.row, refused.value.field, refused.value.problem) == (
        str(path),
        2,
        "s1",
        "expected an object with the study's sections",
    )


@pytest.mark.parametrize("read", [rexrank_rows, rexrank_candidates])
def test_a_document_that_is_not_studies_by_id_is_refused(tmp_path: Path, read) -> None:
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(["not", "studies"]), encoding="utf-8")
    with pytest.raises(DataError) as refused:
        list(read(LayoutInput(str(path), {"predictions": [path]}, DataOptions())))
    assert (refused.value.source, refused.value.row, refused.value.field) == (str(path), None, None)
    assert refused.value.problem == "a ReXrank prediction file is one JSON object keyed by study id"


def test_predictions_join_as_candidates_by_study_id(tmp_path: Path) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    data = tmp_path / "references.jsonl"
    data.write_text(
        "".join(json.dumps({"id": i, "reference": "Ref."}) + "\n" for i in ("50051329", "58765432", "59999999")),
        encoding="utf-8",
    )
    loaded = load_pairs(str(data), candidates=str(path))
    assert [(p.id, p.candidate) for p in loaded.pairs] == [
        ("50051329", "Lungs are clear. No effusion."),
        ("58765432", "ET tube in standard position. Mild congestion."),
        ("59999999", "Right upper lobe consolidation."),
    ]
    # A study that is not an object, or has no prediction as text, gives no candidate.
    path.write_text(json.dumps({"50051329": "text", "58765432": {"model_prediction": 3}}), encoding="utf-8")
    read = rexrank_candidates(LayoutInput(str(path), {"predictions": [path]}, DataOptions()))
    assert list(read) == [(1, {"id": "50051329", "candidate": None}), (2, {"id": "58765432", "candidate": None})]
