"""`radiology-tasks agreement LOG... --out DIR`: the table of every metric's agreement with radiologists."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def agreement_command(
    logs: Sequence[str], out: str, *, resamples: int = 1000, seed: int = 0, paired_tests: bool = True
) -> int:
    """Read the logs, build the table with the published figures beside it (and, with `paired_tests`, the paired
    test of every two metrics' taus in a column group), write its four files into `out` and print it as Markdown.

    Raises:
        InputError: a log the table cannot use (naming the file).
    """
    from radiology_tasks.agreement.outputs import markdown, write_outputs
    from radiology_tasks.agreement.paired import paired_tester
    from radiology_tasks.agreement.published import published_figures
    from radiology_tasks.agreement.runs import read_runs
    from radiology_tasks.agreement.table import build_table

    runs = read_runs(logs)
    tester = paired_tester(resamples, seed) if paired_tests else None
    table = build_table(runs, published_figures(), paired=tester, resamples=resamples, seed=seed)
    written = write_outputs(table, Path(out))
    print(markdown(table), end="")
    print(f"written: {', '.join(str(path) for path in written.values())}", file=sys.stderr)
    return 0
