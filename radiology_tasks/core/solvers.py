"""Solvers that put a candidate report into the task state: replayed from data, or written by the model."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, ModelOutput, StopReason, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.generation_log import PAIR_KEY, generator_of
from radiology_tasks.core.inspect_compat import active_generate_config
from radiology_tasks.core.judge import rejected_request, stopped_at_budget
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.report_input import generation_messages

REPLAY_MODEL = "replay"

DEFAULT_REPORT_MAX_TOKENS = 1536
"""Token budget of one generated report unless ``--max-tokens`` is given.

The longest real reports, CT of the chest, abdomen and pelvis, run to about 600-900 words; English clinical
text takes roughly 1.3-1.5 tokens per word, so about 1,300 tokens at most. 1536 leaves headroom for those while
stopping a generator stuck in a loop long before its report could crowd the reference out of the judge's
context."""

REPLAYED_STORY = (
    "The candidate report in the next message was judged against the reference report below (the target) by this "
    "task's scorer (in a judge task, the grader model). No model wrote the candidate in this run: it is the report "
    "under test, as {source} gives it. Each score, with the judge's answer it was read from, is in the Scoring "
    "tab; the judge's whole exchange is in the Transcript tab."
)
"""The user turn of a replayed sample, above the reference: what is judged, against what, and where the verdict is
(the tab names are those of Inspect's log viewer)."""

REFERENCE_HEADING = "Reference report (the target):"

GENERATION_KEY = "generation"
"""Key of `TaskState.metadata` holding what became of the generator call (see `generate_report`)."""

GENERATOR_CONTEXT_EXCEEDED = "generator_context_exceeded"
"""Error prefix: the generator's prompt did not fit its context window, so there is no report."""

GENERATOR_REQUEST_REJECTED = "generator_request_rejected"
"""Error prefix: the generator's provider rejected the request (HTTP 400, 413 or 422), so there is no report."""


@solver
def replay_candidate() -> Solver:
    """Use the candidate report stored with the sample (from the data, `-T candidates=FILE` or a generation log).

    No model is called: run it with `--model none` and bind the judge with `--model-role grader=...`. A report
    from a generation log brings its generation outcome along (`state.metadata["generation"]`), so a report the
    generator did not write is replayed as empty and scored against the generator, as with `-T generate=true`.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pair = state.metadata_as(ReportPair)
        joined = pair.metadata.get(PAIR_KEY)
        if isinstance(joined, dict) and joined.get("generation") is not None:
            state.metadata[GENERATION_KEY] = joined["generation"]
            if pair.candidate is None:
                state.output = ModelOutput.from_content(model=REPLAY_MODEL, content="")
                return state
        if pair.candidate is None:
            raise ValueError(
                f"sample '{pair.id}', field 'candidate': no candidate report to replay; "
                "add a candidate column, pass -T candidates=FILE, or use -T generate=true"
            )
        state.output = ModelOutput.from_content(model=REPLAY_MODEL, content=pair.candidate)
        state.messages = replayed_messages(pair, pair.candidate)
        return state

    return solve


def replayed_messages(pair: ReportPair, candidate: str) -> list[ChatMessage]:
    """The conversation a replayed sample shows: a user turn saying what is judged and against which reference,
    then the candidate as the assistant turn (the report under test, as a generator's answer would stand there).

    The candidate appears once, as itself: the user turn is written from the reference and fixed text only, so
    nothing the candidate says can be read as the task's framing or as the judge's verdict (which is in the
    scores, apart from both).
    """
    generator = generator_of(pair.metadata)
    source = f"the generation log of {generator} (the model that wrote it)" if generator else "the data"
    user = f"{REPLAYED_STORY.format(source=source)}\n\n{REFERENCE_HEADING}\n{pair.reference}"
    return [ChatMessageUser(content=user), ChatMessageAssistant(content=candidate, model=REPLAY_MODEL)]


@solver
def generate_report(report_max_tokens: int = DEFAULT_REPORT_MAX_TOKENS) -> Solver:
    """Have the model under test write the report from what the sample's data gives it (see `generation_messages`).

    The report's token budget is `report_max_tokens`, unless the user set ``max_tokens`` for the model under
    test (``--max-tokens``, or the model's own generate config): an explicit user setting wins.

    A sample whose generator call fails for that request alone gets an empty report (the scorer leaves it
    unscored) instead of ending the task. `state.metadata` ``["generation"]`` records the outcome:
    ``max_tokens`` (budget sent), ``stop_reason`` (as the provider gave it), ``truncated`` (the report was cut at
    its budget, by `stopped_at_budget`'s rule whatever the stop reason says, or by the context window, and is
    judged as written), ``output_tokens`` (None when not reported), ``error``
    (``generator_context_exceeded: ...`` or ``generator_request_rejected: ...``; None when there is a report),
    and ``images`` and ``prior_images``, how many of the study's and its prior study's images the request held.

    Args:
        report_max_tokens: Token budget of one report (``-T report_max_tokens``).

    Raises:
        InputError: `report_max_tokens` is not a whole number of at least 1.
    """
    if isinstance(report_max_tokens, bool) or not isinstance(report_max_tokens, int) or report_max_tokens < 1:
        raise InputError(f"-T report_max_tokens must be a whole number of at least 1, got {report_max_tokens!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pair = state.metadata_as(ReportPair)
        prompt = list(await generation_messages(pair))
        state.messages = list(prompt)
        max_tokens = _user_max_tokens() or report_max_tokens
        sent = _images_sent(pair)
        try:
            state = await generate(state, max_tokens=max_tokens)
        except Exception as failure:
            rejection = rejected_request(failure)
            if rejection is None:
                raise
            kind, message = rejection
            prefix = GENERATOR_CONTEXT_EXCEEDED if kind == "context_exceeded" else GENERATOR_REQUEST_REJECTED
            return _no_report(state, prompt, max_tokens, "error", None, f"{prefix}: {message}", sent)

        output = state.output
        output_tokens = output.usage.output_tokens if output.usage else None
        if output.stop_reason == "model_length" and not output_tokens:
            # Providers report a prompt too long for the context as a `model_length` output whose text is
            # their error message; no report was written.
            message = output.completion or "the prompt does not fit the generator's context window"
            error = f"{GENERATOR_CONTEXT_EXCEEDED}: {message}"
            return _no_report(state, prompt, max_tokens, output.stop_reason, output_tokens, error, sent)
        truncated = output.stop_reason == "model_length" or stopped_at_budget(
            output.stop_reason, output_tokens, max_tokens
        )
        state.metadata[GENERATION_KEY] = _generation(
            max_tokens, output.stop_reason, truncated, output_tokens, None, sent
        )
        return state

    return solve


def _images_sent(pair: ReportPair) -> dict[str, int]:
    """How many images the request holds: the study's own, and its prior study's."""
    return {"images": len(pair.images), "prior_images": len(pair.prior.images) if pair.prior else 0}


def _user_max_tokens() -> int | None:
    """``max_tokens`` the user set for the model under test, merged the way Inspect merges its configs."""
    return get_model().config.merge(active_generate_config()).max_tokens


def _no_report(
    state: TaskState,
    prompt: list[ChatMessageUser],
    max_tokens: int,
    stop_reason: str,
    output_tokens: int | None,
    error: str,
    sent: dict[str, int],
) -> TaskState:
    """Leave the sample with an empty report, the prompt as its only messages, and the reason recorded.

    The provider's message goes to the metadata only: left as the output, the scorer would judge it as a report.
    """
    empty_reason: StopReason = "model_length" if error.startswith(GENERATOR_CONTEXT_EXCEEDED) else "unknown"
    state.messages = list(prompt)
    state.output = ModelOutput.from_content(model=str(state.model), content="", stop_reason=empty_reason)
    state.metadata[GENERATION_KEY] = _generation(max_tokens, stop_reason, False, output_tokens, error, sent)
    return state


def _generation(
    max_tokens: int,
    stop_reason: str,
    truncated: bool,
    output_tokens: int | None,
    error: str | None,
    sent: dict[str, int],
) -> dict[str, Any]:
    return {
        "max_tokens": max_tokens,
        "stop_reason": stop_reason,
        "truncated": truncated,
        "output_tokens": output_tokens,
        "error": error,
        **sent,
    }
