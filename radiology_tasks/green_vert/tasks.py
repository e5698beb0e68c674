"""GREEN and VERT: LLM judges that compare a candidate report with its reference.

Specification: "VERT: Reliable LLM Judges for Radiology Report Evaluation" (arXiv 2604.03376), sections 4.1-4.2
and appendices B-D; "GREEN: Generative Radiology Report Evaluation and Error Notation" (Ostmeier et al., 2024,
arXiv 2405.03595).

    inspect eval radiology_tasks/green --model none --model-role grader=llama-cpp/smollm2-135m
    inspect eval radiology_tasks/vert -T prompt=rubric -T data=my_pairs.jsonl --model none \
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from inspect_ai import Task, task

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import (
    ExpertPresence,
)
from radiology_tasks.core.params import choice_param
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import bundle, shared_parameters
from radiology_tasks.green_vert.family import FAMILY
from radiology_tasks.green_vert.fewshot import few_shot_examples
from radiology_tasks.green_vert.options import ExampleOptions
from radiology_tasks.green_vert.run_metrics import judge_metrics
from radiology_tasks.lexical import BaselineOptions, add_baselines
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.report_judge.scorer import JUDGE_PROMPTS, JudgePrompt, report_judge, score_keys
from radiology_tasks.templates import template_hashes

TASK_VERSION = FAMILY.version


@dataclass(frozen=True)
class JudgeTaskOptions:
    """The option groups `green` and `vert` both take (each field's `-T` parameters), passed on to `judge_task`."""

    data: DataOptions
    judge: JudgeOptions
    reading: ReadingOptions
    examples: ExampleOptions
    beside: BaselineOptions


def judge_task(prompt: JudgePrompt, options: JudgeTaskOptions) -> Task:
    """Build a GREEN-family judge task from the options `green` and `vert` were given (checked when built)."""
    data, judge, examples, beside = options.data, options.judge, options.examples, options.beside
    if prompt == "score" and examples.any:
        raise InputError("the score-only prompt takes no examples or error descriptions (it is the fine-tuning prompt)")
    # Generating: one sample per study, without the stored candidates and their expert annotations (they describe
    # other reports than the model under test writes), so no agreement with experts is computed.
    dataset, summary, pairs = report_dataset(data, require_candidate=True)
    require_judge()
    shown = few_shot_examples(examples, with_score=prompt != "green", evaluated=pairs)
    metadata: dict[str, object] = {
        "data": summary,
        "few_shot_examples": len(shown),
        "templates": template_hashes("green_vert"),
    }
    scorer = add_baselines(
        report_judge(
            prompt, judge=judge, reading=options.reading, examples=shown, error_descriptions=examples.error_descriptions
        ),
        beside.baselines,
        unscored=judge.unscored,
    )
    metrics = judge_metrics(
        score_keys(prompt), ExpertPresence.of_pairs(pairs), generate=data.generate, baselines=beside.baselines
    )
    return Task(
        dataset=dataset,
        solver=generate_report(data.report_max_tokens) if data.generate else replay_candidate(),
        scorer=scorer,
        metrics=[*metrics.headline],
        metadata=metadata,
        version=TASK_VERSION,
    )


@task
@shared_parameters(options=bundle(JudgeTaskOptions))
def green(*, options: JudgeTaskOptions) -> Task:
    """GREEN: the judge counts clinically significant/insignificant errors (a)-(f) and matched findings.

    Scores: `green` = M / (M + S), `green_ec` = significant errors (lower is better), `green_f1` = 2M / (2M + S).
    `-T baselines=bleu,rouge_l` adds lexical baselines on the same samples (see the baselines README).

    Args:
        shots: Must stay `0`: pool examples carry an overall expert score, which the GREEN prompt does not ask
            for (use `vert`, or `curated=error-types`).
        shot_pool: Not used by `green` (see `shots`).
        shot_seed: Not used by `green` (see `shots`).
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (3072 tokens
            for `detail=full`, 1536 for `brief`, 16 for vert's `prompt=score`), above the longest answer the
            contract admits, so a constrained answer always finishes.
    """
    return judge_task("green", options)


@task
@shared_parameters(options=bundle(JudgeTaskOptions))
def vert(prompt: JudgePrompt = "vert", *, options: JudgeTaskOptions) -> Task:
    """VERT: the judge counts errors and gives a direct overall accuracy score in [0, 1].

    `-T prompt=formula` asks for M / (M + 2S + 0.5I) instead, `-T prompt=rubric` for a five-band rubric,
    `-T prompt=score` for the score alone (the prompt fine-tuned judges learn from `radiology-tasks export-sft`).

    Args:
        prompt: `vert`: a direct overall score; `formula`: the judge computes M / (M + 2S + 0.5I); `rubric`: five
            score bands; `score`: the score alone, the prompt of judges fine-tuned on `radiology-tasks export-sft`
            data (it takes no examples or error descriptions).
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (3072 tokens
            for `detail=full`, 1536 for `brief`, 16 for vert's `prompt=score`), above the longest answer the
            contract admits, so a constrained answer always finishes.
    """
    if prompt == "green":
        raise InputError("use the green task for the GREEN prompt; vert takes prompt=vert|formula|rubric|score")
    chosen = cast(JudgePrompt, choice_param("prompt", prompt, [p for p in JUDGE_PROMPTS if p != "green"]))
    return judge_task(chosen, options)
