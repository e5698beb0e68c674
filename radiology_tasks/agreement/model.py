"""The agreement table's parts: protocols, datasets, rows, cells, paired tests and the table itself.

A protocol says what a metric is compared with and under which names a run report gives the figures; the rest
are plain frozen records that the builder fills in and the writers read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ProtocolName = Literal["score", "significant_errors", "total_errors", "preference"]


@dataclass(frozen=True)
class Protocol:
    """How a metric is held against the experts, and the figure names a run report gives for it.

    Attributes:
        name: The protocol's name in the outputs and in the published figures' file.
        infix: What follows the metric key in its figure names (``<key><infix>_kendall_tau``).
        label: A short description for column headings.
        statistic: The statistic a cell shows and published figures give (``kendall_tau`` or
            ``preference_accuracy``).
        main: The suffix of that statistic's figure name after the infix (``kendall_tau`` or ``accuracy``).
    """

    name: ProtocolName
    infix: str
    label: str
    statistic: str
    main: str

    @property
    def is_tau(self) -> bool:
        """Whether the cells hold Kendall's tau-b (else pairwise preference accuracy)."""
        return self.statistic == "kendall_tau"

    def figure(self, key: str, suffix: str) -> str:
        """The name of one of `key`'s figures under this protocol (``suffix`` e.g. ``kendall_tau_ci_low``)."""
        return f"{key}{self.infix}_{suffix}"

    def main_figure(self, key: str) -> str:
        """The name of `key`'s figure of the statistic the cells show."""
        return self.figure(key, self.main)


PROTOCOLS: tuple[Protocol, ...] = (
    Protocol("score", "", "tau-b vs the expert score", "kendall_tau", "kendall_tau"),
    Protocol(
        "significant_errors", "_vs_errors", "tau-b vs mean clinically significant errors", "kendall_tau", "kendall_tau"
    ),
    Protocol("total_errors", "_vs_total_errors", "tau-b vs mean total errors", "kendall_tau", "kendall_tau"),
    Protocol("preference", "_preference", "pairwise preference accuracy", "preference_accuracy", "accuracy"),
)
"""Every protocol, in the order of the table's column groups."""

PROTOCOL_BY_NAME: dict[str, Protocol] = {protocol.name: protocol for protocol in PROTOCOLS}


@dataclass(frozen=True)
class Value:
    """One figure of a run's report: its value, or why it is undefined.

    Attributes:
        value: The number (None when undefined on the run's samples).
        reason: Why it is undefined.
    """

    value: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Dataset:
    """The data a run scored: runs agree on it when every field but `name` is equal.

    Attributes:
        name: What the run's data summary calls its source (a path's last part, or a registered name).
        layout: The layout the data was read with.
        data: The data files' SHA-256 (their hub revision for a log that predates the hashes).
        candidates: The SHA-256 of a separate candidates file, if the run read one.
        reports: The SHA-256 of a separate reports file, if the run read one.
        samples: A SHA-256 of the run's sorted sample ids.
        n_samples: How many samples the run scored.
    """

    name: str
    layout: str | None
    data: str | None
    candidates: str | None
    reports: str | None
    samples: str
    n_samples: int

    @property
    def identity(self) -> tuple[str | None, ...]:
        """What two runs must share to be on the same data."""
        return (self.layout, self.data, self.candidates, self.reports, self.samples)


@dataclass(frozen=True)
class RowId:
    """One row of the table: a per-report metric, and for a metric an LLM judge scores, the judge and the prompt.

    A judge's prompt can give the scores of another metric from the same answer (one suite metric's prompt may also
    yield another's error counts), which are not what that metric's own prompt gives: such a row is told apart by its
    prompt.

    Attributes:
        key: The metric's score key (``bleu_2``, ``rouge_l``, ...).
        judge: The model in the grader role for a metric an LLM judge scores; None for the others.
        prompt: The suite metric whose prompt the judge answered, where it is not the key's own (the task's name
            when a run of one judge metric also reports another's key); None for the key's own prompt and for
            metrics no judge scores.
    """

    key: str
    judge: str | None = None
    prompt: str | None = None

    @property
    def label(self) -> str:
        """The row's heading."""
        if self.judge is None:
            return self.key
        prompt = "" if self.prompt is None else f"{self.prompt} prompt, "
        return f"{self.key} ({prompt}judge {self.judge})"


@dataclass(frozen=True)
class TauFigures:
    """A metric's Kendall tau-b against the experts, as its run report gives it.

    Attributes:
        tau: Tau-b (None when undefined).
        low: Lower end of its bootstrap interval (None when undefined).
        high: Upper end of its bootstrap interval.
        n: Samples with both the metric's value and the experts'.
        n_unscored: Samples the metric left unscored (or whose value was filled in).
        n_no_expert: Samples without the experts' value.
        interval_reason: Why the interval is undefined while tau is not (None otherwise).
    """

    tau: float | None
    low: float | None
    high: float | None
    n: int | None
    n_unscored: int | None
    n_no_expert: int | None
    interval_reason: str | None = None


@dataclass(frozen=True)
class PreferenceFigures:
    """A metric's pairwise preference accuracy, as its run report gives it.

    Attributes:
        accuracy: Right over right and wrong (None when undefined).
        pairs: Pairs of candidates the experts rated differently, with both values present.
        right: Pairs the metric orders as the experts did.
        wrong: Pairs the metric orders the other way.
        ties: Pairs the metric scores equally (counted apart from right and wrong).
    """

    accuracy: float | None
    pairs: int | None
    right: int | None
    wrong: int | None
    ties: int | None


Figures = TauFigures | PreferenceFigures


@dataclass(frozen=True)
class Source:
    """Where a published figure was read.

    Attributes:
        title: The paper's title.
        table: The table (and block of it) read.
        row: The row read (the judge, for an LLM-judge metric).
        column: The column read (the metric as the paper names it).
        variant: Exactly what the paper correlated with what (the statistic, the experts' side, the data).
    """

    title: str
    table: str
    row: str
    column: str
    variant: str

    @property
    def where(self) -> str:
        """Table, row and column."""
        return f"{self.table}, row {self.row}, column {self.column}"


@dataclass(frozen=True)
class Published:
    """A figure a paper prints for a metric, dataset and protocol.

    Attributes:
        metric: The metric's score key in this project.
        dataset: The layout of the dataset it was computed on.
        protocol: The protocol's name.
        statistic: ``kendall_tau`` or ``preference_accuracy``.
        value: The number as a float.
        printed: The number exactly as the paper prints it.
        judge: The judge model the paper names, for an LLM-judge metric.
        source: Where it was read.
        notes: What to know when comparing with it (how the paper's setting differs, what is assumed).
    """

    metric: str
    dataset: str
    protocol: str
    statistic: str
    value: float
    printed: str
    judge: str | None
    source: Source
    notes: str = ""


@dataclass(frozen=True)
class Cell:
    """One metric under one column group: its figures, or the reason there are none.

    Attributes:
        figures: The figures, or None when the cell cannot be computed.
        reason: Why the cell's statistic has no value (no run gives it, or it is undefined on the samples).
        log: The run the figures come from.
        also: Other runs giving the same figures.
        differing: Other runs giving different figures; the newest run's are shown.
        published: What papers print for the same metric, dataset and protocol.
    """

    figures: Figures | None
    reason: str | None
    log: str | None = None
    also: tuple[str, ...] = ()
    differing: tuple[str, ...] = ()
    published: tuple[Published, ...] = ()


@dataclass(frozen=True)
class ColumnGroup:
    """One dataset under one protocol.

    Attributes:
        id: A short name unique in the table (dataset label and protocol).
        dataset: The data.
        label: The dataset's label in headings (its name, made unique in the table).
        protocol: The protocol.
    """

    id: str
    dataset: Dataset
    label: str
    protocol: Protocol


@dataclass(frozen=True)
class PairedTest:
    """Two metrics' taus in one column group, compared by a paired bootstrap on the samples both scored.

    Attributes:
        group: The column group's id.
        first: The first metric (row order).
        second: The second metric.
        difference: tau(first) - tau(second) on the shared samples (None when the test cannot be made).
        p_value: The test's two-sided p-value.
        n: Shared samples.
        resamples: Bootstrap resamples drawn.
        valid: Resamples where both taus were defined.
        reason: Why the test cannot be made (None when it was).
    """

    group: str
    first: RowId
    second: RowId
    difference: float | None
    p_value: float | None
    n: int
    resamples: int
    valid: int
    reason: str | None = None


@dataclass(frozen=True)
class AgreementTable:
    """The whole table: rows, column groups, a cell for every pair of them, and the paired tests.

    Attributes:
        rows: The metrics, in the order the logs first give them.
        groups: The column groups, dataset by dataset in the order the logs first give them, protocols in the
            order of `PROTOCOLS`.
        cells: Each row's cells, by column group id.
        tests: The paired tests of every two metrics with a tau in the same column group.
        logs: The logs read, in the order given.
        resamples: Bootstrap resamples of the paired tests.
        seed: Seed of the paired tests.
    """

    rows: list[RowId]
    groups: list[ColumnGroup]
    cells: dict[RowId, dict[str, Cell]]
    tests: list[PairedTest] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    resamples: int = 1000
    seed: int = 0

    def cell(self, row: RowId, group: ColumnGroup) -> Cell:
        """The cell of `row` under `group`."""
        return self.cells[row][group.id]
