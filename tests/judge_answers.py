"""Judge answers in the GREEN/VERT output contract, for tests that need a judge to reply."""

from __future__ import annotations

from inspect_ai.model import ModelOutput, ModelUsage

from radiology_tasks.core.records import CATEGORY_NAMES


def assessment(significant: dict[str, int], matched: int, score: float | None = None) -> str:
    """A well-formed judge answer with the given significant counts, no insignificant errors."""
    lines = ["[Explanation]:", "Compared the findings one by one.", "", "[Clinically Significant Errors]:"]
    lines += [f"({c}) {name}: {significant.get(c, 0)}." for c, name in CATEGORY_NAMES.items()]
    lines += ["", "[Clinically Insignificant Errors]:"]
    lines += [f"({c}) {name}: 0." for c, name in CATEGORY_NAMES.items()]
    lines += ["", "[Matched Findings]:", f"{matched}. " + "; ".join(f"finding {i}" for i in range(matched))]
    if score is not None:
        lines += ["", "[Overall Accuracy Score]:", f"{score:.2f}"]
    return "\n".join(lines) + "\n"


def mock_output(text: str) -> ModelOutput:
    """A mockllm output with explicit token usage (offline, mockllm cannot count tokens itself)."""
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    output.usage = ModelUsage(input_tokens=100, output_tokens=len(text.split()), total_tokens=100 + len(text.split()))
    return output
