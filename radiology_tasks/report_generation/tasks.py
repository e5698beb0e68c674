"""`report_generation`: the model under test writes each study's report once, with no judge.

The reports are written exactly as `-T generate=true` writes them in a judge task (same solver, same prompt, same
inputs), and the log is then the candidates of every metric (`-T candidates=LOG.eval`), so each metric judges the
same reports and the generator is asked once per study.

    inspect eval radiology_tasks/report_generation --model openai-api/vllm/my-generator -T data=my_pairs.jsonl
    inspect eval radiology_tasks/green --model none --model-role grader=llama-cpp/smollm2-135m \
        -T data=my_pairs.jsonl -T candidates=logs/<the report_generation log>.eval
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

from inspect_ai import Task, task

from radiology_tasks.core.solvers import generate_report
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.report_generation.family import FAMILY
from radiology_tasks.report_generation.scorer import generated_report, report_metrics

TASK_VERSION = FAMILY.version

GENERATION_TEMPLATE = "generate_report.jinja"
"""The prompt template the reports are written from (`radiology_tasks.core.report_input.generation_prompt`)."""


def generation_template_hashes() -> dict[str, str]:
    """SHA-256 of the generation prompt template, keyed by its file name, as judge tasks record their own."""
    path = Path(str(files("radiology_tasks.templates"))) / GENERATION_TEMPLATE
    return {GENERATION_TEMPLATE: hashlib.sha256(path.read_bytes()).hexdigest()}


@task
@shared_parameters(data=shared(DataOptions, without=["candidates", "generate"]))
def report_generation(
    *,
    data: DataOptions,
) -> Task:
    """The model under test writes each study's report from what the data gives it; no judge.

    Each study is one request: the instruction for the section(s) the reference holds (the `track` of ReXrank
    data), the study, the patient's age and sex, indication and comparison as the data states them, findings
    text, the study's images in the data's order (each introduced with its view where the data names one), and the
    prior study's report and images, marked as the prior's. Every image is checked to exist before the first
    request (`missing_images`); each sample records how many images its request held (`generation.images`,
    `generation.prior_images`) and the log the total (`data.images`).

    One sample per study: the data's pairs that share a reference and everything the generator is given are one
    study (several candidates of one study in meta-evaluation data), its sample id the id of its first pair in
    the data; `limit` and `seed` count studies. The log records how many pairs became how many studies
    (`data.studies`).

    Scores per report, with no judge: `words`, `characters`, `output_tokens`, `truncated`, `empty`. A report the
    generator did not write, or wrote empty, is unscored with Inspect's reason `no_response`. Give the log to
    any judge task as `-T candidates=LOG.eval` to judge these very reports.

    Args:
        report_max_tokens: The token budget of each generated report; a `--max-tokens` you give takes precedence.
    """
    # One sample per study; the data's own candidates and their expert scores go unused.
    dataset, summary, _ = report_dataset(replace(data, generate=True), require_candidate=False)
    return Task(
        dataset=dataset,
        solver=generate_report(data.report_max_tokens),
        scorer=generated_report(),
        metrics=[*report_metrics().headline],
        metadata={"data": summary, "templates": generation_template_hashes()},
        version=TASK_VERSION,
    )
