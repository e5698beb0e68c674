"""`report_generation` through a real provider: a local OpenAI-compatible server records every request.

On a flat file and on a ReXrank prediction file whose images sit beside it (no `-T image_root`), each study is
one request holding the instruction for the track's section(s), the context as fields, and the images in the
data's order, each introduced with its view, then the prior study's marked as the prior; the log records how
many images each request held; and every metric family judges that log as `-T candidates=LOG.eval`.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import Model, get_model

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.crimson.tasks import crimson
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.ran_score.tasks import ran_score
from radiology_tasks.report_generation.tasks import report_generation
from radiology_tasks.suite.tasks import metric_suite
from tests.crimson.answers import answer as crimson_answer
from tests.ct_finebench.stub_judge import answer, asked_ids, is_extraction, items_in
from tests.judge_answers import assessment
from tests.openai_stub import StubServer, openai_stub
from tests.ran_score.helpers import REPORT, batch_answer
from tests.real_layouts import image_bytes, rexrank_file, rexrank_images

pytestmark = pytest.mark.slow

GENERATOR = "openai-api/stubgen/stub-generator"
JUDGE = "openai-api/stubsvc/stub-judge"
QUESTION = {"question": "Which side is the effusion on?", "answer": "left", "attribute_type": "location"}
FLAT_ROWS = [
    {
        "id": "xr-1",
        "reference": "Small left pleural effusion.",
        "modality": "XR",
        "anatomy": "chest",
        "indication": "Cough.",
        "age": 67,
        "sex": "F",
        "comparison": "Chest radiograph of 2021.",
        "images": ["lat.png", "pa.png"],
        "views": ["lateral", "PA"],
        "key_image": "pa.png",
        "prior_images": ["prior_pa.png"],
        "prior_report": "Normal chest.",
        "qa": [QUESTION],
    },
    {
        "id": "xr-2",
        "reference": "No pleural effusion.",
        "modality": "XR",
        "anatomy": "chest",
        "indication": "Fever.",
        "images": ["ap.png"],
        "qa": [{**QUESTION, "answer": "neither"}],
    },
]


def _generator(body: dict[str, Any]) -> str:
    return "Findings: Small left pleural effusion. Impression: Effusion."


UNEXPECTED: list[str] = []
"""Judge prompts the stub has no answer for (an exception in the server would leave the request hanging)."""


def _judge(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    if "Clinically Significant Errors" in prompt:
        return assessment({"b": 1}, 1, 0.5)
    if "Only abnormal findings count" in prompt:
        return crimson_answer(refs={"R1": "urgent"}, preds={"P1": "urgent"}, matched=[("R1", "P1")])
    if is_extraction(body):
        return answer(dict.fromkeys(asked_ids(body), "left"))
    if items_in(body):
        return answer(dict.fromkeys(items_in(body), 1))
    if REPORT.search(prompt):
        return batch_answer({})
    UNEXPECTED.append(prompt)
    return "no answer"


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch):
    with openai_stub(_generator, model="stub-generator") as generator, openai_stub(_judge) as judge:
        for service, server in (("STUBGEN", generator), ("STUBSVC", judge)):
            monkeypatch.setenv(f"{service}_BASE_URL", server.base_url)
            monkeypatch.setenv(f"{service}_API_KEY", "not-a-real-key")
        yield generator, judge


def _model(name: str) -> Model:
    # Not memoized: a cached model would still point at an earlier test's (stopped) server.
    return get_model(name, memoize=False)


def _parts(request: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    """The request's one user message: its instruction, and the parts after it (``("text", line)`` or
    ``("image", bytes)``)."""
    (message,) = request["messages"]
    first, *rest = message["content"]
    parts = []
    for part in rest:
        if part["type"] == "text":
            parts.append(("text", part["text"]))
        else:
            parts.append(("image", base64.b64decode(part["image_url"]["url"].split("base64,", 1)[1])))
    return first["text"], parts


def _by_indication(requests: list[dict[str, Any]], line: str) -> tuple[str, list[tuple[str, Any]]]:
    (match,) = [request for request in requests if line in _parts(request)[0]]
    return _parts(match)


def _generate(server: StubServer, tmp_path: Path, **args: Any) -> EvalLog:
    before = len(server.requests)
    (log,) = inspect_eval(
        report_generation(**args), model=_model(GENERATOR), log_dir=str(tmp_path / "gen"), display="none"
    )
    assert log.status == "success", log.error
    log = read_eval_log(log.location)
    assert len(server.requests) - before == len(log.samples or []), "one request per study"
    return log


def _sent(log: EvalLog) -> dict[str, tuple[int, int]]:
    return {
        str(s.id): (s.metadata["generation"]["images"], s.metadata["generation"]["prior_images"])
        for s in log.samples or []
    }


def _judge_every_family(tasks: list[Task], log: EvalLog, tmp_path: Path) -> dict[str, EvalLog]:
    UNEXPECTED.clear()
    logs = inspect_eval(
        tasks, model="none", model_roles={"grader": _model(JUDGE)}, log_dir=str(tmp_path / "judged"), display="none"
    )
    assert UNEXPECTED == []
    ids = sorted(str(s.id) for s in log.samples or [])
    judged = {}
    for judged_log in logs:
        name = judged_log.eval.task.removeprefix("radiology_tasks/")
        assert judged_log.status == "success", (name, judged_log.error)
        assert judged_log.eval.metadata["data"]["generation"]["log"] == log.location, name
        assert sorted(str(s.id) for s in judged_log.samples or []) == ids, name
        judged[name] = judged_log
    return judged


def test_a_flat_file_sends_views_context_and_the_prior_study_and_every_family_judges_the_log(
    servers, tmp_path: Path
) -> None:
    generator, judge = servers
    for name in ("lat.png", "pa.png", "prior_pa.png", "ap.png"):
        (tmp_path / name).write_bytes(image_bytes(name))
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in FLAT_ROWS), encoding="utf-8")
    log = _generate(generator, tmp_path, data=str(data))

    text, parts = _by_indication(generator.requests, "Clinical indication: Cough.")
    assert text.startswith("You are writing the findings section of a radiology report.\nStudy: XR of the chest.\n")
    assert (
        "Patient's age: 67\nPatient's sex: F\nClinical indication: Cough.\nComparison: Chest radiograph of 2021."
        in text
    )
    assert "<prior_report>\nNormal chest.\n</prior_report>" in text
    assert parts == [
        ("text", "This study, image 1 of 2 (view: lateral):"),
        ("image", image_bytes("lat.png")),
        ("text", "This study, image 2 of 2 (view: PA):"),
        ("image", image_bytes("pa.png")),
        ("text", "Prior study, image 1 of 1:"),
        ("image", image_bytes("prior_pa.png")),
    ]
    text, parts = _by_indication(generator.requests, "Clinical indication: Fever.")
    assert parts == [("image", image_bytes("ap.png"))]  # no view, no prior: the image follows unlabelled
    assert not any(field in text for field in ("Patient's age", "Patient's sex", "Comparison:", "prior study"))
    assert _sent(log) == {"xr-1": (2, 1), "xr-2": (1, 0)}
    assert log.eval.metadata["data"]["images"]["images"] == 3

    common = {"data": str(data), "candidates": log.location}
    tasks = [
        green(**common),
        vert(**common),
        crimson(**common),
        ct_finebench(**common),
        ran_score(**common, label_cache="off"),
        baselines(**common),
        metric_suite(**common),
    ]
    judged = _judge_every_family(tasks, log, tmp_path)
    assert set(judged) == {"green", "vert", "crimson", "ct_finebench", "ran_score", "baselines", "metric_suite"}
    assert len(generator.requests) == 2, "judging the log asks the generator nothing"
    crimson_prompts = [r["messages"][-1]["content"] for r in judge.requests if "Only abnormal" in str(r)]
    assert len(crimson_prompts) == 2 and any("67" in prompt for prompt in crimson_prompts)


def test_a_rexrank_file_sends_the_images_beside_it_with_their_views_and_the_track_sections(
    servers, tmp_path: Path
) -> None:
    generator, judge = servers
    path = rexrank_file(tmp_path / "MIMIC-CXR_predictions.json")
    rexrank_images(path)
    log = _generate(generator, tmp_path, data=str(path), track="findings_impression")
    assert len(generator.requests) == 3

    text, parts = _by_indication(generator.requests, "Clinical indication: ___-year-old male with cough.")
    assert text.startswith(
        "You are writing the findings section and the impression section of a radiology report.\n"
        "Study: XR of the chest.\nPatient's age: 50-60\nPatient's sex: M\n"
        "Clinical indication: ___-year-old male with cough.\nComparison: None.\n"
    )
    assert 'Begin the findings with "Findings:" and the impression with "Impression:".' in text
    # The lateral first, as the file lists it, each introduced with its view.
    assert parts == [
        ("text", "This study, image 1 of 2 (view: lateral):"),
        ("image", image_bytes("/p10/p10046166/s50051329/lateral.jpg")),
        ("text", "This study, image 2 of 2 (view: antero-posterior):"),
        ("image", image_bytes("/p10/p10046166/s50051329/frontal.jpg")),
    ]
    text, _ = _by_indication(generator.requests, "Comparison: Chest radiograph of earlier the same date.")
    assert "Clinical indication" not in text and "Patient's age" not in text
    assert _sent(log) == {"50051329": (2, 0), "58765432": (1, 0), "59999999": (1, 0)}

    common = {"data": str(path), "track": "findings_impression", "candidates": log.location}
    tasks = [
        green(**common),
        vert(**common),
        crimson(**common),
        ran_score(**common, label_cache="off"),
        baselines(**common),
        metric_suite(**common),
    ]
    judged = _judge_every_family(tasks, log, tmp_path)
    assert set(judged) == {"green", "vert", "crimson", "ran_score", "baselines", "metric_suite"}
    assert len(generator.requests) == 3
    crimson_prompts = [r["messages"][-1]["content"] for r in judge.requests if "Only abnormal" in str(r)]
    assert any("50-60" in prompt for prompt in crimson_prompts)


def test_a_single_image_generator_is_sent_the_key_image_alone(servers, tmp_path: Path) -> None:
    generator, _ = servers
    path = rexrank_file(tmp_path / "MIMIC-CXR_predictions.json")
    rexrank_images(path)
    log = _generate(generator, tmp_path, data=str(path), images="key")
    _, parts = _by_indication(generator.requests, "Clinical indication: ___-year-old male with cough.")
    assert parts == [
        ("text", "This study, image 1 of 1 (view: antero-posterior):"),
        ("image", image_bytes("/p10/p10046166/s50051329/frontal.jpg")),
    ]
    assert _sent(log) == {"50051329": (1, 0), "58765432": (1, 0)}
    assert log.eval.metadata["data"]["images"]["choice"] == "key"


def test_a_missing_image_stops_before_any_request(servers, tmp_path: Path) -> None:
    generator, _ = servers
    path = rexrank_file(tmp_path / "MIMIC-CXR_predictions.json")
    files = rexrank_images(path, skip=("/p12/p12000002/s58765432/frontal.jpg",))
    with pytest.raises(Exception, match=r"study '58765432': no such image file") as stopped:
        report_generation(data=str(path))
    assert str(files["/p12/p12000002/s58765432/frontal.jpg"]) in str(stopped.value)
    assert generator.requests == []
