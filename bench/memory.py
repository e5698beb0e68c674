"""Peak memory of `vert` against a bare Inspect task, split into a fixed cost and a growth per sample.

Each run is a fresh Python process that builds one task on synthesized report pairs (150-250 words each,
stitched from the demo set by `throughput.synthesize_pairs`), evaluates it against the scripted judge of
`bench/throughput.py` (no latency by default) and reports its peak resident set size (``ru_maxrss``). The
tasks are `vert` and Inspect's own `model_graded_qa` on the same pairs with the candidate replayed. Two sizes
per task give a line: growth per sample = (peak at the larger size - peak at the smaller) / (size difference),
fixed cost = peak at the smaller size - that growth x smaller size. The serialized sample size is the mean
uncompressed size of the sample records in the run's ``.eval`` log.

The plugin's fixed cost includes importing scipy.stats (for its agreement metrics), about 76 MiB.

Usage::

    python bench/memory.py [--sizes 200 1000] [--max-connections C] [--latency L]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

TASKS = ("vert", "bare")
MIB = 1024 * 1024


def serialized_sample_bytes(log_file: str) -> float:
    """Mean uncompressed size of the sample records in an ``.eval`` log."""
    with zipfile.ZipFile(log_file) as archive:
        sizes = [i.file_size for i in archive.infolist() if i.filename.startswith("samples/")]
    return sum(sizes) / len(sizes)


def child(task: str, size: int, max_connections: int, latency: float) -> None:
    """Run one task at one size in this process and print its peak RSS and log figures as JSON."""
    from throughput import bare_task, judge_model, plugin_task, run, synthesize_pairs

    with tempfile.TemporaryDirectory() as tmp:
        pairs = synthesize_pairs(size, Path(tmp) / "pairs.jsonl")
        build = plugin_task if task == "vert" else bare_task
        log = run(build(pairs), judge_model(latency), max_connections, tmp)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        result = {
            "peak_bytes": peak,
            "samples": len(log.samples or []),
            "sample_bytes": serialized_sample_bytes(log.location),
        }
    print(json.dumps(result))


@dataclass(frozen=True)
class Line:
    """Peak RSS at two sizes, and the line through them."""

    task: str
    sizes: tuple[int, int]
    peaks: tuple[float, float]
    sample_bytes: float

    @property
    def growth(self) -> float:
        """Bytes of peak RSS per added sample."""
        return (self.peaks[1] - self.peaks[0]) / (self.sizes[1] - self.sizes[0])

    @property
    def fixed(self) -> float:
        """Peak RSS with no sample, extrapolated."""
        return self.peaks[0] - self.growth * self.sizes[0]


def measure(task: str, sizes: tuple[int, int], max_connections: int, latency: float) -> Line:
    """Run `task` at both sizes, each in a fresh process."""
    peaks, sample_bytes = [], 0.0
    for size in sizes:
        command = [sys.executable, __file__, "--child", task, "--sizes", str(size), str(size)]
        command += ["--max-connections", str(max_connections), "--latency", str(latency)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{task} at {size} pairs failed:\n{done.stderr[-3000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if result["samples"] != size:
            raise RuntimeError(f"{task} at {size} pairs logged {result['samples']} samples")
        peaks.append(float(result["peak_bytes"]))
        sample_bytes = float(result["sample_bytes"])
    return Line(task, sizes, (peaks[0], peaks[1]), sample_bytes)


def main(argv: list[str] | None = None) -> None:
    """Print each task's peaks, fixed cost and growth per sample, and the plugin/bare ratios."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs=2, default=(200, 1000), help="the two numbers of pairs")
    parser.add_argument("--max-connections", type=int, default=20, help="concurrent judge requests")
    parser.add_argument("--latency", type=float, default=0.0, help="judge seconds per request")
    parser.add_argument("--child", choices=TASKS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.sizes[0], args.max_connections, args.latency)
        return
    sizes = (min(args.sizes), max(args.sizes))
    if sizes[0] == sizes[1]:
        parser.error("--sizes needs two different numbers")
    lines = {task: measure(task, sizes, args.max_connections, args.latency) for task in TASKS}
    print(f"peak RSS at {sizes[0]} and {sizes[1]} pairs (each run a fresh process)")
    for line in lines.values():
        name = "vert" if line.task == "vert" else "bare model_graded_qa"
        print(
            f"{name:>22}: {line.peaks[0] / MIB:6.1f} -> {line.peaks[1] / MIB:6.1f} MiB; "
            f"fixed {line.fixed / MIB:6.1f} MiB, growth {line.growth / MIB:.4f} MiB/sample; "
            f"serialized sample {line.sample_bytes / 1024:.1f} KiB"
        )
    plugin, bare = lines["vert"], lines["bare"]
    print(
        f"plugin/bare: growth per sample {plugin.growth / bare.growth:.2f}x, "
        f"serialized sample {plugin.sample_bytes / bare.sample_bytes:.2f}x, "
        f"fixed cost {(plugin.fixed - bare.fixed) / MIB:+.1f} MiB"
    )


if __name__ == "__main__":
    main()
