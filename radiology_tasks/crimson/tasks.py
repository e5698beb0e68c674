"""CRIMSON: a clinically grounded judge lists and weighs abnormal findings; the score is computed from them in code.

Specification: "CRIMSON: A Clinically-Grounded LLM-Based Metric for Generative Radiology Report Evaluation"
(arXiv 2603.06183) and its authors' public code (`crimson-score` 0.2.0): the judge lists the abnormal findings of
both reports with their clinical significance for the patient (age, indication), matches them, and lists false
findings, missing findings and attribute errors; the score, in (-1, 1], weighs each finding by its significance
and gives partial credit to matched findings with attribute errors (`scorers.crimson.score`).

    inspect eval radiology_tasks/crimson --model none --model-role grader=llama-cpp/smollm2-135m -T limit=6
    inspect eval radiology_tasks/crimson -T data=pairs.jsonl -T guidelines=false --model none \
        --model-role grader=openai-api/vllm/rajpurkarlab/medgemma-4b-it-crimson
"""

from __future__ import annotations

from inspect_ai import Task, task

from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import ExpertPresence
from radiology_tasks.core.params import bool_param
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.crimson.context import patient_context
from radiology_tasks.crimson.family import FAMILY
from radiology_tasks.crimson.run_metrics import crimson_metrics
from radiology_tasks.crimson.scorer import crimson_judge
from radiology_tasks.templates import template_hashes

TASK_VERSION = FAMILY.version


@task
@shared_parameters(data=shared(DataOptions), judge=shared(JudgeOptions))
def crimson(guidelines: bool = True, *, data: DataOptions, judge: JudgeOptions) -> Task:
    """CRIMSON: the judge lists, weighs and matches abnormal findings; `crimson` in (-1, 1] is computed from them.

    The patient's age (a data column `age`, `patient_age` or `PatientAge`), sex (`sex`, `patient_sex`,
    `PatientSex` or `gender`) and indication (`indication`) go into the prompt where the data has them; each
    score's metadata records them as given, or None. RadPref's folder, as its authors publish it, is read as it is
    (`-T data=RadPref/`).

    Args:
        guidelines: Include the rating guidelines in the prompt (typical significance ratings, attribute error
            severities, how the patient's context shifts them). Set `false` for the authors' fine-tuned judge
            (`rajpurkarlab/medgemma-4b-it-crimson`), which was trained without them.
        judge_max_tokens: Upper bound on the judge's answer. Not set: the output contract's budget (5,953 tokens),
            above the longest answer its grammar admits.
        judge_retries: Re-asks of an answer that does not read (broken JSON, a label or id outside the contract,
            lists that contradict each other).
        unscored: A pair the judge gave no readable answer for: `worst` counts it as -1, the bottom of CRIMSON's
            range, `exclude` leaves it out of the means.
    """
    guidelines = bool_param("guidelines", guidelines)
    dataset, summary, pairs = report_dataset(data, require_candidate=True)
    require_judge()
    # The experts rated the data's own candidates: not those of -T candidates, nor reports written in the run.
    with_expert = not (data.candidates or data.generate)
    experts = ExpertPresence.of_pairs(pairs) if with_expert else ExpertPresence.of_pairs([])
    metrics = crimson_metrics(experts, generate=data.generate).headline
    contexts = [patient_context(p) for p in pairs]
    return Task(
        dataset=dataset,
        solver=generate_report(data.report_max_tokens) if data.generate else replay_candidate(),
        scorer=crimson_judge(guidelines=guidelines, expert=with_expert, judge=judge),
        metrics=[*metrics],
        metadata={
            "data": summary,
            "patient_context": {
                "with_age": sum(1 for c in contexts if c["age"]),
                "with_sex": sum(1 for c in contexts if c["sex"]),
                "with_indication": sum(1 for c in contexts if c["indication"]),
                "pairs": len(contexts),
            },
            "templates": template_hashes("crimson"),
        },
        version=TASK_VERSION,
    )
