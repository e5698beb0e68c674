"""The flat layout's generation inputs (section, patient, comparison, views, key image, prior study) and the
images a generator is sent (`radiology_tasks.core.study_images`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import PriorStudy, ReportPair
from radiology_tasks.core.study_images import key_position, only_key_image, without_missing
from radiology_tasks.core.tables import DataError

ROW: dict[str, Any] = {"id": "s1", "reference": "Small left pleural effusion.", "candidate": "Left effusion."}


def _pair(**fields: Any) -> ReportPair:
    return ReportPair.model_validate({"id": "s1", "reference": "Normal chest.", **fields})


def test_the_flat_columns_are_read_as_the_generation_inputs(pairs_file, tmp_path: Path) -> None:
    row = {
        **ROW,
        "images": ["lat.png", "pa.png"],
        "views": ["lateral", "PA"],
        "key_image": "pa.png",
        "section": "findings_impression",
        "age": 67.0,
        "sex": "F",
        "comparison": "Radiograph of 2021.",
        "prior_images": ["prior_pa.png"],
        "prior_report": "Normal chest.",
    }
    (pair,) = load_pairs(str(pairs_file([row]))).pairs
    assert pair.images == [str(tmp_path / "lat.png"), str(tmp_path / "pa.png")]
    assert (pair.views, pair.key_image) == (["lateral", "PA"], str(tmp_path / "pa.png"))
    assert (pair.section, pair.age, pair.sex, pair.comparison) == (
        "findings_impression",
        "67",
        "F",
        "Radiograph of 2021.",
    )
    assert pair.prior == PriorStudy(images=[str(tmp_path / "prior_pa.png")], report="Normal chest.")
    assert pair.metadata == {}  # none of them is left as loose metadata


def test_csv_cells_give_views_by_position_and_an_empty_one_for_an_unknown_view(pairs_file) -> None:
    row = {**ROW, "images": "a.png;b.png;c.png", "views": "lateral;;PA", "prior_report": "Stable."}
    (pair,) = load_pairs(str(pairs_file([row], name="pairs.csv"))).pairs
    assert (pair.views, pair.prior) == (["lateral", None, "PA"], PriorStudy(report="Stable."))


def test_without_the_columns_nothing_changes(pairs_file) -> None:
    (pair,) = load_pairs(str(pairs_file([ROW]))).pairs
    assert (pair.section, pair.age, pair.sex, pair.comparison) == ("findings", None, None, None)
    assert (pair.views, pair.key_image, pair.prior) == ([], None, None)


@pytest.mark.parametrize(
    ("fields", "column", "problem"),
    [
        ({"images": ["a.png", "b.png"], "views": ["PA"]}, "views", "1 views for 2 images; give one per image"),
        ({"views": 3}, "views", "expected a list of views (or names separated by ';'), got 3"),
        ({"images": ["a.png"], "key_image": "b.png"}, "key_image", "'b.png' is not one of the study's images"),
        ({"section": "summary"}, "section", "expected one of findings, impression, findings_impression, got 'summary'"),
        ({"sex": ["F"]}, "sex", "expected text, got list"),
        ({"prior_images": {"a": 1}}, "prior_images", "expected a list of file names (or names separated by ';'), got"),
    ],
)
def test_a_bad_input_column_is_named(pairs_file, fields: dict, column: str, problem: str) -> None:
    with pytest.raises(DataError) as caught:
        load_pairs(str(pairs_file([{**ROW, **fields}])))
    assert (caught.value.row, caught.value.field) == (1, column)
    assert caught.value.problem.startswith(problem)


def test_the_record_refuses_views_or_a_key_image_that_do_not_fit_its_images() -> None:
    with pytest.raises(ValueError, match="2 views given for 1 images"):
        _pair(images=["a.png"], views=["PA", "lateral"])
    with pytest.raises(ValueError, match="the key image b.png is not one of the study's images"):
        _pair(images=["a.png"], key_image="b.png")
    with pytest.raises(ValueError, match="a prior study needs its images or its report"):
        PriorStudy(report="  ")


@pytest.mark.parametrize(
    ("fields", "position"),
    [
        ({"images": ["lat.png", "pa.png"], "views": ["lateral", "PA"], "key_image": "lat.png"}, 0),
        ({"images": ["lat.png", "ap.png"], "views": ["lateral", "antero-posterior"]}, 1),
        ({"images": ["lat.png", "f.png"], "views": ["Lateral", "Frontal"]}, 1),
        ({"images": ["lat.png", "pa.png"], "views": ["left lateral", "postero-anterior"]}, 1),
        ({"images": ["only.png"]}, 0),
        ({"images": []}, None),
    ],
)
def test_the_key_image_is_the_named_one_else_the_frontal_else_the_only_one(fields: dict, position: int | None) -> None:
    assert key_position(_pair(**fields)) == position


def test_several_images_without_a_key_or_a_frontal_view_cannot_be_narrowed_to_one() -> None:
    for fields in ({"images": ["a.png", "b.png"]}, {"images": ["a.png", "b.png"], "views": ["lateral", None]}):
        with pytest.raises(ValueError) as refused:
            key_position(_pair(**fields))
        assert str(refused.value) == (
            "2 images and no key image or frontal view to choose one by; give a key_image, or views, or send them "
            "all (-T images=all)"
        )


def test_one_image_leaves_the_prior_images_out_and_keeps_the_prior_report() -> None:
    pair = _pair(
        images=["lat.png", "pa.png"], views=["lateral", "PA"], prior={"images": ["old.png"], "report": "Stable."}
    )
    narrowed = only_key_image(pair)
    assert (narrowed.images, narrowed.views, narrowed.prior) == (["pa.png"], ["PA"], PriorStudy(report="Stable."))
    assert only_key_image(_pair(images=["a.png"], prior={"images": ["old.png"]})).prior is None


def test_missing_files_are_left_out_with_their_views_and_named(tmp_path: Path) -> None:
    (tmp_path / "pa.png").write_bytes(b"png")
    pair = _pair(
        images=[str(tmp_path / "lat.png"), str(tmp_path / "pa.png"), "https://example.org/x.png"],
        views=["lateral", "PA", None],
        key_image=str(tmp_path / "lat.png"),
        prior={"images": [str(tmp_path / "old.png")], "report": "Stable."},
    )
    kept, omitted = without_missing(pair)
    assert (kept.images, kept.views) == ([str(tmp_path / "pa.png"), "https://example.org/x.png"], ["PA", None])
    assert (kept.key_image, kept.prior) == (None, PriorStudy(report="Stable."))
    assert omitted == [
        {"id": "s1", "field": "images", "file": str(tmp_path / "lat.png")},
        {"id": "s1", "field": "prior_images", "file": str(tmp_path / "old.png")},
    ]
    # What exists is kept: the key image, and the prior study's images.
    (tmp_path / "old.png").write_bytes(b"png")
    found = pair.model_copy(update={"key_image": str(tmp_path / "pa.png")})
    kept, omitted = without_missing(found)
    assert (kept.key_image, kept.prior) == (
        str(tmp_path / "pa.png"),
        PriorStudy(images=[str(tmp_path / "old.png")], report="Stable."),
    )
    assert omitted == [{"id": "s1", "field": "images", "file": str(tmp_path / "lat.png")}]


def test_a_missing_prior_image_stops_a_generation_run_naming_it(pairs_file, tmp_path: Path) -> None:
    (tmp_path / "pa.png").write_bytes(b"png")
    path = pairs_file([ROW, {**ROW, "id": "s2", "images": ["pa.png"], "prior_images": ["old.png"]}])
    with pytest.raises(DataError) as stopped:
        load_pairs(str(path), per_study=True)
    assert (stopped.value.source, stopped.value.row, stopped.value.field) == (str(path), 2, "prior_images")
    assert stopped.value.problem == (
        f"study 's2': no such image file {tmp_path / 'old.png'} (-T image_root sets the folder image paths are "
        "relative to; -T missing_images=omit sends the study without it, named in the log)"
    )


def test_a_study_that_cannot_be_narrowed_to_one_image_is_named(pairs_file, tmp_path: Path) -> None:
    for name in ("a.png", "b.png"):
        (tmp_path / name).write_bytes(b"png")
    path = pairs_file([{**ROW, "images": ["a.png", "b.png"]}])
    with pytest.raises(
        DataError, match=rf"^{re.escape(str(path))}, row 1, field 'images': study 's1': 2 images and no"
    ):
        load_pairs(str(path), per_study=True, images="key")
