"""Judge sensitivity: does a judge catch injected clinical errors and let harmless rewording pass?

Specification: "VERT: Reliable LLM Judges for Radiology Report Evaluation" (arXiv 2604.03376), sections 4.2
and 5.2, appendix F (error injection, plausibility check) and appendix C (per-type detection F1); and "Beyond
Scalar Scores: Exploring LLM-based Metrics for Clinical Significance Evaluation in Radiology Reports" (Lu et al.,
on the ReEvalMed benchmark; abstract): discrimination against robustness, one pass against two.

    inspect eval radiology_tasks/judge_sensitivity --model none \\
        --model-role injector=llama-cpp/smollm2-135m --model-role grader=llama-cpp/smollm2-135m -T limit=2
    radiology-tasks perturb --injector openai/gpt-4.1 --out variants.jsonl
    inspect eval radiology_tasks/judge_sensitivity -T data=variants.jsonl -T passes=2 --model none \\
        --model-role grader=openai/gpt-4.1-mini
"""

from __future__ import annotations

from inspect_ai import Task, task

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge, require_role
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.loading import load_options
from radiology_tasks.core.params import int_param
from radiology_tasks.core.task_data import DataOptions, data_fingerprint
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.judge_sensitivity.dataset import (
    VariantSamples,
    distinct_references,
    file_samples,
    is_variants_file,
    pick,
    planned_samples,
)
from radiology_tasks.judge_sensitivity.family import FAMILY
from radiology_tasks.judge_sensitivity.plan import VariantOptions
from radiology_tasks.judge_sensitivity.rewrite import INJECTOR_ROLE, NO_INJECTOR_MESSAGE
from radiology_tasks.judge_sensitivity.run_metrics import sensitivity_metrics
from radiology_tasks.judge_sensitivity.scorer import SensitivityPrompt, sensitivity_judge
from radiology_tasks.judge_sensitivity.solvers import inject_errors, paraphrase
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.templates import template_hashes

TASK_VERSION = FAMILY.version


def _samples(options: DataOptions, variants: VariantOptions) -> VariantSamples:
    """The variants to judge: read from a variants file, or planned for the injector to make."""
    loaded = load_options(options)
    recorded = {**loaded.summary(), "fingerprint": data_fingerprint(options, loaded.data)}
    if is_variants_file(loaded):
        given = variants.changed()
        if given:
            raise InputError(
                f"{', '.join(given)} shape variants the injector makes; {loaded.source} holds ready-made variants "
                "(make others with radiology-tasks perturb)"
            )
        samples = file_samples(loaded, on_bad_rows=options.on_bad_rows, seed=options.seed, limit=options.limit)
        # `data.samples` is the count a leaderboard without the data checks a redacted run's samples against.
        recorded["samples"] = len(samples.dataset)
        return VariantSamples(
            samples.dataset, {"data": recorded, **samples.summary}, True, samples.categories, samples.max_n
        )
    require_role(INJECTOR_ROLE, NO_INJECTOR_MESSAGE)
    references = pick(distinct_references(loaded.pairs), seed=options.seed, limit=options.limit)
    plan = variants.plan()
    dataset = planned_samples(references, plan)
    summary = {"data": {**recorded, "samples": len(dataset)}, "references": len(references), "variants": len(dataset)}
    errors = [spec for spec in plan if spec.kind == "error"]
    categories = tuple(dict.fromkeys(str(spec.category) for spec in errors))
    return VariantSamples(dataset, summary, False, categories, max((s.n_changes for s in errors), default=0))


@task
@shared_parameters(
    variants=shared(VariantOptions),
    data=shared(DataOptions, only=["data", "revision", "limit", "seed", "on_bad_rows", "layout"]),
    judge=shared(JudgeOptions),
    reading=shared(ReadingOptions),
)
def judge_sensitivity(
    prompt: SensitivityPrompt = "vert",
    passes: int = 1,
    *,
    variants: VariantOptions,
    data: DataOptions,
    judge: JudgeOptions,
    reading: ReadingOptions,
) -> Task:
    """Judge sensitivity: discrimination of injected errors, robustness to paraphrase, count recovery, F1.

    The `injector` role puts 1..max_errors clinically significant errors of each type in `categories`
    (default a,b) into each reference and paraphrases it; the `grader` role judges every variant against
    its reference with the GREEN/VERT `prompt`, in one pass or (`passes=2`) listing then classifying the
    differences. `limit` counts references. With `data` a variants file (`radiology-tasks perturb`), the
    variants are read from it and the injector is not called.

    Args:
        prompt: The judge prompt: `green`, `vert`, `formula` or `rubric`, as in `green`/`vert` (the score-only
            prompt counts no errors and is refused).
        passes: `1`: the judge answers with the GREEN/VERT prompt; `2`: it first lists the differences, then
            classifies them with that prompt.
        data: References to make variants of (a dataset name, file or folder; candidates and expert annotations
            are ignored), or a variants file (`radiology-tasks perturb`), judged as it is: no injector call, and
            the variant-making parameters above must keep their defaults. Not set: the bundled `demo` set.
        limit: Number of distinct references (each keeps all its variants), taken after shuffling when `seed` is
            set. Not set: all.
        seed: Shuffles the references and seeds the injector (each variant's seed comes from it and the variant
            id). Not set: the data's order and injector seed 0.
        constrain: Constrain the judge's and the injector's answers to their format: `auto` picks the backend's
            way where it has one; `off`; or force one request shape: `grammar`, `structured_outputs`,
            `response_format`.
        judge_max_tokens: Upper bound on the judge's GREEN/VERT answer (with `passes=2` the classifying one; the
            list of differences keeps its contract's budget). Not set: the contract's budget, 3072 tokens for
            `detail=full`, 1536 for `brief`.
    """
    passes = int_param("passes", passes, required=True)
    require_judge()
    settings = variants.settings(judge.constrain, data.seed or 0)
    scorer = sensitivity_judge(prompt, passes=passes, judge=judge, reading=reading)
    samples = _samples(data, variants)
    metadata = {
        **samples.summary,
        "variants_from": "data" if samples.from_data else "injector",
        "categories": list(samples.categories),
        "max_errors": samples.max_n,
        "prompt": prompt,
        "passes": passes,
        "templates": template_hashes("judge_sensitivity") | template_hashes("green_vert"),
    }
    return Task(
        dataset=samples.dataset,
        solver=[inject_errors(settings), paraphrase(settings)],
        scorer=scorer,
        metrics=[*sensitivity_metrics(prompt, samples.categories, samples.max_n).headline],
        metadata=metadata,
        version=TASK_VERSION,
    )
