"""Pausing Python's cyclic garbage collector while a reward call scores its batch.

A reward call allocates tens of thousands of short-lived objects (samples, messages, scores, the log's records),
enough to set off a full collection of the process's whole heap: about a quarter of a second in a process that has
only imported Inspect and the metrics, about 0.7 s once rouge-score and sacrebleu are loaded too (measured on the
2-core machine of docs/scaling.md), and more in a training process that holds a model. That is as long as scoring
a few hundred lexical rewards. Reference counting still frees the call's objects as it goes, and what the call
leaves behind is freed when it returns, so a collection paused for the call is not merely deferred to the trainer.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block and resume it after, also when the block raises, unless it
    was already off when the block began (then it stays off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
