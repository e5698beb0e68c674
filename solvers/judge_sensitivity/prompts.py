"""The inputs of the variant-making prompts (templates/judge_sensitivity/*.jinja), from a reference pair."""

from __future__ import annotations

from radiology_tasks.core.records import ReportPair
from radiology_tasks.scorers.judge_sensitivity.answers import Change
from radiology_tasks.scorers.judge_sensitivity.contracts import ADDED_CHARS, EXPLANATION_CHARS, paraphrase_chars
from radiology_tasks.scorers.judge_sensitivity.sentences import SplitReport
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec


def _study(pair: ReportPair) -> dict[str, object]:
    return {"modality": pair.modality, "anatomy": pair.anatomy}


def _numbered(reference: SplitReport) -> list[tuple[int, str]]:
    return list(enumerate(reference.sentences))


def injection_inputs(pair: ReportPair, reference: SplitReport, spec: VariantSpec) -> dict[str, object]:
    """Variables of ``judge_sensitivity/inject``: the numbered sentences, the error to make and its limits."""
    return {
        **_study(pair),
        "sentences": _numbered(reference),
        "n_changes": spec.n_changes,
        "category": spec.category if spec.kind == "error" else "attribute",
        "deletions": spec.deletions,
        "added_chars": ADDED_CHARS,
        "explanation_chars": EXPLANATION_CHARS,
    }


def plausibility_inputs(pair: ReportPair, variant: str, changes: list[Change]) -> dict[str, object]:
    """Variables of ``judge_sensitivity/plausibility``: the changed report and each change, in index order."""
    return {**_study(pair), "variant": variant, "changes": sorted(changes, key=lambda c: c.sentence_index)}


def paraphrase_inputs(pair: ReportPair, reference: SplitReport) -> dict[str, object]:
    """Variables of ``judge_sensitivity/paraphrase``: the numbered sentences and each rewrite's length limit."""
    return {
        **_study(pair),
        "sentences": _numbered(reference),
        "limits": [paraphrase_chars(sentence) for sentence in reference.sentences],
    }


def paraphrase_check_inputs(pair: ReportPair, reference: SplitReport, rewrites: dict[int, str]) -> dict[str, object]:
    """Variables of ``judge_sensitivity/paraphrase_check``: original and rewritten sentences, side by side."""
    return {**_study(pair), "sentences": _numbered(reference), "rewrites": sorted(rewrites.items())}
