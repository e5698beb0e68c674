"""`-T baselines` of the judge tasks is checked when its options are built, before any data is read."""

from __future__ import annotations

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.lexical import BaselineOptions


def test_unknown_and_malformed_baselines_are_refused() -> None:
    with pytest.raises(InputError, match="bleu_9"):
        BaselineOptions(baselines="bleu,bleu_9")
    with pytest.raises(InputError, match="^-T baselines takes metric names, got 3$"):
        BaselineOptions(baselines=[3])  # type: ignore[list-item]


def test_known_baselines_and_none_are_kept_as_given() -> None:
    assert BaselineOptions(baselines="bleu,rouge_l").baselines == "bleu,rouge_l"
    assert BaselineOptions(baselines=["chrf"]).baselines == ["chrf"]
    assert BaselineOptions().baselines is None
