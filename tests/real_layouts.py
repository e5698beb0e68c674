"""Small files written exactly in the layouts of the public datasets, quirks included (see README, Real datasets).

Each writer mirrors what a user holds after downloading the real data: the same file names and folders, the
same columns in the same order, and the irregularities the real files have (RadEval annotation headers with
and without a colon, cells whose count is missing or not a number; ReXVal's full grid of zero rows; ReXrank's
bare `NaN` for a missing section; RadPref's blank ages, ages in months and days, a shared normal reference,
error positions past the end of a findings list and explanations present, blank or absent).
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


def _radpref_id(n: int) -> str:
    """A study id shaped like RadPref's: patient, accession and study instance UID, joined by underscores."""
    return (
        f"pGRDN0TEST000000{n}_aGRDNTESTACC0000{n}_s1.2.826.0.1.3680043.8.498.{n}0000000000000000000000000000000000{n}"
    )


RADPREF_STUDIES = [_radpref_id(n) for n in (1, 2, 3, 4)]
RADPREF_NORMAL = "The heart size and mediastinal contours are within normal limits. Both lungs are clear."
RADPREF_RATINGS = {
    (RADPREF_STUDIES[0], "C1"): {"1": 2, "2": 1, "3": 2},
    (RADPREF_STUDIES[0], "C2"): {"1": 4, "2": 5, "3": 4},
    (RADPREF_STUDIES[1], "C1"): {"1": 5, "2": 5, "3": 5},
    (RADPREF_STUDIES[1], "C2"): {"1": 5, "2": 4, "3": 5},
    (RADPREF_STUDIES[2], "C1"): {"1": 3, "2": 1, "3": 2},
    (RADPREF_STUDIES[2], "C2"): {"1": 3, "2": 1, "3": 2},
    (RADPREF_STUDIES[3], "C1"): {"1": 1, "2": 2, "3": 1},
    (RADPREF_STUDIES[3], "C2"): {"1": 4, "2": 5, "3": 3},
}
"""Each radiologist's rating of each candidate of `radpref_copy`, by `user_id`."""


def _radpref_study(n: int, age: str, sex: str, indication: str, comparison: str, texts: dict[str, Any]) -> dict:
    """One entry of `preference_data.json`, its keys in the real file's order."""
    return {
        "id": RADPREF_STUDIES[n],
        "ground_truth_report": texts["gt"],
        "ground_truth_findings": texts["gt_findings"],
        "C1_report": texts["c1"],
        "C1_findings": texts["c1_findings"],
        "C1_source": texts["c1_source"],
        "C2_report": texts["c2"],
        "C2_findings": texts["c2_findings"],
        "C2_source": "gpt" if texts["c1_source"] == "medgemma" else "medgemma",
        "PatientAge": age,
        "PatientSex": sex,
        "Indication": indication,
        "Comparison": comparison,
        "StudyDescription": "DG CHEST 1V PORT",
    }


RADPREF_PREFERENCES = [
    _radpref_study(
        0,
        "072Y",
        "F",
        "Central line placement.  Pneumonia.",
        "Comparison: 04/10/2017",
        {
            "gt": "Right internal jugular catheter tip in the lower SVC. Left lower lobe consolidation.",
            "gt_findings": ["Left lower lobe consolidation", "Right internal jugular catheter tip in the lower SVC"],
            "c1": "Central venous catheter tip in the mid SVC. The lungs are clear.",
            "c1_findings": ["Central venous catheter tip in the mid SVC"],
            "c1_source": "medgemma",
            "c2": "Left internal jugular catheter tip in the lower SVC. Left basal consolidation.",
            "c2_findings": ["Left basal consolidation", "Left internal jugular catheter tip in the lower SVC"],
        },
    ),
    _radpref_study(
        1,
        "",
        "M",
        "Headache and chest pain.",
        "",
        {
            "gt": RADPREF_NORMAL,
            "gt_findings": [],
            "c1": "The lungs are clear. The cardiac silhouette is normal.",
            "c1_findings": [],
            "c1_source": "gpt",
            "c2": "No acute cardiopulmonary abnormality.",
            "c2_findings": [],
        },
    ),
    _radpref_study(
        2,
        "030M",
        "O",
        "Cough and fever",
        "None.",
        {
            "gt": RADPREF_NORMAL,
            "gt_findings": [],
            "c1": "Right upper lobe pneumonia.",
            "c1_findings": ["Right upper lobe pneumonia"],
            "c1_source": "medgemma",
            "c2": "Perihilar peribronchial thickening, possibly viral.",
            "c2_findings": ["Perihilar peribronchial thickening"],
        },
    ),
    _radpref_study(
        3,
        "001D",
        "F",
        "Preterm infant. Question free air.",
        "Portable chest and abdomen earlier in the morning.",
        {
            "gt": "Umbilical venous catheter tip at the right atrium. No free air.",
            "gt_findings": ["Umbilical venous catheter tip at the right atrium"],
            "c1": "Pneumoperitoneum. Endotracheal tube in the right main bronchus.",
            "c1_findings": ["Pneumoperitoneum", "Endotracheal tube in the right main bronchus"],
            "c1_source": "gpt",
            "c2": "Umbilical venous catheter tip near the cavoatrial junction.",
            "c2_findings": ["Umbilical venous catheter tip near the cavoatrial junction"],
        },
    ),
]
"""Four studies with the real file's irregularities: a blank age (study 2), ages in months and days (studies 3
and 4), sex `O` (study 3), a blank comparison, empty findings lists, a double space in an indication, and one
normal reference shared by two studies (2 and 3)."""


def _radpref_candidate(rater: str, study: int, name: str, **extra: Any) -> dict[str, Any]:
    """One candidate's reading: errors, then the rating, then (unless told otherwise) a blank explanation."""
    explanation = extra.pop("rating_explanation", "")
    entry = {
        "finding_errors": extra.pop("finding_errors", {}),
        "missing_findings": extra.pop("missing_findings", {}),
        "rating": RADPREF_RATINGS[(RADPREF_STUDIES[study], name)][rater],
    }
    if explanation is not None:
        entry["rating_explanation"] = explanation
    return entry


def _radpref_annotations(rater: str) -> dict[str, Any]:
    """One radiologist's file; each lists the studies in its own order, as the real files do."""
    false_finding = {"0": {"error_type": "false", "clinical_significance": "actionable_not_urgent"}}
    studies: dict[int, dict[str, Any]] = {
        0: {
            "C1": _radpref_candidate(
                rater,
                0,
                "C1",
                missing_findings={"0": {"clinical_significance": "actionable_not_urgent"}},
                # Radiologist 1 wrote no explanation key at all here, as some real entries have none.
                rating_explanation=None if rater == "1" else "",
            ),
            "C2": _radpref_candidate(
                rater,
                0,
                "C2",
                finding_errors={"1": {"error_type": "attribute", "attributes": {"location": "significant"}}},
            ),
        },
        1: {
            "C1": _radpref_candidate(rater, 1, "C1"),
            "C2": _radpref_candidate(
                rater,
                1,
                "C2",
                rating_explanation="Doesn\u2019t describe the heart " if rater == "2" else "",
            ),
        },
        2: {
            "C1": _radpref_candidate(rater, 2, "C1", finding_errors=false_finding),
            "C2": _radpref_candidate(rater, 2, "C2"),
        },
        3: {
            "C1": _radpref_candidate(rater, 3, "C1"),
            # Positions past the end of C2_findings (one finding): the real files hold such indices too.
            "C2": _radpref_candidate(
                rater,
                3,
                "C2",
                finding_errors={
                    "1": {"error_type": "false", "clinical_significance": "not_actionable_not_urgent"},
                    "2": {
                        "error_type": "false",
                        "clinical_significance": "actionable_not_urgent",
                        "explanation": "symptom, not a radiological finding",
                    },
                },
            ),
        },
    }
    if rater != "3":
        studies[0]["new_finding_indices"] = {"C1": [0], "C2": [1], "GT": [1]}
        studies[3]["new_finding_indices"] = {"C1": [], "C2": [1, 2], "GT": []}
    order = {"1": [3, 1, 0, 2], "2": [0, 1, 2, 3], "3": [2, 0, 3, 1]}[rater]
    return {"user_id": rater, "annotations": {RADPREF_STUDIES[n]: studies[n] for n in order}}


def radpref_copy(folder: Path) -> Path:
    """A copy of the CRIMSON repository's RadPref folder under `folder` (as a clone holds it); returns `RadPref/`.

    `preference_data.json` ends with a newline and the radiologists' files do not, as in the repository; both are
    written as `json.dump(..., indent=2)` writes them (non-ASCII characters escaped).
    """
    radpref = folder / "RadPref"
    annotations = radpref / "radiologist_annotations"
    annotations.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("# CRIMSON\n", encoding="utf-8")
    (radpref / "evaluate_radpref.py").write_text("# the authors' evaluation script\n", encoding="utf-8")
    (radpref / "preference_data.json").write_text(json.dumps(RADPREF_PREFERENCES, indent=2) + "\n", encoding="utf-8")
    for rater in ("1", "2", "3"):
        text = json.dumps(_radpref_annotations(rater), indent=2)
        (annotations / f"user_{rater}.json").write_text(text, encoding="utf-8")
    return radpref


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
