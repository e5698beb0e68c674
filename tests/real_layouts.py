"""Small files written exactly in the layouts of the public datasets, quirks included (see README, Real datasets).

Each writer mirrors what a user holds after downloading the real data: the same file names and folders, the
same columns in the same order, and the irregularities the real files have (RadEval annotation headers with
and without a colon, cells whose count is missing or not a number; ReXVal's full grid of zero rows; ReXrank's
bare `NaN` for a missing section).
"""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path
from typing import Any

RADEVAL_FILE = "reader_study_final_with_annotationsv3.csv"
RADEVAL_HEADER = [
    "annotator",
    "type",
    "ground_truth",
    "images_path",
    "prediction1",
    "prediction2",
    "prediction3",
    "annotation1",
    "annotation2",
    "annotation3",
]
RADEVAL_LABELS = [
    "False prediction of finding",
    "Omission of finding",
    "Incorrect location/position of finding",
    "Incorrect severity of finding",
    "Mention of comparison that is not present in the reference",
    "Omission of a change from a previous study",
    "Inarticulate report (grammar/readability issues)",
]


def radeval_cell(significant: list[Any], insignificant: list[Any], colon: bool = True) -> str:
    """An annotation cell: two headers, seven `N. <label>: <count>` lines under each (a count may be "")."""
    lines = []
    for header, counts in (("Significant", significant), ("Insignificant", insignificant)):
        lines.append(header + (":" if colon else ""))
        lines += [f"{n}. {label}: {count}".rstrip() for n, (label, count) in enumerate(zip(RADEVAL_LABELS, counts), 1)]
    return "\n".join(lines)


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def hub_extras(folder: Path) -> None:
    """What `huggingface-cli download --repo-type dataset` leaves beside the data files."""
    (folder / "README.md").write_text("---\nlicense: mit\n---\n", encoding="utf-8")
    (folder / ".gitattributes").write_text("*.csv filter=lfs diff=lfs merge=lfs -text\n", encoding="utf-8")


def radeval_copy(folder: Path) -> Path:
    """A RadEval expert set copy of three studies (nine candidates); two cells are broken as in the real file.

    Study 1, candidate 2: category 2's significant count is missing (`2. Omission of finding:`).
    Study 3, candidate 1: category 4's insignificant count is not a number.
    Study 2's cells have no colon after the headers, as some real cells.
    """
    zero = [0] * 7
    rows = [
        [
            "reader_a",
            "findings",
            "Small right pleural effusion. No pneumothorax.",
            "p10/p10000001/s50000001/view1.jpg",
            "Small right pleural effusion.",
            "Large left pleural effusion and pneumothorax.",
            "No acute findings.",
            radeval_cell(zero, zero),
            radeval_cell([0, "", 0, 0, 0, 0, 0], zero),
            radeval_cell([0, 1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1]),
        ],
        [
            "reader_b",
            "impression",
            "Cardiomegaly. Mild pulmonary edema.",
            "patient00001/study1/view1_frontal.jpg",
            "Cardiomegaly with mild edema.",
            "Normal heart size.",
            "Cardiomegaly.",
            radeval_cell(zero, zero, colon=False),
            radeval_cell([0, 2, 0, 0, 0, 0, 0], zero, colon=False),
            radeval_cell([0, 1, 0, 0, 0, 0, 0], zero, colon=False),
        ],
        [
            "reader_a",
            "finding",
            "Left lower lobe consolidation.",
            "p10/p10000003/s50000003/view1.jpg",
            "Right lower lobe consolidation.",
            "Left lower lobe opacity.",
            "Clear lungs.",
            radeval_cell([0, 0, 1, 0, 0, 0, 0], [0, 0, 0, "few", 0, 0, 0]),
            radeval_cell(zero, [0, 0, 0, 1, 0, 0, 0]),
            radeval_cell([1, 1, 0, 0, 0, 0, 0], zero),
        ],
    ]
    folder.mkdir(parents=True, exist_ok=True)
    hub_extras(folder)
    return write_csv(folder / RADEVAL_FILE, RADEVAL_HEADER, rows)


REXVAL_CANDIDATES = ["radgraph", "bertscore", "s_emb", "bleu"]
REXVAL_ERROR_HEADER = [
    "study_number",
    "candidate_type",
    "error_category",
    "rater_index",
    "clinically_significant",
    "num_errors",
]


def rexval_copy(folder: Path, errors: dict[tuple[int, str, int, int, bool], int]) -> Path:
    """A ReXVal copy of two studies: the reports file and the full grid of per-rater error rows.

    `errors` maps (study number, candidate, category 1-6, rater 0-5, significant) to a count; every other
    cell of the grid is written as 0, as the real file writes it. Blocks come in the real order: per study,
    per candidate, per category, the six raters' significant rows, then their insignificant rows.
    """
    reports = [
        [
            53780576,
            "No acute cardiopulmonary process.  ___ .",
            *(f"No acute process ({c})." for c in REXVAL_CANDIDATES),
        ],
        [
            51234567,
            "Small left pleural effusion.  Stable cardiomegaly.",
            "Small left pleural effusion .",
            "Left pleural effusion, cardiomegaly.",
            "Large right pleural effusion.",
            "No effusion.",
        ],
    ]
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(folder / "50_samples_gt_and_candidates.csv", ["study_id", "gt_report", *REXVAL_CANDIDATES], reports)
    grid = []
    for study in range(len(reports)):
        for candidate in REXVAL_CANDIDATES:
            for category in range(1, 7):
                for significant in (True, False):
                    for rater in range(6):
                        count = errors.get((study, candidate, category, rater, significant), 0)
                        grid.append([study, candidate, category, rater, str(significant), count])
    write_csv(folder / "6_valid_raters_per_rater_error_categories.csv", REXVAL_ERROR_HEADER, grid)
    return folder


def rexrank_file(path: Path) -> Path:
    """A ReXrank prediction file of three MIMIC-CXR studies; the second has no impression, the third no findings.

    Written as Python's `json.dump` writes ReXrank's files: a missing section is the bare token `NaN`. As in the
    real MIMIC-CXR test set, the first study lists its lateral view first (its key image is the second), views
    are MIMIC's words (`lateral`, `antero-posterior`, `postero-anterior`), image paths start with `/`, and the
    contexts take MIMIC's shapes: all four parts, no comparison, a comparison alone.
    """
    studies = {
        "50051329": {
            "image_path": ["/p10/p10046166/s50051329/lateral.jpg", "/p10/p10046166/s50051329/frontal.jpg"],
            "section_findings": "The lungs are clear.\nNo pleural effusion or pneumothorax.",
            "section_impression": "No acute cardiopulmonary process.",
            "frontal_lateral": ["lateral", "antero-posterior"],
            "split": "test",
            "subject_id": 10046166,
            "context": "Age:50-60.Gender:M.Indication: ___-year-old male with cough.Comparison: None.",
            "key_image_path": "/p10/p10046166/s50051329/frontal.jpg",
            "report": "Findings: The lungs are clear. Impression: No acute cardiopulmonary process.",
            "model_prediction": "Lungs are clear. No effusion.",
        },
        "58765432": {
            "image_path": ["/p12/p12000002/s58765432/frontal.jpg"],
            "section_findings": "Endotracheal tube 4 cm above the carina.\nMild vascular congestion.",
            "section_impression": float("nan"),
            "frontal_lateral": ["antero-posterior"],
            "split": "test",
            "subject_id": 12000002,
            "context": "Comparison: Chest radiograph of earlier the same date.",
            "key_image_path": "/p12/p12000002/s58765432/frontal.jpg",
            "report": "Findings: Endotracheal tube 4 cm above the carina. Impression: None.",
            "model_prediction": "ET tube in standard position. Mild congestion.",
        },
        "59999999": {
            "image_path": ["/p13/p13000003/s59999999/frontal.jpg"],
            "section_findings": float("nan"),
            "section_impression": "Right upper lobe pneumonia.",
            "frontal_lateral": ["postero-anterior"],
            "split": "test",
            "subject_id": 13000003,
            "context": "Age:30-40.Gender:F.Indication: Fever.",
            "key_image_path": "/p13/p13000003/s59999999/frontal.jpg",
            "report": "Findings: None. Impression: Right upper lobe pneumonia.",
            "model_prediction": "Right upper lobe consolidation.",
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(studies, indent=4), encoding="utf-8")
    assert "NaN" in path.read_text(encoding="utf-8")
    return path


def rexrank_images(path: Path, root: Path | None = None, *, skip: tuple[str, ...] = ()) -> dict[str, Path]:
    """Write a small PNG for every image a ReXrank file lists, under `root` (by default beside the file), as the
    image root holds them; `skip` names paths (as listed) left unwritten. Returns each listed path's file."""
    folder = root or path.parent
    written = {}
    for study in json.loads(path.read_text(encoding="utf-8")).values():
        for name in study["image_path"]:
            target = folder / name.lstrip("/")
            written[name] = target
            if name not in skip:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(image_bytes(name))
    return written


PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
"""A 1x1 PNG."""


def image_bytes(name: str) -> bytes:
    """The stand-in image for `name`: a 1x1 PNG with the name after its end (which decoders ignore), so a test
    can tell which file a request carried."""
    return PNG + name.encode()
