"""A variant's outcome record (`VariantOutcome.metadata`) reads back as it was written, old logs' records too."""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai.log import read_eval_log

from radiology_tasks.solvers.judge_sensitivity.outcome import AttemptRecord, VariantOutcome
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec

OLD_LOG = Path(__file__).parents[1] / "fixtures" / "old_logs" / "judge_sensitivity.eval"


def _as_logged(record: dict[str, object]) -> object:
    return json.loads(json.dumps(record))


def test_an_outcome_reads_back_from_its_record():
    attempt = AttemptRecord(1, "{}", "stop", 7, 0.7, 512, output_tokens=3, problem="implausible", detail="no")
    outcome = VariantOutcome(VariantSpec("error", "c", 2), "R1", attempts=[attempt], constraint="json_schema")
    outcome.exclude("implausible", "the checker said no")
    record = outcome.metadata()
    assert {k: record[k] for k in ("source_id", "kind", "category", "n_errors")} == {
        "source_id": "R1",
        "kind": "error",
        "category": "c",
        "n_errors": 2,
    }
    assert record["injector_calls"] == 1 and record["exclusion_detail"] == "implausible: the checker said no"
    back = VariantOutcome.from_metadata(_as_logged(record))  # type: ignore[arg-type]
    assert back == outcome
    paraphrase = VariantOutcome(VariantSpec("paraphrase"), "R2", text="Reworded.")
    assert VariantOutcome.from_metadata(paraphrase.metadata()) == paraphrase


def test_an_old_logs_outcome_records_read_back_unchanged():
    samples = read_eval_log(str(OLD_LOG)).samples or []
    records = [sample.metadata["variant"] for sample in samples]
    assert records
    for record in records:
        assert _as_logged(VariantOutcome.from_metadata(record).metadata()) == record
