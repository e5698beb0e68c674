"""The lm-eval tasks' documents: the same loader, the same pairs, and a word about what was chosen or left out."""

from __future__ import annotations

import logging

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench.lm_eval import pairs_with_questions
from radiology_tasks.lm_eval_tasks.documents import judged_pairs, report_pair
from radiology_tasks.ran_score.lm_eval import pairs_with_gold_labels


def test_documents_hold_the_loaders_pairs_in_order():
    (split,) = judged_pairs(version=1.0, config_source="x.yaml").values()
    assert [report_pair(doc) for doc in split] == load_pairs().pairs


def test_the_demo_set_is_named_when_no_data_is_chosen(caplog):
    with caplog.at_level(logging.INFO, logger="radiology_tasks.lm_eval_tasks"):
        judged_pairs(dta="typo.jsonl")
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and "bundled synthetic set" in record.getMessage()


def test_reports_without_questions_or_gold_labels_are_counted_as_left_out(caplog):
    with caplog.at_level(logging.WARNING, logger="radiology_tasks.lm_eval_tasks"):
        (questions,) = pairs_with_questions().values()
        (labelled,) = pairs_with_gold_labels().values()
    assert all(report_pair(doc).qa for doc in questions)
    total = len(load_pairs().pairs)
    assert len(questions) == sum(1 for pair in load_pairs().pairs if pair.qa) < total
    assert len(labelled) == len(load_pairs("ran-score-demo").pairs)
    left_out = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    expected = f"{total - len(questions)} of {total} report pairs in demo are left out (no questions)"
    assert left_out == [f"radiology-tasks: {expected}"]


def test_a_data_option_must_be_text():
    with pytest.raises(InputError, match="--metadata data must be a string"):
        judged_pairs(data=3)


def test_questions_are_required(tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text('{"id": "a", "reference": "No effusion.", "candidate": "No effusion."}\n', encoding="utf-8")
    with pytest.raises(InputError, match="has questions"):
        pairs_with_questions(data=str(data))


def test_gold_labels_are_required(tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text('{"id": "a", "reference": "No effusion."}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"^no report in .*pairs.jsonl has gold labels \(a 'gold_labels' object\)$"):
        pairs_with_gold_labels(data=str(data))
