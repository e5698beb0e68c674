"""Chat-format fine-tuning data for a score-only judge (VERT section 4.1.4).

Each expert-rated report pair becomes one conversation: the user turn states the task and gives
both reports (template ``sft_judge``), the assistant turn is the expert score normalised to
[0, 1] with one decimal. The pairs are split into ``train.jsonl`` and ``validation.jsonl`` (the layout that
TRL, Axolotl and similar trainers read) by reference, as ``export-sft --variants`` splits its variants
(`variant_split.split_by_reference`): the pairs of one reference text (several candidates of one study) all go
to the same file, so a judge is never validated on a reference it was trained on. The written folder is read
back (`variant_check.reference_leaks`); files that put a reference in both are removed and the export fails.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity.variant_check import reference_leaks
from radiology_tasks.judge_sensitivity.variant_split import group_by_reference, split_by_reference
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

SFT_TEMPLATE = "green_vert/sft_judge"


@dataclass(frozen=True)
class SftExport:
    """What `export_sft` wrote.

    Attributes:
        train: Path of ``train.jsonl``.
        validation: Path of ``validation.jsonl``.
        n_train: Conversations in the training file.
        n_validation: Conversations in the validation file.
        train_references: Distinct references in the training file.
        validation_references: Distinct references in the validation file.
        skipped: Ids of the pairs left out, with the reason (only with ``skip_incomplete``).
    """

    train: Path
    validation: Path
    n_train: int
    n_validation: int
    train_references: int = 0
    validation_references: int = 0
    skipped: dict[str, str] = field(default_factory=dict)


def score_label(score: float) -> str:
    """A normalised score as the assistant answers it: one decimal, halves rounded up (0.25 -> "0.3")."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"a normalised score must lie in [0, 1], got {score}")
    return str(Decimal(str(float(score))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def sft_conversation(pair: ReportPair) -> dict[str, Any]:
    """The chat-format training example of one report pair.

    Raises:
        ValueError: When the pair has no candidate report or no expert score (naming its id).
    """
    score = pair.expert.normalized_score if pair.expert else None
    if pair.candidate is None or score is None:
        raise ValueError(f"pair {pair.id}: {_incomplete(pair)}")
    # The same neutralisation as the judge prompts, so training and judging see the same text.
    prompt = render(
        SFT_TEMPLATE,
        reference=neutralize_candidate(pair.reference),
        candidate=neutralize_candidate(pair.candidate),
    )
    answer = score_label(score)
    return {
        "messages": [
            {"role": "user", "content": prompt.strip()},
            {"role": "assistant", "content": answer},
        ]
    }


def export_sft(
    pairs: Sequence[ReportPair],
    out_dir: Path,
    *,
    val_fraction: float = 0.1,
    seed: int = 0,
    skip_incomplete: bool = False,
) -> SftExport:
    """Write ``train.jsonl`` and ``validation.jsonl`` of chat-format judge examples.

    Args:
        pairs: Expert-rated report pairs, each with a candidate report.
        out_dir: Directory to write into (created if needed; existing files are replaced).
        val_fraction: Share of the references (not of the pairs), rounded to a whole number, whose pairs go to
            the validation file.
        seed: Seed of the shuffle of the references.
        skip_incomplete: Leave out pairs without a candidate or an expert score and list them in
            `SftExport.skipped`, instead of raising.

    Returns:
        The paths written and how many conversations each holds.

    Raises:
        ValueError: On an incomplete pair (unless skipped), a repeated id, no usable pair, a `val_fraction`
            outside [0, 1) or one that leaves no reference for training.
        RuntimeError: The files written put one reference in both files (the read-back check).
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction must lie in [0, 1), got {val_fraction}")
    usable, skipped = _usable(pairs, skip_incomplete=skip_incomplete)

    # Written in the shuffled order, as before the split went by reference: with one pair per reference the
    # files are the same as a split by pair.
    split = split_by_reference(usable, val_fraction, seed, groups=_by_reference_text, shuffled_order=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    train = _write(out_dir / "train.jsonl", split.train)
    validation = _write(out_dir / "validation.jsonl", split.validation)
    leaks = reference_leaks({"train": train, "validation": validation})
    if leaks:
        train.unlink()
        validation.unlink()
        raise RuntimeError(f"the files written put a reference in both, so they were removed: {'; '.join(leaks[:5])}")
    return SftExport(
        train=train,
        validation=validation,
        n_train=len(split.train),
        n_validation=len(split.validation),
        train_references=split.train_references,
        validation_references=split.validation_references,
        skipped=skipped,
    )


def _usable(pairs: Sequence[ReportPair], *, skip_incomplete: bool) -> tuple[list[ReportPair], dict[str, str]]:
    """The pairs that can become examples, and (with `skip_incomplete`) the others' ids with the reason.

    Raises:
        ValueError: On a repeated id, an incomplete pair (unless skipped) or no usable pair.
    """
    seen: set[str] = set()
    usable: list[ReportPair] = []
    skipped: dict[str, str] = {}
    incomplete: list[str] = []
    for pair in pairs:
        if pair.id in seen:
            raise ValueError(f"pair id {pair.id} appears more than once")
        seen.add(pair.id)
        reason = _incomplete(pair)
        if reason is None:
            usable.append(pair)
        elif skip_incomplete:
            skipped[pair.id] = reason
        else:
            incomplete.append(f"{pair.id} ({reason})")
    if incomplete:
        raise ValueError(f"{len(incomplete)} pairs cannot become training examples: {'; '.join(incomplete)}")
    if not usable:
        raise ValueError("no pair has both a candidate report and an expert score")
    return usable, skipped


def _by_reference_text(pairs: Sequence[ReportPair]) -> list[list[ReportPair]]:
    """The pairs grouped by reference text (whitespace and case folded): one group per study."""
    return group_by_reference(pairs, lambda pair: pair.reference)


def _incomplete(pair: ReportPair) -> str | None:
    """Why a pair cannot be a training example, or None."""
    if pair.candidate is None:
        return "no candidate report"
    if pair.expert is None or pair.expert.score is None:
        return "no expert score"
    return None


def _write(path: Path, pairs: Sequence[ReportPair]) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(sft_conversation(pair), ensure_ascii=False) + "\n")
    return path
