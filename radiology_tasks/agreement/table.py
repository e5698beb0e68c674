"""Build the agreement table from runs: gather each metric's figures per dataset and protocol, align them, and
say why a cell has none.

No statistic is computed here: the figures are those the runs' reports give, the paired tests come from the
function passed in, and the published figures from the package's file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from radiology_tasks.agreement.model import (
    PROTOCOLS,
    AgreementTable,
    Cell,
    ColumnGroup,
    Dataset,
    Figures,
    PairedTest,
    PreferenceFigures,
    Protocol,
    Published,
    RowId,
    TauFigures,
)
from radiology_tasks.agreement.runs import AgreementRun

PairedTester = Callable[[ColumnGroup, tuple[RowId, AgreementRun], tuple[RowId, AgreementRun]], PairedTest]
"""Makes the paired test of two metrics' taus in a column group, from the runs their cells come from."""


def _value(run: AgreementRun, name: str) -> float | None:
    figure = run.figures.get(name)
    return None if figure is None else figure.value


def _count(run: AgreementRun, name: str) -> int | None:
    value = _value(run, name)
    return None if value is None else int(value)


def _reason(run: AgreementRun, name: str) -> str | None:
    figure = run.figures.get(name)
    return None if figure is None else figure.reason


def tau_figures(run: AgreementRun, key: str, protocol: Protocol) -> TauFigures | None:
    """`key`'s tau-b figures under `protocol` as `run` gives them; None when it gives none."""
    name = protocol.main_figure(key)
    if name not in run.figures:
        return None
    tau = _value(run, name)
    low = _value(run, f"{name}_ci_low")
    interval_reason = _reason(run, f"{name}_ci_low") if tau is not None and low is None else None
    return TauFigures(
        tau=tau,
        low=low,
        high=_value(run, f"{name}_ci_high"),
        n=_count(run, protocol.figure(key, "n_pairs")),
        n_unscored=_count(run, protocol.figure(key, "n_unscored")),
        n_no_expert=_count(run, protocol.figure(key, "n_no_expert")),
        interval_reason=interval_reason,
    )


def preference_figures(run: AgreementRun, key: str, protocol: Protocol) -> PreferenceFigures | None:
    """`key`'s pairwise preference figures as `run` gives them; None when it gives none."""
    name = protocol.main_figure(key)
    if name not in run.figures:
        return None
    return PreferenceFigures(
        accuracy=_value(run, name),
        pairs=_count(run, protocol.figure(key, "pairs")),
        right=_count(run, protocol.figure(key, "right")),
        wrong=_count(run, protocol.figure(key, "wrong")),
        ties=_count(run, protocol.figure(key, "ties")),
    )


def figures_of(run: AgreementRun, key: str, protocol: Protocol) -> Figures | None:
    """`key`'s figures under `protocol` as `run` gives them; None when it gives none."""
    return tau_figures(run, key, protocol) if protocol.is_tau else preference_figures(run, key, protocol)


def statistic_of(figures: Figures) -> float | None:
    """The cell's statistic: tau-b, or the preference accuracy."""
    return figures.tau if isinstance(figures, TauFigures) else figures.accuracy


def dataset_labels(datasets: Sequence[Dataset]) -> list[str]:
    """A heading per dataset: its name, with its layout, sample count and data hash added where names clash."""
    labels: list[str] = []
    for dataset in datasets:
        label = dataset.name
        if sum(other.name == dataset.name for other in datasets) > 1:
            label = f"{dataset.name} ({dataset.layout}, {dataset.n_samples} samples, data {str(dataset.data)[:8]})"
        if label in labels:
            label = f"{label} #{labels.count(label) + 1}"
        labels.append(label)
    return labels


def _datasets(runs: Sequence[AgreementRun]) -> list[tuple[Dataset, list[AgreementRun]]]:
    grouped: dict[tuple[str | None, ...], tuple[Dataset, list[AgreementRun]]] = {}
    for run in runs:
        grouped.setdefault(run.dataset.identity, (run.dataset, []))[1].append(run)
    return list(grouped.values())


def _rows(runs: Sequence[AgreementRun]) -> list[RowId]:
    return list(dict.fromkeys(row for run in runs for row in run.rows))


def _groups(datasets: list[tuple[Dataset, list[AgreementRun]]]) -> list[tuple[ColumnGroup, list[AgreementRun]]]:
    labels = dataset_labels([dataset for dataset, _ in datasets])
    groups = []
    for index, (dataset, runs) in enumerate(datasets):
        label = labels[index]
        for protocol in PROTOCOLS:
            if any(figures_of(run, row.key, protocol) is not None for run in runs for row in run.rows):
                group = ColumnGroup(id=f"{label} / {protocol.name}", dataset=dataset, label=label, protocol=protocol)
                groups.append((group, runs))
    return groups


def published_for(row: RowId, group: ColumnGroup, published: Sequence[Published]) -> tuple[Published, ...]:
    """The published figures for the row's metric on the group's dataset (by its layout) under its protocol; none
    for a key another prompt gave (the papers' figures are of each metric's own prompt)."""
    return tuple(
        entry
        for entry in published
        if entry.metric == row.key
        and row.prompt is None
        and entry.dataset == group.dataset.layout
        and entry.protocol == group.protocol.name
    )


def undefined_reason(run: AgreementRun, key: str, protocol: Protocol) -> str:
    """Why `key`'s statistic under `protocol` is undefined in `run`: its run report's reason."""
    name = protocol.main_figure(key)
    return _reason(run, name) or f"{name} is undefined on these samples"


def make_cell(
    row: RowId, group: ColumnGroup, runs: Sequence[AgreementRun], published: Sequence[Published] = ()
) -> tuple[Cell, AgreementRun | None]:
    """The cell of `row` under `group` from the group's runs, and the run its figures come from.

    Where several runs give the row's figures, the newest is shown; the others are listed as giving the same
    figures or different ones.
    """
    beside = published_for(row, group, published)
    scoring = [run for run in runs if row in run.rows]
    if not scoring:
        return Cell(None, f"no run on {group.label} scored {row.label}", published=beside), None
    giving = [(run, figures) for run in scoring if (figures := figures_of(run, row.key, group.protocol)) is not None]
    if not giving:
        logs = ", ".join(run.log for run in scoring)
        return Cell(
            None,
            f"no run scoring {row.label} on {group.label} gives its {group.protocol.label} (runs: {logs})",
            published=beside,
        ), None
    (shown, figures), *rest = sorted(giving, key=lambda item: item[0].created, reverse=True)
    cell = Cell(
        figures=figures,
        reason=None if statistic_of(figures) is not None else undefined_reason(shown, row.key, group.protocol),
        log=shown.log,
        also=tuple(run.log for run, other in rest if other == figures),
        differing=tuple(run.log for run, other in rest if other != figures),
        published=beside,
    )
    return cell, shown


def build_table(
    runs: Sequence[AgreementRun],
    published: Sequence[Published] = (),
    *,
    paired: PairedTester | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> AgreementTable:
    """The table of every metric the runs scored, under every dataset and protocol they give figures for.

    Args:
        runs: The runs, in the order the logs were given.
        published: The published figures to show beside the cells.
        paired: Makes the paired test of two metrics' taus in a column group; None: no tests.
        resamples: The paired tests' bootstrap resamples (recorded in the table).
        seed: Their seed (recorded in the table).
    """
    rows = _rows(runs)
    cells: dict[RowId, dict[str, Cell]] = {row: {} for row in rows}
    tests: list[PairedTest] = []
    groups = _groups(_datasets(runs))
    for group, group_runs in groups:
        sources: list[tuple[RowId, AgreementRun]] = []
        for row in rows:
            cell, source = make_cell(row, group, group_runs, published)
            cells[row][group.id] = cell
            if source is not None and cell.reason is None and group.protocol.is_tau:
                sources.append((row, source))
        if paired is not None:
            tests += [paired(group, first, second) for first, second in combinations(sources, 2)]
    return AgreementTable(
        rows=rows,
        groups=[group for group, _ in groups],
        cells=cells,
        tests=tests,
        logs=[run.log for run in runs],
        resamples=resamples,
        seed=seed,
    )
