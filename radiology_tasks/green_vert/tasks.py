"""GREEN and VERT: LLM judges that compare a candidate report with its reference.

Specification: "VERT: Reliable LLM Judges for Radiology Report Evaluation" (arXiv 2604.03376), sections 4.1-4.2
and appendices B-D; "GREEN: Generative Radiology Report Evaluation and Error Notation" (Ostmeier et al., 2024,
arXiv 2405.03595).

    inspect eval radiology_tasks/green --model none --model-role grader=llama-cpp/smollm2-135m
    inspect eval radiology_tasks/vert -T prompt=rubric -T data=my_pairs.jsonl --model none \
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B
"""

from __future__ import annotations

from typing import Any, get_args

from inspect_ai import Task, task
from inspect_ai.scorer import Metric

from radiology_tasks.baselines.extras import add_baselines
from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import judge_options
from radiology_tasks.core.loading import OnBadRows
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
from radiology_tasks.core.solvers import DEFAULT_REPORT_MAX_TOKENS, generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, check_report_source, report_dataset
from radiology_tasks.core.unscored import UnscoredPolicy
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
    data: str | None,
    candidates: str | None,
    reports: str | None,
    revision: str | None,
    limit: int | None,
    seed: int | None,
    on_bad_rows: OnBadRows,
    layout: str | None,
    track: str | None,
    image_root: str | None,
    expert_scale: str | None,
    generate: bool,
    report_max_tokens: int,
    shots: int,
    shot_pool: str | None,
    shot_seed: int,
    curated: Curated,
    error_descriptions: bool,
    constrain: ConstrainMode,
    zero_matched: ZeroMatched,
    missing_categories: MissingCategories,
    detail: Detail,
    judge_retries: int,
    unscored: UnscoredPolicy,
    judge_max_tokens: int | None,
    baselines: str | list[str] | None = None,
) -> Task:
    """Build a GREEN-family judge task; `green` and `vert` pass their `-T` parameters through unchanged.

    Every parameter is checked here, once, as `-T` gave it (YAML: ``-T shots=two`` arrives as text). The
    parameters are documented in the `Args:` sections of `green` and `vert`.
    """
    judge = judge_options(
        constrain=constrain, judge_max_tokens=judge_max_tokens, judge_retries=judge_retries, unscored=unscored
    )
    generate = bool_param("generate", generate)
    error_descriptions = bool_param("error_descriptions", error_descriptions)
    report_max_tokens = int_param("report_max_tokens", report_max_tokens, minimum=1, required=True)
    shots = int_param("shots", shots, minimum=0, required=True)
    shot_seed = int_param("shot_seed", shot_seed, required=True)
    shot_pool = text_param("shot_pool", shot_pool)
    for name, value, allowed in (
        ("curated", curated, get_args(Curated)),
        ("zero_matched", zero_matched, get_args(ZeroMatched)),
        ("missing_categories", missing_categories, MISSING_CATEGORIES),
        ("detail", detail, DETAILS),
    ):
        choice_param(name, value, allowed)
    if prompt == "score" and (shots or curated != "none" or error_descriptions):
        raise InputError("the score-only prompt takes no examples or error descriptions (it is the fine-tuning prompt)")
    check_report_source(generate, candidates)
    options = DataOptions(
        data, candidates, reports, revision, limit, seed, on_bad_rows, layout, track, image_root, expert_scale
    )
    # Generating: one sample per study, without the stored candidates and their expert annotations (they describe
    # other reports than the model under test writes), so no agreement with experts is computed.
    dataset, summary = report_dataset(options, require_candidate=not generate, generate=generate)
    require_judge()
    pairs = [ReportPair.model_validate(s.metadata) for s in dataset]
    examples = few_shot_examples(
        shots, with_score=prompt != "green", shot_pool=shot_pool, shot_seed=shot_seed, curated=curated, evaluated=pairs
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
            error_descriptions=error_descriptions,
            constrain=judge.constrain,
            zero_matched=zero_matched,
            missing_categories=missing_categories,
            detail=detail,
            judge_retries=judge.judge_retries,
            unscored=judge.unscored,
            max_tokens=judge.judge_max_tokens,
        ),
        _metrics(score_keys(prompt), pairs, generate),
        baselines,
        unscored=judge.unscored,
        with_expert=any(p.expert and p.expert.score is not None for p in pairs),
    )
    return Task(
        dataset=dataset,
        solver=generate_report(report_max_tokens) if generate else replay_candidate(),
        scorer=scorer,
        metrics=metrics,
        metadata=metadata,
        version=TASK_VERSION,
    )


@task
def green(
    data: str | None = None,
    candidates: str | None = None,
    reports: str | None = None,
    revision: str | None = None,
    limit: int | None = None,
    seed: int | None = None,
    on_bad_rows: OnBadRows = "error",
    layout: str | None = None,
    track: str | None = None,
    image_root: str | None = None,
    expert_scale: str | None = None,
    generate: bool = False,
    report_max_tokens: int = DEFAULT_REPORT_MAX_TOKENS,
    shots: int = 0,
    shot_pool: str | None = None,
    shot_seed: int = 0,
    curated: Curated = "none",
    error_descriptions: bool = False,
    constrain: ConstrainMode = "auto",
    zero_matched: ZeroMatched = "perfect_if_no_errors",
    missing_categories: MissingCategories = "zero",
    detail: Detail = "full",
    judge_retries: int = 1,
    unscored: UnscoredPolicy = "worst",
    judge_max_tokens: int | None = None,
    baselines: str | list[str] | None = None,
) -> Task:
    """GREEN: the judge counts clinically significant/insignificant errors (a)-(f) and matched findings.

    Scores: `green` = M / (M + S), `green_ec` = significant errors (lower is better), `green_f1` = 2M / (2M + S).
    `-T baselines=bleu,rouge_l` adds lexical baselines on the same samples (see the baselines README).

    Args:
        data: Registered dataset name (`radiology-tasks list`), a `.jsonl`/`.csv` file of report pairs or a public
            dataset's own file, or a folder holding a downloaded copy of a public dataset. Not set: the bundled
            `demo` set.
        candidates: The candidates to judge, joined to the data by id: a `.jsonl`/`.csv` file with `id` and
            `candidate`, a ReXrank prediction file, or a generation log (the `.eval` log of the task that only
            writes reports; its generator and settings are recorded). Not set: the data's own candidates.
        reports: Your report file, joined by id, for a dataset that holds questions only (`ct-finebench`).
        revision: Hugging Face revision (commit, tag or `main`) of a registered hub dataset. Not set: the pinned
            commit.
        limit: Number of samples, taken after shuffling when `seed` is set. Not set: all.
        seed: Shuffle the samples with this seed before `limit` applies. Not set: the data's order.
        on_bad_rows: `error` stops at the first bad row, naming file, row and field; `skip` leaves it out, counted
            with its reason in the log (`data.rows_skipped`).
        layout: Read `data` with this layout instead of recognising it from file names and columns: `flat`,
            `rate-eval`, `radeval-expert`, `rexval`, `ct-finebench` or `rexrank`.
        track: For ReXrank prediction files, the reference: `findings` (the findings section, also when not set)
            or `findings_impression` (both sections, joined as ReXrank joins them).
        image_root: Folder the data's image paths are relative to (ReXrank's `--img_root_dir`). Not set: the data
            file's folder.
        expert_scale: `MIN,MAX`: the scale expert scores are read on, replacing the layout's or the file's
            (recorded as `data.expert_scale`). Not set: the layout's or the file's scale.
        generate: `true`: the model under test (`--model`) writes one report per study (pairs sharing a reference
            and its inputs; the sample id is the first pair's) from its indication, findings text and images;
            stored candidates and expert scores go unused, so nothing is compared with experts; `false`: the
            data's candidates are replayed, so `--model none` suffices.
        report_max_tokens: With `generate=true`, the token budget of each generated report; a `--max-tokens` you
            give takes precedence.
        shots: Must stay `0`: pool examples carry an overall expert score, which the GREEN prompt does not ask
            for (use `vert`, or `curated=error-types`).
        shot_pool: Not used by `green` (see `shots`).
        shot_seed: Not used by `green` (see `shots`).
        curated: `error-types` puts the team's six curated examples, one per error category (a)-(f), before any
            pool examples; `none` adds none.
        error_descriptions: `true` adds the team's description of each error category (a)-(f) to the prompt.
        constrain: Constrain the judge's answer to its format: `auto` picks the backend's way where it has one
            (GBNF for llama.cpp, `structured_outputs` for vLLM, a JSON schema for JSON answers elsewhere); `off`;
            or force one request shape: `grammar`, `structured_outputs`, `response_format`.
        zero_matched: GREEN's score when no finding matched (M = 0): `perfect_if_no_errors` gives 1.0 when there
            are no significant errors either, else 0; `original` gives 0, as the original GREEN code does.
        missing_categories: `zero` reads terse answers as GREEN's reference parser does: a category line absent
            from a present error section, or "No errors.", counts 0 (recorded in `filled_categories`); `strict`
            leaves such a section unreadable.
        detail: `full`: the paper's answer, with an explanation and each error described; `brief`: the same
            counts, matched count and score with a few words per error (fewer output tokens).
        judge_retries: Re-asks of an answer that leaves a score unreadable, each with Inspect's cache bypassed, a
            new seed and, for a greedy judge, temperature 0.7; every attempt's answer is kept.
        unscored: A score the judge did not give: `worst` counts it as 0 in the means (error counts stay
            excluded), `exclude` leaves it out.
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (3072 tokens
            for `detail=full`, 1536 for `brief`, 16 for vert's `prompt=score`), above the longest answer the
            contract admits, so a constrained answer always finishes.
        baselines: Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all
            four orders), `bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.
    """
    return judge_task("green", **locals())


@task
def vert(
    prompt: JudgePrompt = "vert",
    data: str | None = None,
    candidates: str | None = None,
    reports: str | None = None,
    revision: str | None = None,
    limit: int | None = None,
    seed: int | None = None,
    on_bad_rows: OnBadRows = "error",
    layout: str | None = None,
    track: str | None = None,
    image_root: str | None = None,
    expert_scale: str | None = None,
    generate: bool = False,
    report_max_tokens: int = DEFAULT_REPORT_MAX_TOKENS,
    shots: int = 0,
    shot_pool: str | None = None,
    shot_seed: int = 0,
    curated: Curated = "none",
    error_descriptions: bool = False,
    constrain: ConstrainMode = "auto",
    zero_matched: ZeroMatched = "perfect_if_no_errors",
    missing_categories: MissingCategories = "zero",
    detail: Detail = "full",
    judge_retries: int = 1,
    unscored: UnscoredPolicy = "worst",
    judge_max_tokens: int | None = None,
    baselines: str | list[str] | None = None,
) -> Task:
    """VERT: the judge counts errors and gives a direct overall accuracy score in [0, 1].

    `-T prompt=formula` asks for M / (M + 2S + 0.5I) instead, `-T prompt=rubric` for a five-band rubric,
    `-T prompt=score` for the score alone (the prompt fine-tuned judges learn from `radiology-tasks export-sft`).

    Args:
        prompt: `vert`: a direct overall score; `formula`: the judge computes M / (M + 2S + 0.5I); `rubric`: five
            score bands; `score`: the score alone, the prompt of judges fine-tuned on `radiology-tasks export-sft`
            data (it takes no examples or error descriptions).
        data: Registered dataset name (`radiology-tasks list`), a `.jsonl`/`.csv` file of report pairs or a public
            dataset's own file, or a folder holding a downloaded copy of a public dataset. Not set: the bundled
            `demo` set.
        candidates: The candidates to judge, joined to the data by id: a `.jsonl`/`.csv` file with `id` and
            `candidate`, a ReXrank prediction file, or a generation log (the `.eval` log of the task that only
            writes reports; its generator and settings are recorded). Not set: the data's own candidates.
        reports: Your report file, joined by id, for a dataset that holds questions only (`ct-finebench`).
        revision: Hugging Face revision (commit, tag or `main`) of a registered hub dataset. Not set: the pinned
            commit.
        limit: Number of samples, taken after shuffling when `seed` is set. Not set: all.
        seed: Shuffle the samples with this seed before `limit` applies. Not set: the data's order.
        on_bad_rows: `error` stops at the first bad row, naming file, row and field; `skip` leaves it out, counted
            with its reason in the log (`data.rows_skipped`).
        layout: Read `data` with this layout instead of recognising it from file names and columns: `flat`,
            `rate-eval`, `radeval-expert`, `rexval`, `ct-finebench` or `rexrank`.
        track: For ReXrank prediction files, the reference: `findings` (the findings section, also when not set)
            or `findings_impression` (both sections, joined as ReXrank joins them).
        image_root: Folder the data's image paths are relative to (ReXrank's `--img_root_dir`). Not set: the data
            file's folder.
        expert_scale: `MIN,MAX`: the scale expert scores are read on, replacing the layout's or the file's
            (recorded as `data.expert_scale`). Not set: the layout's or the file's scale.
        generate: `true`: the model under test (`--model`) writes one report per study (pairs sharing a reference
            and its inputs; the sample id is the first pair's) from its indication, findings text and images;
            stored candidates and expert scores go unused, so nothing is compared with experts; `false`: the
            data's candidates are replayed, so `--model none` suffices.
        report_max_tokens: With `generate=true`, the token budget of each generated report; a `--max-tokens` you
            give takes precedence.
        shots: Number of pool examples (reference, candidate, expert score) drawn from `shot_pool` into the
            prompt.
        shot_pool: Dataset name or file with `candidate` and `expert_score` to draw the examples from; pairs being
            evaluated are excluded by id and by text.
        shot_seed: Seed of the draw from `shot_pool`.
        curated: `error-types` puts the team's six curated examples, one per error category (a)-(f), before any
            pool examples; `none` adds none.
        error_descriptions: `true` adds the team's description of each error category (a)-(f) to the prompt.
        constrain: Constrain the judge's answer to its format: `auto` picks the backend's way where it has one
            (GBNF for llama.cpp, `structured_outputs` for vLLM, a JSON schema for JSON answers elsewhere); `off`;
            or force one request shape: `grammar`, `structured_outputs`, `response_format`.
        zero_matched: GREEN's score when no finding matched (M = 0): `perfect_if_no_errors` gives 1.0 when there
            are no significant errors either, else 0; `original` gives 0, as the original GREEN code does.
        missing_categories: `zero` reads terse answers as GREEN's reference parser does: a category line absent
            from a present error section, or "No errors.", counts 0 (recorded in `filled_categories`); `strict`
            leaves such a section unreadable.
        detail: `full`: the paper's answer, with an explanation and each error described; `brief`: the same
            counts, matched count and score with a few words per error (fewer output tokens).
        judge_retries: Re-asks of an answer that leaves a score unreadable, each with Inspect's cache bypassed, a
            new seed and, for a greedy judge, temperature 0.7; every attempt's answer is kept.
        unscored: A score the judge did not give: `worst` counts it as 0 in the means (error counts stay
            excluded), `exclude` leaves it out.
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (3072 tokens
            for `detail=full`, 1536 for `brief`, 16 for vert's `prompt=score`), above the longest answer the
            contract admits, so a constrained answer always finishes.
        baselines: Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all
            four orders), `bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.
    """
    if prompt == "green":
        raise InputError("use the green task for the GREEN prompt; vert takes prompt=vert|formula|rubric|score")
    choice_param("prompt", prompt, [p for p in JUDGE_PROMPTS if p != "green"])
    return judge_task(**locals())
