"""`-T label_cache` as Inspect hands it over: YAML reads `off` as False, which must switch the cache off."""

from __future__ import annotations

from pathlib import Path

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.ran_score.cache import cache_root, default_cache_root


@pytest.mark.parametrize("given", ["off", False])
def test_off_as_text_or_as_yaml_boolean_switches_the_cache_off(given):
    assert cache_root(given) is None


@pytest.mark.parametrize("given", [None, True, ""])
def test_unset_or_true_is_the_default_cache(given):
    assert cache_root(given) == default_cache_root()


def test_a_directory_is_used_as_given(tmp_path):
    assert cache_root(str(tmp_path / "labels")) == Path(tmp_path / "labels")


def test_a_number_is_refused_naming_the_parameter():
    with pytest.raises(InputError, match="-T label_cache must be a directory or off, got 3"):
        cache_root(3)  # type: ignore[arg-type]
