"""Real runs for the agreement table: lexical metrics and scripted judges on copies of the expert datasets.

The judges answer from the candidate's text, so their scores vary and every correlation is defined; the lexical
metrics need no model at all.
"""

from __future__ import annotations

import csv
import zlib
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, get_model

from tests.judge_answers import assessment, mock_output

LEXICAL = "bleu,bleu_rexrank,chrf,rouge_l"
"""Seven lexical metrics: BLEU-1 to 4, ReXrank's BLEU, chrF and ROUGE-L."""

JUDGE = "mockllm/model"
"""The scripted judge's model name, as the runs record it in the grader role."""

RATE_ROWS = [
    ("Small left pleural effusion. No pneumothorax.", "Small left pleural effusion.", 4.5),
    ("Small left pleural effusion. No pneumothorax.", "Large right effusion and a pneumothorax.", 1.0),
    ("Small left pleural effusion. No pneumothorax.", "Normal chest.", 0.5),
    ("Cardiomegaly. Mild pulmonary edema.", "Cardiomegaly with mild pulmonary edema.", 5.0),
    ("Cardiomegaly. Mild pulmonary edema.", "Normal heart size. No edema.", 1.5),
    ("Cardiomegaly. Mild pulmonary edema.", "Pneumonia in the left lung.", 0.0),
    ("No acute cardiopulmonary process.", "No acute process.", 4.0),
    ("No acute cardiopulmonary process.", "Left pleural effusion.", 2.0),
    ("No acute cardiopulmonary process.", "Right pneumothorax.", 1.0),
    ("Right lower lobe pneumonia.", "Pneumonia in the right lower lobe.", 4.5),
    ("Right lower lobe pneumonia.", "Left upper lobe mass.", 1.5),
    ("Right lower lobe pneumonia.", "No findings.", 2.5),
]


def rate_eval_copy(folder: Path) -> Path:
    """A RaTE-Eval copy in the hub's layout: the paragraph-level test file with its three columns."""
    table = folder / "Task2_paragraph_rate" / "rate_test.csv"
    table.parent.mkdir(parents=True, exist_ok=True)
    with table.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["gt_report", "similar_report", "Score"])
        writer.writerows(RATE_ROWS)
    return folder


REXVAL_ERRORS: dict[tuple[int, str, int, int, bool], int] = {
    # (study, candidate, category 1-6, rater 0-5, significant): count; every other cell of the grid is 0.
    **{(0, "radgraph", 2, rater, True): 1 for rater in range(2)},
    **{(0, "bertscore", 1, rater, True): 2 for rater in range(6)},
    **{(0, "bertscore", 4, rater, False): 1 for rater in range(3)},
    **{(0, "s_emb", 6, rater, False): 1 for rater in range(6)},
    **{(0, "bleu", 3, rater, True): 1 for rater in range(5)},
    **{(1, "radgraph", 2, rater, True): 1 for rater in range(1)},
    **{(1, "bertscore", 1, rater, True): 1 for rater in range(4)},
    **{(1, "bertscore", 2, rater, False): 1 for rater in range(6)},
    **{(1, "s_emb", 5, rater, True): 3 for rater in range(6)},
    **{(1, "bleu", 1, rater, True): 1 for rater in range(6)},
    **{(1, "bleu", 2, rater, True): 1 for rater in range(3)},
}
"""Six raters' error counts for a two-study ReXVal copy: the eight candidates' mean totals all differ."""


def _candidate(messages: list[ChatMessage]) -> str:
    return messages[-1].text


def scripted_judge(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """A judge whose counts and score follow a checksum of the prompt: varied, and the same on every run."""
    digest = zlib.crc32(_candidate(messages).encode())
    return mock_output(assessment({"b": digest % 3, "a": digest % 2}, matched=1 + digest % 4, score=(digest % 9) / 8))


def run_task(task: Any, folder: Path, *, judged: bool = False) -> EvalLog:
    """Run `task` offline into `folder`, with the scripted judge in the grader role when `judged`."""
    roles = {"grader": get_model("mockllm/model", custom_outputs=scripted_judge)} if judged else None
    (log,) = inspect_eval(task, model="none", model_roles=roles, display="none", log_dir=str(folder))
    assert log.status == "success", log.error
    return log
