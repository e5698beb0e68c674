"""Run a benchmark from a git worktree at an installed package's cost: ``PYTHONPATH=$PWD:$PWD/bench/worktree_site``.

At each evaluation Inspect looks up the installed distribution that ships the task's module. An installed package
(or the checkout its editable install points at) answers at once; a worktree's modules lie outside that source
root, so Inspect scans every installed distribution instead, seconds per evaluation on a busy machine, which a
user never pays. Python imports this module at start-up (worker processes too, through the environment); it keeps
the scan's result, which does not change during a run, so every evaluation after the first costs what it costs
installed.
"""

import functools
import importlib.metadata

importlib.metadata.packages_distributions = functools.cache(importlib.metadata.packages_distributions)
