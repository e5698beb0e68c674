"""The redaction rule on dumped log parts in memory: free text is hashed, machine fields and numbers stay."""

from __future__ import annotations

import hashlib

from radiology_tasks.leaderboard.redact import (
    FREE_TEXT_LENGTH,
    collect_texts,
    redact_config_value,
    redact_sample_value,
    text_hash,
)

REFERENCE = "Small left pleural effusion. No pneumothorax."


def _sample(**changes: object) -> dict:
    sample = {
        "id": "p1",
        "epoch": 1,
        "input": "Candidate report (replayed):\nNormal.",
        "target": REFERENCE,
        "scores": {
            "report_judge": {
                "value": {"vert": 0.9},
                "answer": "Normal.",
                "metadata": {
                    "judge_answer": "[Matched Findings]:\n3. a; b; c",
                    "unscored": {"vert": "invalid_response_format"},
                    "predicted_significant": {"a": 0, "b": 1},
                    "labels": {"Pleural Effusion": 1},
                    "judge_input_tokens": 567,
                    "truncated": False,
                },
            }
        },
        "events": [{"event": "model", "output": {"completion": "yes"}, "model": "openai-api/stub/judge"}],
    }
    sample.update(changes)
    return sample


def test_text_hash_is_the_sha256_of_the_exact_text():
    assert text_hash("a b\n") == "sha256:" + hashlib.sha256(b"a b\n").hexdigest()
    assert text_hash("a b") != text_hash("a b\n")


def test_free_text_is_hashed_and_machine_fields_numbers_and_keys_stay():
    sample = _sample()
    redacted = redact_sample_value(sample, collect_texts([sample]))
    score = redacted["scores"]["report_judge"]
    assert redacted["target"] == text_hash(REFERENCE)
    assert score["metadata"]["judge_answer"] == text_hash("[Matched Findings]:\n3. a; b; c")
    assert score["metadata"]["unscored"] == {"vert": "invalid_response_format"}
    assert score["metadata"]["predicted_significant"] == {"a": 0, "b": 1}
    assert score["metadata"]["labels"] == {"Pleural Effusion": 1}, "a label name as a key stays"
    assert (score["value"], score["metadata"]["judge_input_tokens"], score["metadata"]["truncated"]) == (
        {"vert": 0.9},
        567,
        False,
    )
    assert redacted["events"][0]["model"] == "openai-api/stub/judge"
    assert redacted["id"] == "p1"


def test_a_one_word_report_or_answer_is_hashed_wherever_it_appears():
    sample = _sample(metadata={"candidate": "Normal.", "modality": "CT"})
    redacted = redact_sample_value(sample, collect_texts([sample]))
    assert redacted["scores"]["report_judge"]["answer"] == text_hash("Normal.")
    assert redacted["metadata"] == {"candidate": text_hash("Normal."), "modality": "CT"}
    assert redacted["events"][0]["output"]["completion"] == text_hash("yes"), "a one-word judge answer"


def test_a_long_token_without_spaces_is_hashed():
    image = "data:image/png;base64," + "A" * FREE_TEXT_LENGTH
    sample = _sample(metadata={"image": image, "short": "A" * FREE_TEXT_LENGTH})
    redacted = redact_sample_value(sample, collect_texts([sample]))
    assert redacted["metadata"] == {"image": text_hash(image), "short": "A" * FREE_TEXT_LENGTH}


def test_a_key_holding_a_report_is_hashed():
    sample = _sample(store={REFERENCE: 1})
    redacted = redact_sample_value(sample, collect_texts([sample]))
    assert redacted["store"] == {text_hash(REFERENCE): 1}


def test_configuration_keeps_its_strings_unless_one_holds_a_sample_s_text():
    long_reference = "There is a small left pleural effusion with adjacent atelectasis and no pneumothorax."
    sample = _sample(target=long_reference)
    texts = collect_texts([sample])
    window = " ".join(long_reference.split()[2:10])
    config = {
        "task_args": {"data": "/data/pairs.jsonl", "prompt": "vert"},
        "skipped": [f"row 3: {window} ...", "row 4: empty reference"],
        "whole": REFERENCE,
        "metric names": ["f1_Pleural Effusion"],
    }
    redacted = redact_config_value(config, texts)
    assert redacted["task_args"] == {"data": "/data/pairs.jsonl", "prompt": "vert"}
    assert redacted["skipped"] == [text_hash(f"row 3: {window} ..."), "row 4: empty reference"]
    assert redacted["metric names"] == ["f1_Pleural Effusion"]
    assert redacted["whole"] == "Small left pleural effusion. No pneumothorax.", "the target here is another text"
    texts.add(REFERENCE)
    assert redact_config_value(config, texts)["whole"] == text_hash(REFERENCE)


def test_seven_words_of_a_text_in_configuration_are_not_a_window_but_eight_are():
    text = "one two three four five six seven eight nine ten"
    texts = collect_texts([_sample(target=text)])
    seven = "x " + " ".join(text.split()[:7]) + "x"
    assert redact_config_value(seven, texts) == seven
    eight = "x " + " ".join(text.split()[1:9]) + " y"
    assert redact_config_value(eight, texts) == text_hash(eight)
