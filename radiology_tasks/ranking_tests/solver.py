"""The ranking task's solver: nothing to generate, the candidates are the case's own texts."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def cases_as_given() -> Solver:
    """No generation: the candidates are the case's own texts, scored as they are."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return state

    return solve
