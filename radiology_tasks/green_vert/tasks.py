"""GREEN and VERT: LLM judges that compare a candidate report with its reference.

Specification: "VERT: Reliable LLM Judges for Radiology Report Evaluation" (arXiv 2604.03376), sections 4.1-4.2
and appendices B-D; "GREEN: Generative Radiology Report Evaluation and Error Notation" (Ostmeier et al., 2024,
arXiv 2405.03595).

    inspect eval radiology_tasks/green --model none --model-role grader=llama-cpp/smollm2-135m
    inspect eval radiology_tasks/vert -T prompt=rubric -T data=my_pairs.jsonl --model none \
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B
"""

from __future__ import annotations

from typing import Any, cast, get_args

from inspect_ai import Task, task
from inspect_ai.scorer import Metric

from radiology_tasks.baselines.extras import add_baselines
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import (
    category_f1,
    error_count_bias,
    expert_agreement,
    judge_calls,
    mean_of,
    parse_failure_rate,
    report_truncated,
)
from radiology_tasks.core.params import bool_param, choice_param, int_param, text_param
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.green_vert.family import FAMILY
from radiology_tasks.green_vert.fewshot import Curated, few_shot_examples
from radiology_tasks.green_vert.scorer import DETAILS, JUDGE_PROMPTS, JudgePrompt, ZeroMatched, report_judge, score_keys
from scorers.green_vert.grammar import Detail
from scorers.green_vert.parse import MISSING_CATEGORIES, MissingCategories
from templates import template_hashes

TASK_VERSION = FAMILY.version


def _metrics(keys: list[str], pairs: list[ReportPair], generate: bool) -> list[Metric]:
    """Means of every score, agreement with experts where the data has it, and the judge's health and cost."""
    metrics: list[Metric] = [mean_of(k) for k in keys]
    if any(p.expert and p.expert.score is not None for p in pairs):
        metrics.append(expert_agreement(keys[0]))
        if "green_ec" in keys:
            metrics.append(expert_agreement("green_ec", higher_is_better=False))
    counted = [p for p in pairs if p.expert and p.expert.significant is not None]
    if counted:
        metrics.append(expert_agreement(keys[0], truth="significant_errors"))
        if "green_ec" in keys:
            metrics.append(expert_agreement("green_ec", higher_is_better=False, truth="significant_errors"))
    # Per-category matches need whole counts: rater means (ReXVal) take part in the agreement above only.
    if "green_ec" in keys and any((p.expert.raters or 1) == 1 for p in counted if p.expert):
        metrics += [category_f1(), error_count_bias()]
    metrics += [parse_failure_rate(keys[0]), judge_calls()]
    if generate:
        metrics.append(report_truncated())
    return metrics


def judge_task(
    prompt: JudgePrompt,
    *,
    shots: object,
    shot_pool: object,
    shot_seed: object,
    curated: object,
    error_descriptions: object,
    zero_matched: object,
    missing_categories: object,
    detail: object,
    baselines: str | list[str] | None,
    data: DataOptions,
    judge: JudgeOptions,
) -> Task:
    """Build a GREEN-family judge task; `green` and `vert` pass their own `-T` values and the shared options.

    The task's own parameters are checked here, once, as `-T` gave them (YAML: ``-T shots=two`` arrives as text);
    they are documented in the `Args:` sections of `green` and `vert`.
    """
    checked_shots = int_param("shots", shots, minimum=0, required=True)
    checked_seed = int_param("shot_seed", shot_seed, required=True)
    pool = text_param("shot_pool", shot_pool)
    with_descriptions = bool_param("error_descriptions", error_descriptions)
    chosen_curated = cast(Curated, choice_param("curated", curated, get_args(Curated)))
    chosen_zero = cast(ZeroMatched, choice_param("zero_matched", zero_matched, get_args(ZeroMatched)))
    chosen_missing = cast(MissingCategories, choice_param("missing_categories", missing_categories, MISSING_CATEGORIES))
    chosen_detail = cast(Detail, choice_param("detail", detail, DETAILS))
    if prompt == "score" and (checked_shots or chosen_curated != "none" or with_descriptions):
        raise InputError("the score-only prompt takes no examples or error descriptions (it is the fine-tuning prompt)")
    # Generating: one sample per study, without the stored candidates and their expert annotations (they describe
    # other reports than the model under test writes), so no agreement with experts is computed.
    dataset, summary, pairs = report_dataset(data, require_candidate=True)
    require_judge()
    examples = few_shot_examples(
        checked_shots,
        with_score=prompt != "green",
        shot_pool=pool,
        shot_seed=checked_seed,
        curated=chosen_curated,
        evaluated=pairs,
    )
    metadata: dict[str, Any] = {
        "data": summary,
        "few_shot_examples": len(examples),
        "templates": template_hashes("green_vert"),
    }
    scorer, metrics = add_baselines(
        report_judge(
            prompt,
            examples=examples,
            error_descriptions=with_descriptions,
            constrain=judge.constrain,
            zero_matched=chosen_zero,
            missing_categories=chosen_missing,
            detail=chosen_detail,
            judge_retries=judge.judge_retries,
            unscored=judge.unscored,
            max_tokens=judge.judge_max_tokens,
        ),
        _metrics(score_keys(prompt), pairs, data.generate),
        baselines,
        unscored=judge.unscored,
        with_expert=any(p.expert and p.expert.score is not None for p in pairs),
    )
    return Task(
        dataset=dataset,
        solver=generate_report(data.report_max_tokens) if data.generate else replay_candidate(),
        scorer=scorer,
        metrics=[*metrics],
        metadata=metadata,
        version=TASK_VERSION,
    )


@task
@shared_parameters(data=shared(DataOptions), judge=shared(JudgeOptions))
def green(
    shots: int = 0,
    shot_pool: str | None = None,
    shot_seed: int = 0,
    curated: Curated = "none",
    error_descriptions: bool = False,
    zero_matched: ZeroMatched = "perfect_if_no_errors",
    missing_categories: MissingCategories = "zero",
    detail: Detail = "full",
    baselines: str | list[str] | None = None,
    *,
    data: DataOptions,
    judge: JudgeOptions,
) -> Task:
    """GREEN: the judge counts clinically significant/insignificant errors (a)-(f) and matched findings.

    Scores: `green` = M / (M + S), `green_ec` = significant errors (lower is better), `green_f1` = 2M / (2M + S).
    `-T baselines=bleu,rouge_l` adds lexical baselines on the same samples (see the baselines README).

    Args:
        shots: Must stay `0`: pool examples carry an overall expert score, which the GREEN prompt does not ask
            for (use `vert`, or `curated=error-types`).
        shot_pool: Not used by `green` (see `shots`).
        shot_seed: Not used by `green` (see `shots`).
        curated: `error-types` puts the team's six curated examples, one per error category (a)-(f), before any
            pool examples; `none` adds none.
        error_descriptions: `true` adds the team's description of each error category (a)-(f) to the prompt.
        zero_matched: GREEN's score when no finding matched (M = 0): `perfect_if_no_errors` gives 1.0 when there
            are no significant errors either, else 0; `original` gives 0, as the original GREEN code does.
        missing_categories: `zero` reads terse answers as GREEN's reference parser does: a category line absent
            from a present error section, or "No errors.", counts 0 (recorded in `filled_categories`); `strict`
            leaves such a section unreadable.
        detail: `full`: the paper's answer, with an explanation and each error described; `brief`: the same
            counts, matched count and score with a few words per error (fewer output tokens).
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (3072 tokens
            for `detail=full`, 1536 for `brief`, 16 for vert's `prompt=score`), above the longest answer the
            contract admits, so a constrained answer always finishes.
        baselines: Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all
            four orders), `bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.
    """
    return judge_task(
        "green",
        shots=shots,
        shot_pool=shot_pool,
        shot_seed=shot_seed,
        curated=curated,
        error_descriptions=error_descriptions,
        zero_matched=zero_matched,
        missing_categories=missing_categories,
        detail=detail,
        baselines=baselines,
        data=data,
        judge=judge,
    )


@task
@shared_parameters(data=shared(DataOptions), judge=shared(JudgeOptions))
def vert(
    prompt: JudgePrompt = "vert",
    shots: int = 0,
    shot_pool: str | None = None,
    shot_seed: int = 0,
    curated: Curated = "none",
    error_descriptions: bool = False,
    zero_matched: ZeroMatched = "perfect_if_no_errors",
    missing_categories: MissingCategories = "zero",
    detail: Detail = "full",
    baselines: str | list[str] | None = None,
    *,
    data: DataOptions,
    judge: JudgeOptions,
) -> Task:
    """VERT: the judge counts errors and gives a direct overall accuracy score in [0, 1].

    `-T prompt=formula` asks for M / (M + 2S + 0.5I) instead, `-T prompt=rubric` for a five-band rubric,
    `-T prompt=score` for the score alone (the prompt fine-tuned judges learn from `radiology-tasks export-sft`).

    Args:
        prompt: `vert`: a direct overall score; `formula`: the judge computes M / (M + 2S + 0.5I); `rubric`: five
            score bands; `score`: the score alone, the prompt of judges fine-tuned on `radiology-tasks export-sft`
            data (it takes no examples or error descriptions).
        shots: Number of pool examples (reference, candidate, expert score) drawn from `shot_pool` into the
            prompt.
        shot_pool: Dataset name or file with `candidate` and `expert_score` to draw the examples from; pairs being
            evaluated are excluded by id and by text.
        shot_seed: Seed of the draw from `shot_pool`.
        curated: `error-types` puts the team's six curated examples, one per error category (a)-(f), before any
            pool examples; `none` adds none.
        error_descriptions: `true` adds the team's description of each error category (a)-(f) to the prompt.
        zero_matched: GREEN's score when no finding matched (M = 0): `perfect_if_no_errors` gives 1.0 when there
            are no significant errors either, else 0; `original` gives 0, as the original GREEN code does.
        missing_categories: `zero` reads terse answers as GREEN's reference parser does: a category line absent
            from a present error section, or "No errors.", counts 0 (recorded in `filled_categories`); `strict`
            leaves such a section unreadable.
        detail: `full`: the paper's answer, with an explanation and each error described; `brief`: the same
            counts, matched count and score with a few words per error (fewer output tokens).
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (3072 tokens
            for `detail=full`, 1536 for `brief`, 16 for vert's `prompt=score`), above the longest answer the
            contract admits, so a constrained answer always finishes.
        baselines: Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all
            four orders), `bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.
    """
    if prompt == "green":
        raise InputError("use the green task for the GREEN prompt; vert takes prompt=vert|formula|rubric|score")
    chosen = cast(JudgePrompt, choice_param("prompt", prompt, [p for p in JUDGE_PROMPTS if p != "green"]))
    return judge_task(
        chosen,
        shots=shots,
        shot_pool=shot_pool,
        shot_seed=shot_seed,
        curated=curated,
        error_descriptions=error_descriptions,
        zero_matched=zero_matched,
        missing_categories=missing_categories,
        detail=detail,
        baselines=baselines,
        data=data,
        judge=judge,
    )
