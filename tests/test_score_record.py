"""The base of the families' typed score records (`radiology_tasks.scorers.score_record`)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from radiology_tasks.scorers.score_record import ExpertFields, JudgeCalls, KeptAnswer, ScoreRecord, UnscoredFields


class _Record(ScoreRecord):
    judge_calls: int = 0
    filled_in: list[str] = []


def test_written_keeps_exactly_the_fields_set_and_refuses_an_undeclared_one():
    assert _Record.written({"judge_calls": 2}) == {"judge_calls": 2}
    assert _Record.written({}) == {}
    with pytest.raises(TypeError, match="_Record has no field judge_verdict, score"):
        _Record.written({"judge_calls": 1, "score": 1.0, "judge_verdict": "perfect"})
    with pytest.raises(ValidationError, match="judge_calls"):
        _Record.written({"judge_calls": "many"})


def test_read_ignores_unknown_keys_gives_defaults_and_is_frozen():
    record = _Record.read({"filled_in": ["x"], "added_later": 1})
    assert record.filled_in == ["x"] and record.judge_calls == 0
    assert _Record.read(None) == _Record()
    with pytest.raises(ValidationError):
        record.judge_calls = 3  # type: ignore[misc]  # frozen: the assignment itself is what is tested


def test_the_shared_judge_blocks_read_an_older_log_with_defaults_and_refuse_a_bool_index():
    assert JudgeCalls.read({}) == JudgeCalls(
        constraint=None,
        judge_retried=False,
        judge_truncated=False,
        judge_calls=0,
        judge_input_tokens=0,
        judge_output_tokens=0,
    )
    kept = KeptAnswer.read({"judge_answer": "ok", "judge_answer_attempt": 1, "judge_calls": 2})
    assert (kept.judge_answer, kept.judge_answer_attempt, kept.judge_calls, kept.judge) == ("ok", 1, 2, None)
    with pytest.raises(ValidationError, match="judge_answer_attempt"):
        KeptAnswer.read({"judge_answer_attempt": True})
    assert UnscoredFields.read({"unscored": {"f1": "truncated"}}).filled_in == []
    assert ExpertFields.read({}).expert_score is None


def test_written_refuses_a_field_of_another_block():
    assert UnscoredFields.written({"filled_in": ["f1"]}) == {"filled_in": ["f1"]}
    with pytest.raises(TypeError, match="UnscoredFields has no field judge_calls"):
        UnscoredFields.written({"judge_calls": 1})
