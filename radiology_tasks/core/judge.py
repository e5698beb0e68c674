"""Finding the judge model: Inspect's `grader` role, falling back to `--model` as Inspect does."""

from __future__ import annotations

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import Model, get_model

GRADER_ROLE = "grader"

NO_JUDGE_MESSAGE = (
    "No judge model is bound: the task runs with --model none and no 'grader' role. Bind a judge with "
    "--model-role grader=<model>, for example grader=llama-cpp/smollm2-135m (embedded, "
    "no API key), grader=vllm/<hf-model> or grader=openai-api/<service>/<model>."
)


def grader_model() -> Model:
    """The judge for this evaluation.

    Raises:
        PrerequisiteError: neither a grader role nor a real `--model` is bound.
    """
    model = get_model(role=GRADER_ROLE)
    if str(model) == "none/none":
        raise PrerequisiteError(NO_JUDGE_MESSAGE)
    return model
