"""The table builder over runs in memory: which columns exist, what each cell shows, and why an empty one is empty."""

from __future__ import annotations

import pytest

from radiology_tasks.agreement.model import (
    PROTOCOL_BY_NAME,
    ColumnGroup,
    Dataset,
    PairedTest,
    PreferenceFigures,
    Published,
    RowId,
    Source,
    TauFigures,
)
from radiology_tasks.agreement.runs import AgreementRun
from radiology_tasks.agreement.table import build_table, dataset_labels, make_cell, published_for
from tests.agreement.memory import RADPREF, RATE, REXVAL, figure, preference, run, tau


def _group(table, dataset: str, protocol: str) -> ColumnGroup:
    (group,) = [g for g in table.groups if g.dataset.name == dataset and g.protocol.name == protocol]
    return group


def test_a_cell_holds_the_figures_its_run_gives():
    table = build_table([run("a.eval", tau("bleu_2", 0.41, low=0.2, high=0.6, n=11, unscored=1, no_expert=2))])
    (group,) = table.groups
    cell = table.cell(RowId("bleu_2"), group)
    assert cell.figures == TauFigures(0.41, 0.2, 0.6, 11, 1, 2)
    assert (cell.reason, cell.log, cell.also, cell.differing) == (None, "a.eval", (), ())
    assert (group.protocol.name, group.dataset, group.label, group.id) == ("score", RATE, "rate", "rate / score")


def test_each_protocol_reads_its_own_figure_names():
    figures = [
        *tau("green_ec", 0.5, infix="_vs_errors"),
        *tau("green_ec", 0.3, infix="_vs_total_errors"),
        *tau("green_ec", 0.1),
    ]
    table = build_table([run("a.eval", figures, dataset=REXVAL)])
    taus = {g.protocol.name: table.cell(RowId("green_ec"), g).figures.tau for g in table.groups}
    assert taus == {"score": 0.1, "significant_errors": 0.5, "total_errors": 0.3}
    assert [g.protocol.name for g in table.groups] == ["score", "significant_errors", "total_errors"]


def test_preference_cells_hold_accuracy_pairs_right_wrong_and_ties():
    figures = preference("bleu_2", 0.6, right=6, wrong=4, ties=2)
    table = build_table([run("p.eval", figures, keys=["bleu_2"], dataset=RADPREF)])
    (group,) = table.groups
    assert group.protocol.name == "preference" and not group.protocol.is_tau
    assert table.cell(RowId("bleu_2"), group).figures == PreferenceFigures(0.6, 12, 6, 4, 2)
    only = build_table([run("p.eval", [figure("x_preference_accuracy", 0.5)], keys=["x"], dataset=RADPREF)])
    assert only.cell(RowId("x"), only.groups[0]).figures == PreferenceFigures(0.5, None, None, None, None)


def test_groups_come_dataset_by_dataset_in_the_order_given_and_only_where_figures_exist():
    table = build_table(
        [
            run("x.eval", tau("bleu_2", 0.2, infix="_vs_errors"), dataset=REXVAL),
            run("r.eval", tau("bleu_2", 0.4)),
            run("p.eval", preference("bleu_2", 0.7, right=7, wrong=3, ties=0), keys=["bleu_2"], dataset=RADPREF),
        ]
    )
    assert [g.id for g in table.groups] == ["rexval / significant_errors", "rate / score", "radpref / preference"]


def test_a_metric_no_run_on_a_dataset_scored_says_so():
    table = build_table([run("r.eval", tau("bleu_2", 0.4)), run("x.eval", tau("chrf", 0.3), dataset=REXVAL)])
    cell = table.cell(RowId("chrf"), _group(table, "rate", "score"))
    assert cell.figures is None and cell.log is None
    assert cell.reason == "no run on rate scored chrf"


def test_a_run_scoring_the_metric_without_the_protocols_figures_is_named():
    figures = [*tau("green", 0.4, infix="_vs_errors"), *tau("green", 0.2)]
    table = build_table(
        [run("green.eval", figures, dataset=REXVAL), run("suite.eval", [], keys=["bleu_2"], dataset=REXVAL)]
    )
    cell = table.cell(RowId("bleu_2"), _group(table, "rexval", "significant_errors"))
    assert cell.figures is None
    assert cell.reason == (
        "no run scoring bleu_2 on rexval gives its tau-b vs mean clinically significant errors (runs: suite.eval)"
    )


def test_an_undefined_tau_shows_its_run_reports_reason():
    why = "the judge gave all 12 expert-rated samples the same vert (0.5)"
    table = build_table([run("v.eval", tau("vert", None, reason=why))])
    cell = table.cell(RowId("vert"), table.groups[0])
    assert cell.reason == why
    assert cell.figures == TauFigures(None, None, None, 12, 0, 0)
    assert cell.log == "v.eval"


def test_an_undefined_statistic_without_a_reason_still_gets_one():
    table = build_table([run("v.eval", [figure("vert_kendall_tau", None)], keys=["vert"])])
    assert table.cell(RowId("vert"), table.groups[0]).reason == "vert_kendall_tau is undefined on these samples"
    pref = build_table([run("p.eval", [figure("x_preference_accuracy", None)], keys=["x"], dataset=RADPREF)])
    assert pref.cell(RowId("x"), pref.groups[0]).reason == "x_preference_accuracy is undefined on these samples"


def test_an_undefined_interval_beside_a_defined_tau_keeps_its_reason():
    figures = [
        figure("vert_kendall_tau", 0.3),
        figure("vert_kendall_tau_ci_low", None, "every bootstrap resample was constant on one side"),
        figure("vert_kendall_tau_ci_high", None, "every bootstrap resample was constant on one side"),
    ]
    cell = build_table([run("v.eval", figures)]).cell(RowId("vert"), build_table([run("v.eval", figures)]).groups[0])
    assert cell.reason is None
    assert cell.figures.interval_reason == "every bootstrap resample was constant on one side"
    plain = build_table([run("v.eval", tau("vert", 0.3))])
    assert plain.cell(RowId("vert"), plain.groups[0]).figures.interval_reason is None


def test_the_newest_of_two_runs_is_shown_and_the_other_listed_as_same_or_different():
    older = run("old.eval", tau("bleu_2", 0.4), created="2026-01-01T00:00:00+00:00")
    newer = run("new.eval", tau("bleu_2", 0.4), created="2026-02-01T00:00:00+00:00")
    other = run("other.eval", tau("bleu_2", 0.1), created="2026-01-15T00:00:00+00:00")
    table = build_table([older, newer, other])
    cell = table.cell(RowId("bleu_2"), table.groups[0])
    assert (cell.log, cell.also, cell.differing) == ("new.eval", ("old.eval",), ("other.eval",))
    assert cell.figures.tau == 0.4


def test_runs_started_at_the_same_time_show_the_first_given():
    first = run("first.eval", tau("bleu_2", 0.4))
    second = run("second.eval", tau("bleu_2", 0.2))
    cell = build_table([first, second]).cell(RowId("bleu_2"), build_table([first, second]).groups[0])
    assert (cell.log, cell.differing) == ("first.eval", ("second.eval",))


def test_a_run_without_the_figures_does_not_hide_one_with_them():
    with_figures = run("old.eval", tau("bleu_2", 0.4), created="2026-01-01T00:00:00+00:00")
    without = run("new.eval", [], keys=["bleu_2"], created="2026-03-01T00:00:00+00:00")
    cell = build_table([with_figures, without]).cell(RowId("bleu_2"), build_table([with_figures]).groups[0])
    assert (cell.log, cell.figures.tau, cell.also, cell.differing) == ("old.eval", 0.4, (), ())


def test_runs_on_other_data_are_other_columns_and_clashing_names_are_told_apart():
    limited = Dataset("rate", "rate-eval", "aaaa1111", None, None, "ids-first-6", 6)
    table = build_table([run("full.eval", tau("bleu_2", 0.4)), run("part.eval", tau("bleu_2", 0.1), dataset=limited)])
    assert [g.label for g in table.groups] == [
        "rate (rate-eval, 12 samples, data aaaa1111)",
        "rate (rate-eval, 6 samples, data aaaa1111)",
    ]
    assert [table.cell(RowId("bleu_2"), g).figures.tau for g in table.groups] == [0.4, 0.1]


def test_dataset_labels_stay_unique_when_everything_but_the_samples_clashes():
    one = Dataset("d", "flat", "ffff0000", None, None, "ids-1", 5)
    two = Dataset("d", "flat", "ffff0000", None, None, "ids-2", 5)
    other = Dataset("e", "flat", "eeee", None, None, "ids-3", 5)
    assert dataset_labels([one, two, other]) == [
        "d (flat, 5 samples, data ffff0000)",
        "d (flat, 5 samples, data ffff0000) #2",
        "e",
    ]


def test_a_name_shared_by_runs_on_the_same_data_is_one_column():
    same = Dataset("elsewhere", *RATE.identity, RATE.n_samples)
    table = build_table([run("a.eval", tau("bleu_2", 0.4)), run("b.eval", tau("chrf", 0.3), dataset=same)])
    assert [g.label for g in table.groups] == ["rate"]
    assert table.cell(RowId("chrf"), table.groups[0]).log == "b.eval"


def test_rows_follow_the_logs_and_judged_metrics_are_split_by_judge():
    first = run("a.eval", [*tau("green", 0.4), *tau("bleu_2", 0.1)], judge="judge-a", judged=("green",))
    second = run("b.eval", [*tau("green", 0.2), *tau("bleu_2", 0.1)], judge="judge-b", judged=("green",))
    table = build_table([first, second])
    assert table.rows == [RowId("green", "judge-a"), RowId("bleu_2"), RowId("green", "judge-b")]
    group = table.groups[0]
    assert table.cell(RowId("green", "judge-a"), group).figures.tau == 0.4
    assert table.cell(RowId("green", "judge-b"), group).figures.tau == 0.2
    assert table.cell(RowId("bleu_2"), group).also == ("b.eval",)
    assert RowId("green", "judge-a").label == "green (judge judge-a)" and RowId("bleu_2").label == "bleu_2"
    assert table.logs == ["a.eval", "b.eval"]


def _published(metric: str, dataset: str, protocol: str, printed: str = "0.4474") -> Published:
    source = Source("A paper", "Table 2", "GPT-4.1 mini", metric.upper(), "tau vs the score")
    statistic = PROTOCOL_BY_NAME[protocol].statistic
    return Published(metric, dataset, protocol, statistic, float(printed), printed, "GPT-4.1 mini", source)


def test_published_figures_sit_beside_the_cells_of_their_metric_dataset_layout_and_protocol():
    entries = [
        _published("vert", "rate-eval", "score"),
        _published("vert", "rate-eval", "significant_errors", "0.1"),
        _published("vert", "rexval", "score", "0.2"),
        _published("green", "rate-eval", "score", "0.3"),
    ]
    table = build_table([run("v.eval", [*tau("vert", 0.5), *tau("chrf", 0.1)])], entries)
    group = table.groups[0]
    assert table.cell(RowId("vert"), group).published == (entries[0],)
    assert table.cell(RowId("chrf"), group).published == ()
    assert published_for(RowId("vert", "any judge"), group, entries) == (entries[0],)


def test_published_figures_are_shown_beside_cells_that_cannot_be_computed():
    entries = [_published("vert", "rate-eval", "score")]
    table = build_table([run("b.eval", tau("bleu_2", 0.1)), run("v.eval", [], keys=["vert"])], entries)
    cell = table.cell(RowId("vert"), table.groups[0])
    assert cell.figures is None and cell.published == tuple(entries)
    empty = build_table([run("b.eval", tau("bleu_2", 0.1)), run("x.eval", tau("vert", 0.2), dataset=REXVAL)], entries)
    assert empty.cell(RowId("vert"), _group(empty, "rate", "score")).published == tuple(entries)


def test_paired_tests_cover_every_two_defined_taus_of_a_tau_group_with_their_runs():
    calls: list[tuple[str, RowId, str, RowId, str]] = []

    def tester(group: ColumnGroup, first: tuple[RowId, AgreementRun], second: tuple[RowId, AgreementRun]):
        calls.append((group.id, first[0], first[1].log, second[0], second[1].log))
        return PairedTest(group.id, first[0], second[0], 0.1, 0.5, 12, 100, 100)

    runs = [
        run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.3), *tau("vert", None, reason="constant")]),
        run("b.eval", tau("rouge_l", 0.2)),
        run(
            "p.eval",
            [*preference("bleu_2", 0.6, right=3, wrong=2, ties=0), *preference("chrf", 0.5, right=2, wrong=2, ties=0)],
            keys=["bleu_2", "chrf"],
            dataset=RADPREF,
        ),
    ]
    table = build_table(runs, paired=tester, resamples=100, seed=3)
    assert calls == [
        ("rate / score", RowId("bleu_2"), "a.eval", RowId("chrf"), "a.eval"),
        ("rate / score", RowId("bleu_2"), "a.eval", RowId("rouge_l"), "b.eval"),
        ("rate / score", RowId("chrf"), "a.eval", RowId("rouge_l"), "b.eval"),
    ]
    assert len(table.tests) == 3 and (table.resamples, table.seed) == (100, 3)
    assert build_table(runs).tests == []


def test_make_cell_returns_the_run_its_figures_come_from():
    shown = run("new.eval", tau("bleu_2", 0.4), created="2026-05-01T00:00:00+00:00")
    older = run("old.eval", tau("bleu_2", 0.4))
    group = build_table([shown]).groups[0]
    cell, source = make_cell(RowId("bleu_2"), group, [older, shown])
    assert source is shown and cell.log == "new.eval"
    assert make_cell(RowId("chrf"), group, [older]) == (make_cell(RowId("chrf"), group, [older])[0], None)


@pytest.mark.parametrize("protocol", ["score", "significant_errors", "total_errors", "preference"])
def test_protocols_name_their_figures(protocol):
    found = PROTOCOL_BY_NAME[protocol]
    expected = {
        "score": "k_kendall_tau",
        "significant_errors": "k_vs_errors_kendall_tau",
        "total_errors": "k_vs_total_errors_kendall_tau",
        "preference": "k_preference_accuracy",
    }[protocol]
    assert found.main_figure("k") == expected
    assert found.statistic == ("preference_accuracy" if protocol == "preference" else "kendall_tau")
    assert found.is_tau == (protocol != "preference")


def test_a_tau_without_an_interval_in_its_run_has_no_interval_and_no_reason_for_it():
    table = build_table([run("v.eval", [figure("vert_kendall_tau", 0.3)], keys=["vert"])])
    cell = table.cell(RowId("vert"), table.groups[0])
    assert cell.figures == TauFigures(0.3, None, None, None, None, None, None)
    assert cell.reason is None


def test_every_run_scoring_a_metric_without_the_protocol_is_named():
    runs = [run("a.eval", tau("bleu_2", 0.2)), run("b.eval", [], keys=["chrf"]), run("c.eval", [], keys=["chrf"])]
    cell = build_table(runs).cell(RowId("chrf"), build_table(runs).groups[0])
    assert cell.reason == "no run scoring chrf on rate gives its tau-b vs the expert score (runs: b.eval, c.eval)"


def test_a_clashing_name_shows_the_first_eight_characters_of_the_data_hash():
    one = Dataset("d", "flat", "0123456789abcdef", None, None, "ids-1", 5)
    two = Dataset("d", "flat", None, None, None, "ids-2", 7)
    assert dataset_labels([one, two]) == ["d (flat, 5 samples, data 01234567)", "d (flat, 7 samples, data None)"]


def test_the_paired_tests_settings_default_to_a_thousand_resamples_and_seed_zero():
    table = build_table([run("a.eval", tau("bleu_2", 0.2))])
    assert (table.resamples, table.seed, table.tests) == (1000, 0, [])
