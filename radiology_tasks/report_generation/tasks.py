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
from importlib.resources import files
from pathlib import Path

from inspect_ai import Task, task

from radiology_tasks.core.loading import OnBadRows
from radiology_tasks.core.params import int_param
from radiology_tasks.core.solvers import DEFAULT_REPORT_MAX_TOKENS, generate_report
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.report_generation.family import FAMILY
from radiology_tasks.report_generation.scorer import generated_report, report_metrics

TASK_VERSION = FAMILY.version

GENERATION_TEMPLATE = "generate_report.jinja"
"""The prompt template the reports are written from (`solvers.report_input.generation_prompt`)."""


def generation_template_hashes() -> dict[str, str]:
    """SHA-256 of the generation prompt template, keyed by its file name, as judge tasks record their own."""
    path = Path(str(files("templates"))) / GENERATION_TEMPLATE
    return {GENERATION_TEMPLATE: hashlib.sha256(path.read_bytes()).hexdigest()}


@task
def report_generation(
    data: str | None = None,
    reports: str | None = None,
    revision: str | None = None,
    limit: int | None = None,
    seed: int | None = None,
    on_bad_rows: OnBadRows = "error",
    layout: str | None = None,
    track: str | None = None,
    image_root: str | None = None,
    expert_scale: str | None = None,
    report_max_tokens: int = DEFAULT_REPORT_MAX_TOKENS,
) -> Task:
    """The model under test writes each study's report from its indication, findings text and images; no judge.

    One sample per study: the data's pairs that share a reference and everything the generator is given are one
    study (several candidates of one study in meta-evaluation data), its sample id the id of its first pair in
    the data; `limit` and `seed` count studies. The log records how many pairs became how many studies
    (`data.studies`).

    Scores per report, with no judge: `words`, `characters`, `output_tokens`, `truncated`, `empty`. A report the
    generator did not write, or wrote empty, is unscored with Inspect's reason `no_response`. Give the log to
    any judge task as `-T candidates=LOG.eval` to judge these very reports.

    Args:
        data: Registered dataset name (`radiology-tasks list`), a `.jsonl`/`.csv` file of report pairs or a public
            dataset's own file, or a folder holding a downloaded copy of a public dataset. Not set: the bundled
            `demo` set.
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
        report_max_tokens: The token budget of each generated report; a `--max-tokens` you give takes precedence.
    """
    report_max_tokens = int_param("report_max_tokens", report_max_tokens, minimum=1, required=True)
    options = DataOptions(
        data, None, reports, revision, limit, seed, on_bad_rows, layout, track, image_root, expert_scale
    )
    # One sample per study; the data's own candidates and their expert scores go unused.
    dataset, summary = report_dataset(options, require_candidate=False, generate=True)
    return Task(
        dataset=dataset,
        solver=generate_report(report_max_tokens),
        scorer=generated_report(),
        metrics=[*report_metrics()],
        metadata={"data": summary, "templates": generation_template_hashes()},
        version=TASK_VERSION,
    )
