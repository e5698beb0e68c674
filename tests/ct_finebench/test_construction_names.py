"""Name normalisation for grouping: each expected key below is worked out by hand from the rules."""

from __future__ import annotations

import pytest

from radiology_tasks.scorers.ct_finebench.construction_names import normalize_name, singular


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("  Lung_Nodules. ", "lung nodule"),  # case, underscore, edge punctuation, plural
        ("Pleural-Effusions", "pleural effusion"),  # hyphen as a space
        ("Ground glass   OPACITIES", "ground glass opacity"),  # -ies -> -y, runs of spaces
        ("the nodule", "nodule"),  # leading article
        ("An abscesses", "abscess"),  # -sses -> -ss
        ("lymph nodes", "lymph node"),
        ("Ascites", "ascites"),  # a singular noun ending in -es
        ("atelectasis", "atelectasis"),  # -is is singular
        ("Thrombus", "thrombus"),  # -us is singular
        ("RV/LV ratio", "rv/lv ratio"),
        ("patches", "patch"),  # -ches -> -ch
        ("sizes", "size"),  # -zes is not a sibilant ending here: only the s goes
        ("Ｌｕｎｇ nodule", "lung nodule"),  # full-width letters fold (NFKC)
        ("...", ""),
    ],
)
def test_normalize_name(name: str, key: str) -> None:
    assert normalize_name(name) == key


@pytest.mark.parametrize(
    ("word", "expected"),
    [("gas", "gas"), ("ribs", "rib"), ("mass", "mass"), ("boxes", "box"), ("t12s", "t12s"), ("series", "series")],
)
def test_singular_keeps_short_words_digits_and_singulars(word: str, expected: str) -> None:
    assert singular(word) == expected
