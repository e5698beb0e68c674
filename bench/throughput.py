"""How fast `vert` scores replayed pairs against a judge of fixed latency, and what CPU the plugin adds.

The judge is scripted: an Inspect model API registered here (``benchjudge/scripted``) that sleeps ``--latency``
seconds per request (an ``asyncio.sleep``, so it occupies a connection but no CPU) and answers in the
GREEN/VERT contract with an answer of realistic length (or, for Inspect's own `model_graded_qa`, the same
explanation ending in ``GRADE: C``). With ``--max-connections C`` (which also caps concurrent samples) and one
judge call per sample, the ideal rate is C / L samples per second.

The plugin's own CPU time per sample is measured as the process CPU time (`time.process_time`, every thread
of this process) over an `eval()` of `vert`, minus the same over an `eval()` of a bare Inspect task
(`model_graded_qa` on the same pairs, same judge, same concurrency), divided by the number of samples. Both
tasks are first run once on a few samples so that module imports and first-use set-up are not counted; what
remains per run (task construction, log writing) is included in both and mostly cancels.

That difference holds two things: the plugin's code, and Inspect's own per-sample work on the larger record a
`vert` sample keeps (its input, metadata, judge prompt and answer, score explanation and metadata: Inspect
copies, summarises, serialises and compresses each). A third run separates them: a task with no plugin code that
logs what `vert` logged, sample by sample (read back from `vert`'s log: the same input, target, metadata and
messages, one judge call with the same prompt and settings, then the logged score returned as it is). Its CPU
minus the bare run's is Inspect's cost of the record; `vert`'s minus its own is the plugin's code.

One run's CPU time moves by several milliseconds a sample from run to run on a small machine (garbage collections
fall where they fall), so the three runs are repeated `--repeats` times in turn and each figure is the median.

Usage::

    python bench/throughput.py [--samples N] [--max-connections C] [--latency L] [--log-dir DIR] [--lean]
                               [--repeats R]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    get_model,
    modelapi,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, model_graded_qa, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolChoice, ToolInfo

from radiology_tasks.core.records import CATEGORY_NAMES

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "radiology_tasks" / "data" / "demo_reports.jsonl"
JUDGE = "benchjudge/scripted"
CATEGORIES = CATEGORY_NAMES
EXPERT_FIELDS = (
    "expert_score",
    "expert_score_min",
    "expert_score_max",
    *(f"{kind}_{code}" for kind in ("significant", "insignificant") for code in CATEGORIES),
)
EXPLANATION = (
    "The candidate and the reference were compared finding by finding. Most findings agree in presence, "
    "location and severity, and the comparison with the prior study is stated in both. The candidate omits "
    "one finding that the reference reports and that would change follow-up, which counts as a clinically "
    "significant omission. The remaining differences are in wording only: synonyms for the same anatomy, "
    "a different order of the findings, and measurements rounded to the same value. No finding is invented "
    "and no comparison is added that the reference does not make."
)


def vert_answer(seed: int) -> str:
    """A well-formed VERT answer of about 200 words: explanation, described errors, matched findings, score."""
    rng = random.Random(seed)
    matched = rng.randint(3, 7)
    lines = ["[Explanation]:", EXPLANATION, "", "[Clinically Significant Errors]:"]
    for code, name in CATEGORIES.items():
        lines.append(
            f"({code}) {name}: 1. The finding reported in the reference's third sentence is absent."
            if code == "b"
            else f"({code}) {name}: 0."
        )
    lines += ["", "[Clinically Insignificant Errors]:"]
    lines += [f"({code}) {name}: 0." for code, name in CATEGORIES.items()]
    findings = "; ".join(f"finding {i + 1} stated with the same location and severity" for i in range(matched))
    lines += ["", "[Matched Findings]:", f"{matched}. {findings}", "", "[Overall Accuracy Score]:"]
    lines.append(f"{matched / (matched + 2):.2f}")
    return "\n".join(lines) + "\n"


def qa_answer() -> str:
    """The bare grader's answer: the same explanation, then Inspect's grade line."""
    return f"{EXPLANATION}\n\nGRADE: C"


@modelapi(name="benchjudge")
class ScriptedJudge(ModelAPI):
    """A judge that waits `latency` seconds per request and answers by the prompt's kind."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        latency: float = 0.0,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        self.latency = float(latency)
        self.calls = 0

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """Sleep, then answer in the GREEN/VERT contract or with a ``GRADE:`` line."""
        self.calls += 1
        await asyncio.sleep(self.latency)
        prompt = input[-1].text
        text = vert_answer(self.calls) if "[Overall Accuracy Score]" in prompt else qa_answer()
        output = ModelOutput.from_content(model=self.model_name, content=text)
        words_in, words_out = len(prompt.split()), len(text.split())
        output.usage = ModelUsage(input_tokens=words_in, output_tokens=words_out, total_tokens=words_in + words_out)
        return output

    def max_connections(self) -> int:
        """Default concurrency when `--max-connections` is not given."""
        return 10


def judge_model(latency: float) -> Model:
    """The scripted judge with the given latency per request."""
    return get_model(JUDGE, latency=latency)


def synthesize_pairs(count: int, path: Path, seed: int = 0) -> Path:
    """Write `count` report pairs of 150-250 words each, stitched from the demo set's references and candidates.

    Each pair takes demo pairs in a random order and joins their references (and the same pairs' candidates)
    until the reference reaches a length drawn from 150-250 words, so the two reports stay alike. The expert's
    score and error counts of the first demo pair taken go with it, as a rated dataset would have them (they
    switch on the task's agreement and per-category metrics).
    """
    demo = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    demo = [d for d in demo if d.get("candidate")]
    rng = random.Random(seed)
    with path.open("w") as out:
        for i in range(count):
            target = rng.randint(150, 250)
            order = rng.sample(demo, len(demo))
            reference: list[str] = []
            candidate: list[str] = []
            for row in order:
                if len(" ".join(reference).split()) >= target:
                    break
                reference.append(row["reference"])
                candidate.append(row["candidate"])
            words = " ".join(reference).split()[:target]
            row = {"id": f"pair-{i:05d}", "reference": " ".join(words), "candidate": " ".join(candidate)}
            row |= {key: order[0][key] for key in EXPERT_FIELDS if key in order[0]}
            out.write(json.dumps(row) + "\n")
    return path


@solver
def replay() -> Solver:
    """The bare task's solver: the stored candidate is the output, no model is called."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model="replay", content=state.metadata["candidate"])
        return state

    return solve


def bare_task(pairs: Path) -> Task:
    """Inspect's `model_graded_qa` on the same pairs: the reference is the target, the candidate is replayed."""
    rows = [json.loads(line) for line in pairs.read_text().splitlines()]
    samples = [
        Sample(
            id=r["id"],
            input="Write the findings section of this study's report.",
            target=r["reference"],
            metadata={"candidate": r["candidate"]},
        )
        for r in rows
    ]
    return Task(dataset=MemoryDataset(samples, name="bench-pairs"), solver=replay(), scorer=model_graded_qa())


def plugin_task(pairs: Path) -> Task:
    """The `vert` task on the same pairs (replayed candidates)."""
    from radiology_tasks.green_vert.tasks import vert

    return vert(data=str(pairs))


@dataclass(frozen=True)
class LoggedSample:
    """What the same-record task replays of one logged sample (only this is kept, so its heap stays small)."""

    sample: Sample
    messages: list[ChatMessage]
    completion: str
    prompt: list[ChatMessage]
    config: GenerateConfig
    score: Score


@functools.lru_cache(maxsize=1)
def logged_samples(location: str) -> dict[str, LoggedSample]:
    """The samples of the `vert` log at `location` by id (read once for the task's dataset, solver and scorer)."""
    logged: dict[str, LoggedSample] = {}
    for s in read_eval_log(location, resolve_attachments=True).samples or []:
        (call,) = (event for event in s.events if isinstance(event, ModelEvent))
        (score,) = (s.scores or {}).values()
        sample = Sample(id=s.id, input=s.input, target=s.target, metadata=s.metadata)
        logged[str(s.id)] = LoggedSample(sample, s.messages, s.output.completion, call.input, call.config, score)
    return logged


@solver
def logged_state(location: str) -> Solver:
    """The same-record task's solver: the messages and output the log at `location` holds for the sample."""
    samples = logged_samples(location)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        logged = samples[str(state.sample_id)]
        state.messages = [message.model_copy(update={"id": None}) for message in logged.messages]
        state.output = ModelOutput.from_content(model="replay", content=logged.completion)
        return state

    return solve


@scorer(metrics=[mean()])
def logged_score(location: str) -> Scorer:
    """The same-record task's scorer: the logged judge prompt sent once, then the logged score returned."""
    samples = logged_samples(location)

    async def score(state: TaskState, target: Target) -> Score:
        logged = samples[str(state.sample_id)]
        await get_model(role="grader").generate(logged.prompt, config=logged.config)
        return logged.score.model_copy(deep=True)

    return score


def same_record_task(location: str) -> Task:
    """A task without plugin code that logs what the `vert` log at `location` logged: each sample's input, target,
    metadata, messages, one judge call with the logged prompt and settings, and the logged score."""
    dataset = [logged.sample for logged in logged_samples(location).values()]
    return Task(
        dataset=MemoryDataset(dataset, name="bench-same-record"),
        solver=logged_state(location),
        scorer=logged_score(location),
    )


@dataclass(frozen=True)
class Setting:
    """How every run of one bench invocation is evaluated."""

    judge: Model
    max_connections: int
    log_dir: str
    lean: bool = False
    """Inspect's two switches for high-throughput runs: no realtime event log, no metrics recomputed while running."""


def run(task: Task, setting: Setting) -> EvalLog:
    """Evaluate `task` with the setting's judge as the grader and no model under test."""
    switch = False if setting.lean else None  # None: Inspect's default (both on)
    (log,) = eval(
        task,
        model="none",
        model_roles={"grader": setting.judge},
        max_connections=setting.max_connections,
        log_dir=setting.log_dir,
        display="none",
        log_realtime=switch,
        score_display=switch,
    )
    if log.status != "success":
        raise RuntimeError(f"{log.eval.task} ended {log.status}: {log.error}")
    return log


@dataclass(frozen=True)
class Timing:
    """One measured run: wall-clock and process CPU seconds, and its log."""

    name: str
    samples: int
    wall: float
    cpu: float
    location: str
    """Where the run's log is (the log itself is not kept: a bench holding samples slows the runs after it)."""
    log_bytes: int

    @property
    def rate(self) -> float:
        """Samples per second of wall-clock time."""
        return self.samples / self.wall


def timed(name: str, task: Task, setting: Setting, samples: int) -> Timing:
    """Run `task` and time it, from a heap freed of what earlier runs left."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    log = run(task, setting)
    elapsed, used = time.perf_counter() - wall, time.process_time() - cpu
    return Timing(name, samples, elapsed, used, log.location, Path(log.location).stat().st_size)


def median_timing(runs: list[Timing]) -> Timing:
    """One task's repeated runs as one: the median wall and the median CPU (each its own median)."""
    first = runs[0]
    return Timing(
        first.name,
        first.samples,
        statistics.median(t.wall for t in runs),
        statistics.median(t.cpu for t in runs),
        first.location,
        first.log_bytes,
    )


def measure(setting: Setting, pairs: Path, n: int, repeats: int) -> tuple[Timing, Timing, Timing]:
    """Bare, vert and same-record runs, `repeats` rounds in turn (so drift spreads over all three), as medians."""
    rounds: list[tuple[Timing, Timing, Timing]] = []
    for _ in range(repeats):
        bare = timed("bare model_graded_qa", bare_task(pairs), setting, n)
        plugin = timed("vert", plugin_task(pairs), setting, n)
        record = timed("same record, no plugin", same_record_task(plugin.location), setting, n)
        rounds.append((bare, plugin, record))
    bare, plugin, record = (median_timing(list(runs)) for runs in zip(*rounds, strict=True))
    return bare, plugin, record


def main(argv: list[str] | None = None) -> None:
    """Print samples per second against C / L, and the plugin's CPU milliseconds per sample."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=200, help="pairs scored per run (N)")
    parser.add_argument("--max-connections", type=int, default=20, help="concurrent judge requests (C)")
    parser.add_argument("--latency", type=float, default=0.5, help="judge seconds per request (L)")
    parser.add_argument("--log-dir", default=None, help="where the logs go (default: a temporary folder)")
    parser.add_argument(
        "--lean",
        action="store_true",
        help="run every task with log_realtime=False and score_display=False (--no-log-realtime --no-score-display)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="rounds of the three runs; each figure is the median (default 3)"
    )
    args = parser.parse_args(argv)
    n = args.samples
    with tempfile.TemporaryDirectory() as tmp:
        setting = Setting(judge_model(args.latency), args.max_connections, args.log_dir or tmp, args.lean)
        pairs = synthesize_pairs(n, Path(tmp) / "pairs.jsonl")
        warm = synthesize_pairs(4, Path(tmp) / "warm.jsonl", seed=1)
        run(bare_task(warm), setting)
        run(same_record_task(run(plugin_task(warm), setting).location), setting)
        bare, plugin, record = measure(setting, pairs, n, args.repeats)
    ideal = args.max_connections / args.latency if args.latency > 0 else float("inf")
    print(f"N={n} samples, C={args.max_connections} connections, L={args.latency:g} s per judge call")
    print(
        f"ideal rate C/L: {ideal:.1f} samples/s" + (" (lean: no realtime log, no running metrics)" if args.lean else "")
    )
    print(f"medians of {args.repeats} rounds (bare, vert, same record in turn)")
    for t in (bare, plugin, record):
        print(
            f"{t.name:>22}: {t.rate:7.1f} samples/s ({t.rate / ideal:6.1%} of ideal), "
            f"wall {t.wall:6.2f} s, process CPU {t.cpu:6.2f} s ({1000 * t.cpu / t.samples:.2f} ms/sample), "
            f"log {t.log_bytes / 1e6:.2f} MB"
        )

    def per_sample(more: Timing, less: Timing) -> float:
        return 1000 * (more.cpu - less.cpu) / n

    print(f"plugin's own CPU time: {per_sample(plugin, bare):.2f} ms/sample (vert's process CPU minus the bare run's)")
    print(
        f"  Inspect's work on what a vert sample records: {per_sample(record, bare):.2f} ms/sample (same record - bare)"
    )
    print(f"  the plugin's code: {per_sample(plugin, record):.2f} ms/sample (vert - same record)")
    print(f"vert's wall: {plugin.wall / bare.wall:.2f}x bare, {plugin.wall / record.wall:.2f}x same record")


if __name__ == "__main__":
    main()
