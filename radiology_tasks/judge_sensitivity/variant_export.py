"""``radiology-tasks export-sft --variants``: training files with known answers from synthesized report pairs.

The steps, in order: read the variants files; leave out references that an evaluation set holds; leave out, by
reason, a variant whose text does not keep the facts of its reference that code reads (measurements, sides,
lobes, negations, finding words: `scorers.judge_sensitivity.preservation`), which a paraphrase must keep and an
error variant may change only as its error type does, whatever the injector and its checker said, and an error
variant whose candidate is not its reference with exactly the changes it records (``report_mismatch``); make each
variant's examples (`variant_sft`) and leave out, by reason, a variant whose known answer cannot be written or
does not read back; apply the size and balance controls; split by reference (`variant_split`); write

- ``train.jsonl`` and ``validation.jsonl``: one ``{"messages": [user, assistant]}`` conversation a line, the
  layout TRL's SFT trainer, Axolotl and similar trainers read;
- ``train.known.jsonl`` and ``validation.known.jsonl``: line for line, which variant each conversation was made
  from and the numbers its answer states (kept apart, so a trainer sees only the conversations);
- ``manifest.json``: the prompt settings and the task that sends the same prompts, the template hashes, the
  rule the answers follow, the source files' and evaluation sets' SHA-256, and every count of what was kept
  and left out.

Last, `variant_check.check_export` reads the written folder back and must find nothing wrong; otherwise every
file written is removed and the export fails, naming the problems.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from radiology_tasks.core.loading import OnBadRows
from radiology_tasks.judge_sensitivity.rewrite import known_finding_terms
from radiology_tasks.judge_sensitivity.variant_check import check_export
from radiology_tasks.judge_sensitivity.variant_sft import (
    Example,
    NoKnownAnswer,
    PromptSettings,
    Variant,
    VariantsFile,
    check_example,
    read_variants,
    variant_examples,
)
from radiology_tasks.judge_sensitivity.variant_split import (
    EvaluationSets,
    Overlap,
    Split,
    apply_paraphrase_share,
    balance_categories,
    cap_per_reference,
    composition,
    evaluation_sets,
    file_sha256,
    leave_out_evaluation,
    split_by_reference,
)
from radiology_tasks.scorers.judge_sensitivity.preservation import preservation_problem
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from radiology_tasks.templates import template_hashes

MANIFEST_FORMAT = "radiology-tasks variant-sft 1"

TARGET_RULE = {
    "significant": "an error variant: its number of errors in its category (or each category's count); else 0",
    "insignificant": "0",
    "matched": "the reference's sentences the variant leaves as they were: all of a paraphrase's, all but one "
    "per error of an error variant",
    "score": "M / (M + 2S + 0.5I) from those counts, rounded down to one decimal (1.0 without errors)",
    "differences": "two passes, first pass: the injector's explanation of each change; none for a paraphrase",
    "free_text": "a fixed sentence with counts and category letters; no text of either report",
}
"""The rule the known answers follow, as recorded in the manifest (the README explains why)."""


_NOT_AS_IS = ("settings", "exclude")
"""`ExportOptions` fields the manifest's options do not record as they are: the settings are the manifest's prompt,
the excluded sets a list, last."""


@dataclass(frozen=True)
class ExportOptions:
    """What ``export-sft --variants`` writes.

    Attributes:
        settings: The prompt the examples are rendered with.
        exclude: Evaluation sets whose references are left out (dataset names, files or folders).
        val_fraction: Share of the references put in the validation file.
        seed: Seed of every random choice.
        max_per_reference: Most variants kept of one reference; None: all.
        balance_categories: Keep as many variants of each error category as the rarest has.
        paraphrase_share: Share of paraphrases among the variants kept; None: as read.
        on_bad_rows: ``error`` stops at a bad row; ``skip`` leaves it out, listed in the manifest.
    """

    settings: PromptSettings = PromptSettings()
    exclude: tuple[str, ...] = ()
    val_fraction: float = 0.1
    seed: int = 0
    max_per_reference: int | None = None
    balance_categories: bool = False
    paraphrase_share: float | None = None
    on_bad_rows: OnBadRows = "error"

    def __post_init__(self) -> None:
        """Refuse options no export could follow, under the command's option names.

        Raises:
            ValueError: a cap under 1, a paraphrase share outside [0, 1] or a validation share outside [0, 1).
        """
        if self.max_per_reference is not None and self.max_per_reference < 1:
            raise ValueError(f"--max-per-reference must be at least 1, got {self.max_per_reference}")
        if self.paraphrase_share is not None and not 0.0 <= self.paraphrase_share <= 1.0:
            raise ValueError(f"--paraphrase-share must lie in [0, 1], got {self.paraphrase_share}")
        if not 0.0 <= self.val_fraction < 1.0:
            raise ValueError(f"--val-fraction must lie in [0, 1), got {self.val_fraction}")

    def recorded(self) -> dict[str, Any]:
        """The options as the manifest records them: each but the prompt settings (recorded as the prompt's own)."""
        kept = {option.name: getattr(self, option.name) for option in fields(self) if option.name not in _NOT_AS_IS}
        return {**kept, "exclude": list(self.exclude)}


@dataclass(frozen=True)
class VariantExport:
    """What `export_variant_sft` wrote.

    Attributes:
        files: Path of each file written, by name (``train``, ``validation``, ``train_known``, ...).
        manifest: The manifest's content.
        checked: Conversations that `check_export` read back from the files written.
    """

    files: dict[str, Path]
    manifest: dict[str, Any]
    checked: int


def _misplaced(variant: Variant) -> str | None:
    """Why an error variant's candidate is not its reference with exactly its recorded changes, or None.

    Only a row that records where it changed (``perturb``'s ``changes``) can be held to it.
    """
    if variant.changed is None:
        return None
    reference = split_sentences(variant.reference)
    replacements: dict[int, str] = {}
    for index, original, modified in variant.changed:
        if not 0 <= index < len(reference.sentences) or reference.sentences[index] != original:
            return f"change of sentence {index} does not quote a sentence of the reference"
        replacements[index] = modified.strip()
    if not reference.admits(variant.candidate, replacements):
        return "the candidate is not the reference with exactly its recorded changes"
    return None


def _changed_facts(variants: Sequence[Variant]) -> tuple[list[Variant], list[dict[str, str]]]:
    """The variants that keep their reference's facts (as their kind and error types require) and change it only
    where their recorded changes say, and the rest, each with its problem."""
    terms = known_finding_terms()
    kept: list[Variant] = []
    rejected: list[dict[str, str]] = []
    for variant in variants:
        misplaced = _misplaced(variant)
        found = preservation_problem(variant.reference, variant.candidate, variant.errors(), terms)
        if misplaced is not None:
            problem, detail = "report_mismatch", misplaced
        elif found is not None:
            problem, detail = found.problem, found.detail
        else:
            kept.append(variant)
            continue
        rejected.append({"file": variant.file, "id": variant.id, "problem": problem, "detail": detail})
    return kept, rejected


def _usable(variants: Sequence[Variant], settings: PromptSettings) -> tuple[dict[int, list[Example]], Counter[str]]:
    """The examples of each variant whose known answer can be written and reads back, by `id()`; the rest by reason."""
    examples: dict[int, list[Example]] = {}
    unusable: Counter[str] = Counter()
    for variant in variants:
        try:
            made = variant_examples(variant, settings)
        except NoKnownAnswer as error:
            unusable[error.reason] += 1
            continue
        problems = [problem for problem in (check_example(example, settings) for example in made) if problem]
        if problems:
            unusable[problems[0].split(":")[0]] += 1
            continue
        examples[id(variant)] = made
    return examples, unusable


def _write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def _templates(settings: PromptSettings) -> dict[str, str]:
    hashes = template_hashes("green_vert")
    if settings.passes == 2:
        hashes |= template_hashes("judge_sensitivity")
    return hashes


@dataclass
class _Selection:
    """The variants an export keeps, what each makes, and every count of what it left out and why."""

    files: list[VariantsFile]
    sets: EvaluationSets
    variants: list[Variant]
    examples: dict[int, list[Example]]
    overlap: Overlap
    changed: list[dict[str, str]]
    unusable: Counter[str]
    dropped: dict[str, int] = field(default_factory=dict)

    def left_out(self) -> dict[str, Any]:
        """What was left out, by step, as the manifest records it."""
        overlap = self.overlap
        return {
            "bad_rows": [{"file": file.path, **row} for file in self.files for row in file.skipped],
            "evaluation_overlap": {
                "references": overlap.references,
                "variants": overlap.variants,
                "by_id": overlap.by_id,
                "by_text": overlap.by_text,
                "source_ids": overlap.source_ids,
            },
            "changed_facts": {
                "by_problem": dict(sorted(Counter(row["problem"] for row in self.changed).items())),
                "variants": self.changed,
            },
            "no_known_answer": dict(sorted(self.unusable.items())),
            **self.dropped,
        }


def _apply_controls(chosen: _Selection, options: ExportOptions) -> None:
    """Apply the size and balance controls the options set, counting what each drops."""

    def keep(name: str, kept: list[Variant]) -> None:
        chosen.dropped[name], chosen.variants = len(chosen.variants) - len(kept), kept

    if options.max_per_reference is not None:
        keep("max_per_reference", cap_per_reference(chosen.variants, options.max_per_reference, options.seed))
    if options.balance_categories:
        keep("balance_categories", balance_categories(chosen.variants, options.seed))
    if options.paraphrase_share is not None:
        keep("paraphrase_share", apply_paraphrase_share(chosen.variants, options.paraphrase_share, options.seed))


def _select(variant_files: Sequence[str], options: ExportOptions) -> _Selection:
    """Read the files and keep the variants outside the evaluation sets that keep their facts and have a known
    answer, then apply the size and balance controls.

    Raises:
        ValueError: for a bad row (with ``on_bad_rows="error"``) or nothing left to write.
    """
    files = [read_variants(path, on_bad_rows=options.on_bad_rows) for path in variant_files]
    variants = [variant for file in files for variant in file.variants]
    sets = evaluation_sets(options.exclude) if options.exclude else EvaluationSets()
    variants, overlap = leave_out_evaluation(variants, sets) if options.exclude else (variants, Overlap())
    variants, changed = _changed_facts(variants)
    examples, unusable = _usable(variants, options.settings)
    chosen = _Selection(files, sets, [v for v in variants if id(v) in examples], examples, overlap, changed, unusable)
    _apply_controls(chosen, options)
    if not chosen.variants:
        raise ValueError(
            f"no variant is left to write: of {sum(len(file.variants) for file in files)} read, {overlap.variants} "
            f"belong to references of the evaluation sets, {len(changed)} change facts they may not change, "
            f"{sum(unusable.values())} have no known answer ({dict(unusable)}), and the size controls dropped "
            f"{chosen.dropped or 'none'}"
        )
    return chosen


def _write_splits(
    out_dir: Path, split: Split[Variant], examples: dict[int, list[Example]]
) -> tuple[dict[str, Path], dict[str, Any]]:
    """Write each split's conversations and known answers; the paths by name and each split's manifest entry."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    splits: dict[str, Any] = {}
    for name, part in (("train", split.train), ("validation", split.validation)):
        made = [example for variant in part for example in examples[id(variant)]]
        written[name] = _write_jsonl(out_dir / f"{name}.jsonl", [example.conversation() for example in made])
        written[f"{name}_known"] = _write_jsonl(
            out_dir / f"{name}.known.jsonl", [example.record().model_dump() for example in made]
        )
        splits[name] = {
            "file": written[name].name,
            "sha256": file_sha256(written[name]),
            "known_file": written[f"{name}_known"].name,
            "examples": len(made),
            "by_step": dict(sorted(Counter(example.step for example in made).items())),
            **composition(part),
        }
    return written, splits


def _prompt_section(settings: PromptSettings) -> dict[str, Any]:
    """The manifest's prompt: the settings `variant_check` rebuilds, the templates rendered (no examples, no error
    descriptions) and the task that asks the trained judge the same way."""
    return {
        "prompt": settings.prompt,
        "detail": settings.detail,
        "passes": settings.passes,
        "examples": [],
        "error_descriptions": False,
        "templates": settings.templates(),
        "judge_with": settings.task(),
    }


def _manifest(options: ExportOptions, chosen: _Selection, splits: dict[str, Any]) -> dict[str, Any]:
    """The manifest: the prompt, the answers' rule, the templates, the options, the sources and the counts."""
    return {
        "format": MANIFEST_FORMAT,
        "prompt": _prompt_section(options.settings),
        "target_rule": TARGET_RULE,
        "templates": _templates(options.settings),
        "options": options.recorded(),
        "sources": [
            {"path": file.path, "sha256": file_sha256(file.path), "rows": file.rows, "variants": len(file.variants)}
            for file in chosen.files
        ],
        "evaluation_sets": list(chosen.sets.sources),
        "left_out": chosen.left_out(),
        "splits": splits,
    }


def export_variant_sft(variant_files: Sequence[str], out_dir: Path, options: ExportOptions) -> VariantExport:
    """Write the training files, their known-answer records and the manifest into `out_dir`.

    Raises:
        ValueError: for a file that is not a variants file, a bad row (with ``on_bad_rows="error"``), or nothing
            left to write.
        RuntimeError: the files written do not pass their check (they are removed).
    """
    if not variant_files:
        raise ValueError("name at least one variants file")
    chosen = _select(variant_files, options)
    split = split_by_reference(chosen.variants, options.val_fraction, options.seed)
    written, splits = _write_splits(out_dir, split, chosen.examples)
    manifest = _manifest(options, chosen, splits)
    written["manifest"] = out_dir / "manifest.json"
    written["manifest"].write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    check = check_export(out_dir)
    if check.problems:
        for path in written.values():
            path.unlink()
        raise RuntimeError(
            f"the files written do not pass their check, so they were removed: {'; '.join(check.problems[:5])}"
        )
    return VariantExport(written, manifest, check.conversations)
