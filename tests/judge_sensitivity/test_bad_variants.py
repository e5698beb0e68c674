"""A weak injector's bad variants never become training targets: `perturb` and `export-sft --variants` end to end.

The scripted injector below answers every prompt in its contract and its checker calls every variant plausible,
as a weak model can, yet its paraphrases drop a finding, flip a side, change a size or add or remove a negation,
two of its error variants change what their type does not, and its checker answers one paraphrase check with
prose. Each is refused with its reason and counted, and appears in no file the export writes. Its good variants
(a real paraphrase, error variants that changed exactly what their type says) pass and are written.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.cli import main
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from tests.conftest import write_jsonl
from tests.judge_sensitivity.stub_models import injection, kind_of, prompt_of, sentences_of, verdict
from tests.judge_sensitivity.test_commands import cli
from tests.judge_sensitivity.test_task import CATEGORY

REFERENCES = {
    "R1": "Small left pleural effusion. No pneumothorax. Heart size is normal.",
    "R2": "Right upper lobe nodule measures 8 mm. No consolidation. No pleural effusion.",
    "R3": "Moderate right pneumothorax. The left lung is clear.",
    "R4": "Cardiomegaly. No pleural effusion.",
    "R5": "Mild pulmonary edema. No focal consolidation.",
    "R6": "Heart size is normal. The lungs are clear.",
    "R7": "Small right pleural effusion. No pneumothorax.",
}

GARBAGE_VERDICT = "The report is believable, and the document is believable, and the report is believable, and"


def reword(sentence: str) -> str:
    """A real paraphrase of one sentence: other words, the same facts."""
    return f"As seen here: {sentence[0].lower()}{sentence[1:]}"


BAD_PARAPHRASES: dict[str, tuple[Callable[[str], str], str]] = {
    "R1": (lambda s: s.replace("effusion", "collection"), "finding_dropped"),
    "R2": (lambda s: s.replace("8 mm", "14 mm"), "measurement_changed"),
    "R3": (lambda s: s.replace("right", "bilateral"), "laterality_changed"),
    "R4": (lambda s: s.replace("No pleural effusion", "Pleural effusion"), "negation_changed"),
    "R6": (lambda s: s.replace("is normal", "is not normal"), "negation_changed"),
}
"""The paraphrases that change a fact, with the reason each must be refused for."""

SWAP_SIDE = {"left": "right", "right": "left"}


def wrong_location(sentence: str) -> str:
    """(c) done right: the other side, or a side added."""
    if re.search(r"\b(left|right)\b", sentence):
        return re.sub(r"\b(left|right)\b", lambda m: SWAP_SIDE[m.group(1)], sentence, count=1)
    return sentence.rstrip(".") + " on the left."


def wrong_severity(sentence: str) -> str:
    """(d) done right: a grade or a size misstated."""
    for before, after in (("Small", "Large"), ("Moderate", "Large"), ("Mild", "Severe"), ("8 mm", "3 cm")):
        if before in sentence:
            return sentence.replace(before, after)
    return sentence.rstrip(".") + ", severe."


BAD_ERRORS: dict[tuple[str, str], tuple[Callable[[str], str], str]] = {
    ("R2", "c"): (lambda s: s.replace("8 mm", "14 mm"), "measurement_changed"),  # a location error that resizes
    ("R3", "d"): (lambda s: s.replace("Moderate right", "Large left"), "laterality_changed"),  # and moves sides
}
GOOD_ERRORS = {"c": wrong_location, "d": wrong_severity}


def reference_of(prompt: str) -> str:
    return next(key for key, text in REFERENCES.items() if split_sentences(text).sentences[0] in prompt)


def scripted_injector(body: dict[str, Any]) -> str:
    prompt = prompt_of(body)
    kind, source = kind_of(prompt), reference_of(prompt)
    if kind == "paraphrase":
        change = BAD_PARAPHRASES[source][0] if source in BAD_PARAPHRASES else reword
        items = [{"sentence_index": i, "paraphrase": change(s)} for i, s in enumerate(sentences_of(prompt))]
        return json.dumps({"sentences": items})
    if kind == "inject":
        category = CATEGORY.search(prompt).group(1)  # type: ignore[union-attr]
        change = BAD_ERRORS[(source, category)][0] if (source, category) in BAD_ERRORS else GOOD_ERRORS[category]
        return injection(prompt, changed=[0], change=change)
    if kind == "paraphrase_check" and source == "R5":
        return GARBAGE_VERDICT
    return verdict(True)


def bad_texts() -> dict[str, tuple[str, str]]:
    """Each bad variant's id, text and the reason it must be refused for."""
    texts = {}
    for source, (change, reason) in BAD_PARAPHRASES.items():
        split = split_sentences(REFERENCES[source])
        texts[f"{source}:paraphrase-1"] = (split.replaced(dict(enumerate(map(change, split.sentences)))), reason)
    for (source, category), (change, reason) in BAD_ERRORS.items():
        split = split_sentences(REFERENCES[source])
        texts[f"{source}:error-{category}-1"] = (split.replaced({0: change(split.sentences[0])}), reason)
    return texts


def every_file(folder: Path) -> str:
    """The text of every file in `folder`: whatever the command wrote."""
    files = sorted(path for path in folder.iterdir() if path.is_file())
    assert {path.name for path in files} == {
        "train.jsonl",
        "validation.jsonl",
        "train.known.jsonl",
        "validation.known.jsonl",
        "manifest.json",
    }
    return "\n".join(path.read_text(encoding="utf-8") for path in files)


def conversations(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for name in ("train", "validation") for line in (folder / f"{name}.jsonl").open()]


@pytest.mark.slow
def test_perturb_refuses_each_bad_variant_with_its_reason_and_the_export_never_sees_it(
    monkeypatch, capsys, pairs_file, tmp_path: Path
) -> None:
    data = pairs_file([{"id": k, "reference": v, "modality": "CT", "anatomy": "chest"} for k, v in REFERENCES.items()])
    variants = tmp_path / "variants.jsonl"
    arguments = ["perturb", "--data", str(data), "--out", str(variants), "--categories", "c,d", "--max-errors", "1"]
    arguments += ["--attempts", "1", "--log-dir", str(tmp_path / "logs")]
    code, printed, calls = cli(arguments, scripted_injector, monkeypatch, capsys)
    assert code == 0
    # The checker is never asked about a variant whose facts changed: those fail in code first. Its prose answer
    # about R5's paraphrase is asked again once, then counts as a failed check.
    assert calls["paraphrase_check"] == 1 + 2 and calls["plausibility"] == 14 - len(BAD_ERRORS)

    excluded = dict(re.findall(r"^excluded (\S+): (.*)$", printed, re.M))
    expected = {variant: reason for variant, (_, reason) in bad_texts().items()}
    assert {variant: line.split(" (")[1].split(":")[0] for variant, line in excluded.items()} == expected | {
        "R5:paraphrase-1": "unreadable_check"
    }
    assert excluded["R5:paraphrase-1"] == (
        "unreadable_check (unreadable_check: outside_contract: not admitted by the plausibility contract)"
    )
    assert excluded["R1:paraphrase-1"] == (
        "failed_check (finding_dropped: sentence 0: not a change a paraphrase variant makes: no longer named: effusion)"
    )
    assert f"variants excluded: {len(expected) + 1}" in printed
    rows = {row["id"]: row for row in map(json.loads, variants.open())}
    good = {"R7:paraphrase-1", "R5:error-c-1", "R5:error-d-1", "R2:error-d-1", "R3:error-c-1"}
    assert good <= set(rows) and not set(excluded) & set(rows) and len(rows) == 21 - len(excluded)
    assert (
        rows["R7:paraphrase-1"]["candidate"]
        == "As seen here: small right pleural effusion. As seen here: no pneumothorax."
    )

    out = tmp_path / "sft"
    assert main(["export-sft", "--variants", str(variants), "--out", str(out), "--val-fraction", "0.3"]) == 0
    written = every_file(out)
    for variant, (text, _) in bad_texts().items():
        assert variant not in written and json.dumps(text)[1:-1] not in written
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["left_out"]["changed_facts"] == {"by_problem": {}, "variants": []}
    assert manifest["splits"]["train"]["variants"] + manifest["splits"]["validation"]["variants"] == len(rows)


def test_the_export_refuses_bad_variants_a_weak_pipeline_wrote_and_writes_them_nowhere(tmp_path: Path, capsys) -> None:
    """The same bad variants in a variants file as an earlier, weaker `perturb` wrote them: the export checks again."""
    rows = []
    for source, text in REFERENCES.items():
        split = split_sentences(text)
        row = {"source_id": source, "reference": text}
        rows.append(
            row
            | {"id": f"{source}:paraphrase-1", "kind": "paraphrase", "category": None, "n_errors": 0, "changes": []}
            | {"candidate": split.replaced(dict(enumerate(map(reword, split.sentences))))}
        )
        for category, good in GOOD_ERRORS.items():
            change = BAD_ERRORS[(source, category)][0] if (source, category) in BAD_ERRORS else good
            modified = change(split.sentences[0])
            rows.append(
                row
                | {"id": f"{source}:error-{category}-1", "kind": "error", "category": category, "n_errors": 1}
                | {"candidate": split.replaced({0: modified})}
                | {
                    "changes": [
                        {"sentence_index": 0, "original": split.sentences[0], "modified": modified, "explanation": "x"}
                    ]
                }
            )
    bad = bad_texts()
    for row in rows:
        if row["id"] in bad:
            assert row["candidate"] == bad[row["id"]][0] or row["kind"] == "paraphrase"
            row["candidate"] = bad[row["id"]][0]
    # An error variant that also changed a sentence it does not record.
    elsewhere = next(row for row in rows if row["id"] == "R7:error-c-1")
    elsewhere["candidate"] = elsewhere["candidate"].replace("No pneumothorax.", "No pneumothorax seen.")
    bad["R7:error-c-1"] = (elsewhere["candidate"], "report_mismatch")
    data = write_jsonl(tmp_path / "variants.jsonl", rows)
    out = tmp_path / "sft"
    assert main(["export-sft", "--variants", str(data), "--out", str(out), "--val-fraction", "0.3"]) == 0
    printed = capsys.readouterr().out

    changed = json.loads((out / "manifest.json").read_text())["left_out"]["changed_facts"]
    assert {row["id"]: row["problem"] for row in changed["variants"]} == {k: reason for k, (_, reason) in bad.items()}
    assert changed["by_problem"] == dict(sorted(Counter(reason for _, reason in bad.values()).items()))
    assert f"left out {data} R1:paraphrase-1: finding_dropped (not a change a paraphrase variant makes: " in printed
    assert "left out 2 variants that fail the fact checks: negation_changed" in printed
    assert (
        f"left out {data} R7:error-c-1: report_mismatch (the candidate is not the reference with exactly its "
        "recorded changes)" in printed
    )
    written = every_file(out)
    records = [json.loads(line) for name in ("train", "validation") for line in (out / f"{name}.known.jsonl").open()]
    assert {record["variant_id"] for record in records} == {row["id"] for row in rows} - set(bad)
    for text, _ in bad.values():
        assert json.dumps(text)[1:-1] not in written
    # Every conversation is a variant that kept its facts: the good paraphrases are there, scored as clean.
    users = [c["messages"][0]["content"] for c in conversations(out)]
    assert sum("As seen here: small right pleural effusion." in user for user in users) == 1
