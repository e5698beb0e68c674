"""The `export-sft` subcommand of `radiology-tasks`: chat-format training data for the GREEN/VERT judge, from
`perturb`'s variants (each answer known by construction) or from expert-scored report pairs."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from radiology_tasks.core.cli_args import positive_int, share

_VARIANT_SFT_OPTIONS = (
    "prompt",
    "detail",
    "passes",
    "exclude",
    "max_per_reference",
    "balance_categories",
    "paraphrase_share",
    "on_bad_rows",
)
_PAIR_SFT_OPTIONS = ("candidates", "revision", "skip_incomplete")


def _only_with(args: argparse.Namespace, names: Sequence[str], source: str) -> None:
    given = [name for name in names if getattr(args, name) not in (None, False)]
    if given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ValueError(f"{options} applies only with {source}")


def _export_variant_sft(args: argparse.Namespace) -> int:
    from radiology_tasks.judge_sensitivity.variant_export import ExportOptions, export_variant_sft
    from radiology_tasks.judge_sensitivity.variant_sft import PromptSettings

    _only_with(args, _PAIR_SFT_OPTIONS, "--data")
    settings = PromptSettings(prompt=args.prompt or "vert", detail=args.detail or "full", passes=args.passes or 1)
    options = ExportOptions(
        settings=settings,
        exclude=tuple(args.exclude or ()),
        val_fraction=args.val_fraction,
        seed=args.seed,
        max_per_reference=args.max_per_reference,
        balance_categories=args.balance_categories,
        paraphrase_share=args.paraphrase_share,
        on_bad_rows=args.on_bad_rows or "error",
    )
    result = export_variant_sft(args.variants, Path(args.out), options)
    manifest = result.manifest
    for name in ("train", "validation"):
        part = manifest["splits"][name]
        print(
            f"wrote {part['examples']} conversations to {result.files[name]} "
            f"({part['variants']} variants of {part['references']} references)"
        )
    left_out = manifest["left_out"]
    overlap = left_out["evaluation_overlap"]
    if options.exclude:
        print(
            f"left out {overlap['references']} references ({overlap['variants']} variants) that the evaluation sets "
            f"hold: {overlap['by_id']} by id, {overlap['by_text']} by text"
        )
    for row in left_out["changed_facts"]["variants"]:
        print(f"left out {row['file']} {row['id']}: {row['problem']} ({row['detail']})")
    for problem, count in left_out["changed_facts"]["by_problem"].items():
        print(f"left out {count} variants that fail the fact checks: {problem}")
    for reason, count in left_out["no_known_answer"].items():
        print(f"left out {count} variants without a known answer: {reason}")
    for control in ("max_per_reference", "balance_categories", "paraphrase_share"):
        if control in left_out:
            print(f"left out {left_out[control]} variants by --{control.replace('_', '-')}")
    for row in left_out["bad_rows"]:
        print(f"skipped {row['file']} {row['id']}: {row['reason']}")
    print(f"wrote the manifest to {result.files['manifest']}")
    print(
        f"checked {result.checked} conversations: each answer reads back to its variant's known counts, "
        "and no reference is in both files"
    )
    return 0


def _export_sft(args: argparse.Namespace) -> int:
    from radiology_tasks.core.loading import load_pairs
    from radiology_tasks.judge_sensitivity.sft_export import export_sft

    if args.variants:
        return _export_variant_sft(args)
    _only_with(args, _VARIANT_SFT_OPTIONS, "--variants")
    pairs = load_pairs(args.data, candidates=args.candidates, revision=args.revision).pairs
    result = export_sft(
        pairs, Path(args.out), val_fraction=args.val_fraction, seed=args.seed, skip_incomplete=args.skip_incomplete
    )
    print(f"wrote {result.n_train} conversations to {result.train}")
    print(f"wrote {result.n_validation} conversations to {result.validation}")
    for pair_id, reason in result.skipped.items():
        print(f"skipped {pair_id}: {reason}")
    return 0


def add_export_sft(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `export-sft` to the `radiology-tasks` parser."""
    sft = commands.add_parser("export-sft", help="write chat-format JSONL to fine-tune a judge (LoRA)")
    source = sft.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", help="dataset name or file with candidate and expert_score")
    source.add_argument(
        "--variants", nargs="+", metavar="FILE", help="variants files (radiology-tasks perturb): known answers"
    )
    sft.add_argument("--candidates", help="candidate file joined by id")
    sft.add_argument("--revision", help="dataset revision (Hugging Face datasets)")
    sft.add_argument("--out", required=True, help="output directory for train.jsonl and validation.jsonl")
    sft.add_argument("--val-fraction", type=float, default=0.1)
    sft.add_argument("--seed", type=int, default=0)
    sft.add_argument(
        "--skip-incomplete", action="store_true", help="leave out pairs without candidate or expert score (listed)"
    )
    sft.add_argument(
        "--prompt", choices=["vert", "green", "score"], help="with --variants: the judge prompt (default vert)"
    )
    sft.add_argument("--detail", choices=["full", "brief"], help="with --variants: the answers' detail (default full)")
    sft.add_argument(
        "--passes", type=int, choices=[1, 2], help="with --variants: 2 for judge_sensitivity's two-pass judge"
    )
    sft.add_argument(
        "--exclude", nargs="+", metavar="DATA", help="with --variants: leave out references these evaluation sets hold"
    )
    sft.add_argument(
        "--max-per-reference", type=positive_int, help="with --variants: keep at most N variants of a reference"
    )
    sft.add_argument(
        "--balance-categories",
        action="store_true",
        help="with --variants: as many variants of each error category as the rarest has",
    )
    sft.add_argument(
        "--paraphrase-share", type=share, help="with --variants: share of paraphrases among the variants kept"
    )
    sft.add_argument(
        "--on-bad-rows", choices=["error", "skip"], help="with --variants: stop at a bad row (error) or list it (skip)"
    )
    sft.set_defaults(run=_export_sft)
