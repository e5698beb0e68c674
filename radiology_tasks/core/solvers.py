"""Solvers that put a candidate report into the task state: replayed from data, or written by the model."""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from radiology_tasks.core.records import ReportPair
from solvers.report_input import generation_messages

REPLAY_MODEL = "replay"


@solver
def replay_candidate() -> Solver:
    """Use the candidate report stored with the sample (from the data or `-T candidates=FILE`).

    No model is called: run it with `--model none` and bind the judge with `--model-role grader=...`.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pair = state.metadata_as(ReportPair)
        if pair.candidate is None:
            raise ValueError(
                f"sample '{pair.id}', field 'candidate': no candidate report to replay; "
                "add a candidate column, pass -T candidates=FILE, or use -T generate=true"
            )
        state.output = ModelOutput.from_content(model=REPLAY_MODEL, content=pair.candidate)
        state.messages.append(ChatMessageAssistant(content=pair.candidate, model=REPLAY_MODEL))
        return state

    return solve


@solver
def generate_report() -> Solver:
    """Have the model under test write the report from the sample's indication, findings text and images."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pair = state.metadata_as(ReportPair)
        state.messages = list(await generation_messages(pair))
        return await generate(state)

    return solve
