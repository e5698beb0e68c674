"""Make variants once and keep them as JSONL: `radiology-tasks perturb` and `radiology-tasks sensitivity-set`.

Both run an Inspect evaluation whose only model is the `injector` role and whose solvers are the task's own
(`inject_errors`, `paraphrase`), so every attempt is in an ordinary Inspect log, then write what was made:

- ``perturb``: the variants of `judge_sensitivity` (error types x N, paraphrases) as a variants file, which
  ``-T data=`` loads without calling an injector, so several judges are compared on the identical set.
- ``sensitivity-set``: CT-FineBench's sensitivity sets (section 5.2): for each reference a paraphrase that
  keeps every fact (``pos``) and a minimal edit of fine-grained attributes (``neg``), as ``pos.jsonl`` and
  ``neg.jsonl``; only references with both variants made are written, so the two sets pair up.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval

from radiology_tasks.core.loading import OnBadRows, load_pairs
from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity.dataset import distinct_references, pick, planned_samples
from radiology_tasks.judge_sensitivity.rewrite import INJECTOR_ROLE, RewriteSettings
from radiology_tasks.judge_sensitivity.solvers import VARIANT, inject_errors, paraphrase
from radiology_tasks.solvers.judge_sensitivity.outcome import VariantOutcome
from radiology_tasks.solvers.judge_sensitivity.rows import SensitivityKind, perturb_row, sensitivity_row
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec


@dataclass(frozen=True)
class References:
    """Where the references come from and which to use (the data options of the tasks)."""

    data: str | None = None
    revision: str | None = None
    on_bad_rows: OnBadRows = "error"
    seed: int | None = None
    limit: int | None = None

    def load(self) -> list[ReportPair]:
        """The distinct references, shuffled with `seed` and limited."""
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"--limit must be at least 1, got {self.limit}")
        loaded = load_pairs(self.data, revision=self.revision, on_bad_rows=self.on_bad_rows)
        return pick(distinct_references(loaded.pairs), seed=self.seed, limit=self.limit)


@dataclass
class Made:
    """What a run made.

    Attributes:
        log: The Inspect log of the injector run (every attempt's raw answers and reasons).
        written: Rows written, by file.
        excluded: One line per variant that could not be made: its id, reason group and last problem.
        references: References whose variants were written (all of their made variants, or both sets).
    """

    log: str
    written: dict[str, int] = field(default_factory=dict)
    excluded: list[str] = field(default_factory=list)
    references: int = 0


@dataclass(frozen=True)
class Injection:
    """Who makes the variants and how, and where the injector's run is logged.

    Attributes:
        injector: The injector model (Inspect's `injector` role).
        settings: How each variant is made.
        log_dir: Folder of the Inspect log; None: Inspect's default.
        display: Inspect's display mode; None: its default.
    """

    injector: str
    settings: RewriteSettings
    log_dir: str | None = None
    display: str | None = None


def make_variants(
    references: Sequence[ReportPair],
    plan: Sequence[VariantSpec],
    injection: Injection,
) -> tuple[dict[str, VariantOutcome], str]:
    """Run the injector over every planned variant of every reference.

    Returns:
        The outcome of each variant by its id, and the location of the Inspect log.

    Raises:
        RuntimeError: the evaluation did not finish.
    """
    task = Task(
        dataset=planned_samples(references, plan),
        solver=[inject_errors(injection.settings), paraphrase(injection.settings)],
        name="make_variants",
    )
    kwargs: dict[str, Any] = {"log_dir": injection.log_dir} if injection.log_dir else {}
    if injection.display:
        kwargs["display"] = injection.display
    (log,) = inspect_eval(task, model="none", model_roles={INJECTOR_ROLE: injection.injector}, **kwargs)
    if log.status != "success" or log.samples is None:
        raise RuntimeError(f"the injector run ended with status {log.status}: {log.error.message if log.error else ''}")
    outcomes = {str(s.id): VariantOutcome.from_metadata(s.metadata[VARIANT]) for s in log.samples}
    return outcomes, log.location


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def _exclusion(variant_id: str, outcome: VariantOutcome) -> str:
    return f"{variant_id}: {outcome.excluded} ({outcome.detail})"


def perturb(
    references: Sequence[ReportPair],
    plan: Sequence[VariantSpec],
    out: Path,
    injection: Injection,
) -> Made:
    """Write the made variants of `plan` as a variants file for ``judge_sensitivity -T data=``."""
    outcomes, log = make_variants(references, plan, injection)
    made = Made(log=log)
    rows = []
    for ref in references:
        ref_rows = []
        for spec in plan:
            variant_id = spec.variant_id(ref.id)
            outcome = outcomes[variant_id]
            if outcome.text is None:
                made.excluded.append(_exclusion(variant_id, outcome))
            else:
                ref_rows.append(perturb_row(outcome, ref.reference))
        made.references += bool(ref_rows)
        rows += ref_rows
    _write(out, rows)
    made.written[str(out)] = len(rows)
    return made


def sensitivity_set(
    references: Sequence[ReportPair],
    out_dir: Path,
    injection: Injection,
    *,
    edits: int,
) -> Made:
    """Write ``pos.jsonl`` (paraphrases) and ``neg.jsonl`` (attribute edits) for references with both made."""
    pos, neg = VariantSpec("paraphrase"), VariantSpec("attribute", n_changes=edits)
    outcomes, log = make_variants(references, [pos, neg], injection)
    made = Made(log=log)
    specs: dict[SensitivityKind, VariantSpec] = {"pos": pos, "neg": neg}
    rows: dict[SensitivityKind, list[dict[str, Any]]] = {"pos": [], "neg": []}
    for ref in references:
        both = {kind: outcomes[spec.variant_id(ref.id)] for kind, spec in specs.items()}
        failed = [kind for kind, outcome in both.items() if outcome.text is None]
        made.excluded += [_exclusion(specs[kind].variant_id(ref.id), both[kind]) for kind in failed]
        if failed:
            continue
        made.references += 1
        for kind, outcome in both.items():
            rows[kind].append(sensitivity_row(outcome, ref, kind))
    for kind, kind_rows in rows.items():
        path = out_dir / f"{kind}.jsonl"
        _write(path, kind_rows)
        made.written[str(path)] = len(kind_rows)
    return made
