"""The shared agreement statistics of every per-report score: what the scorers record of the experts, the truths it
is compared with (expert score, mean significant errors, mean total errors), pairwise preference, orientation."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest
from inspect_ai.scorer import SampleScore, Score
from scipy import stats

from radiology_tasks.core.agreement import correlate
from radiology_tasks.core.family import Family, add_family, higher_is_better, orientation, remove_family
from radiology_tasks.core.metrics import (
    ExpertPresence,
    agreement_metrics,
    agreement_pairs,
    expert_agreement,
    expert_metadata,
    preference_agreement,
    undefined_reason,
)
from radiology_tasks.core.orientation import LOWER_IS_BETTER, Orientation
from radiology_tasks.core.records import ExpertAnnotation, ReportPair


def _pair(
    pair_id: str, score: float | None = None, *, study: str = "s1", reference: str = "Clear lungs."
) -> ReportPair:
    expert = ExpertAnnotation(score=score, scale_min=1, scale_max=5) if score is not None else None
    return ReportPair(id=pair_id, reference=reference, candidate="x", expert=expert, metadata={"study_id": study})


def _sample(sample_id: str, value: Mapping[str, float | None], metadata: dict[str, Any]) -> SampleScore:
    return SampleScore(score=Score(value=dict(value), metadata=metadata), sample_id=sample_id)


def _counts(**kwargs: float) -> dict[str, float]:
    return {c: float(kwargs.get(c, 0)) for c in "abcdef"}


# --- what the scorers record --------------------------------------------------------------------------------


def test_expert_metadata_records_every_field_and_the_study():
    pair = ReportPair(
        id="p",
        reference="r",
        candidate="c",
        expert=ExpertAnnotation(
            score=4.0, scale_min=1, scale_max=5, significant={"a": 1}, insignificant={"b": 2}, raters=1
        ),
        metadata={"study_id": "s9"},
    )
    recorded = expert_metadata(pair)
    assert recorded["expert_score"] == 0.75
    assert recorded["expert_significant"] == {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0}
    assert recorded["expert_insignificant"]["b"] == 2
    assert recorded["expert_raters"] == 1
    assert isinstance(recorded["expert_group"], str) and len(recorded["expert_group"]) == 16


def test_candidates_of_one_study_share_a_group_and_other_studies_do_not():
    first, second = expert_metadata(_pair("a", 4)), expert_metadata(_pair("b", 2))
    assert first["expert_group"] == second["expert_group"]
    # The same reference text in another study (as the data names it) is another group.
    assert expert_metadata(_pair("c", 4, study="s2"))["expert_group"] != first["expert_group"]
    assert expert_metadata(_pair("d", 4, reference="Other."))["expert_group"] != first["expert_group"]


def test_a_candidate_the_experts_did_not_rate_records_nothing():
    assert set(expert_metadata(None).values()) == {None}
    assert set(expert_metadata(_pair("a")).values()) == {None}


# --- what the experts said, as the metric lists need it ------------------------------------------------------


def test_presence_of_each_truth():
    rexval = {"expert_significant": _counts(a=1), "expert_insignificant": _counts(), "expert_raters": 6}
    presence = ExpertPresence.of_metadata([rexval])
    assert (presence.score, presence.counts, presence.total_counts, presence.preferences) == (False, True, True, False)
    assert presence.single_rater_counts is False
    assert presence.truths() == ["significant_errors", "total_errors"]
    only_significant = ExpertPresence.of_metadata([{"expert_significant": _counts(), "expert_raters": 1}])
    assert only_significant.truths() == ["significant_errors"] and only_significant.single_rater_counts
    assert ExpertPresence.of_metadata([{"expert_score": 0.5}]).truths() == ["score"]
    assert ExpertPresence.of_metadata([]).truths() == []


def test_preferences_need_two_candidates_of_one_study_rated_differently():
    group = {"expert_group": "g"}
    assert ExpertPresence.of_metadata([{**group, "expert_score": 0.5}, {**group, "expert_score": 0.7}]).preferences
    assert not ExpertPresence.of_metadata([{**group, "expert_score": 0.5}, {**group, "expert_score": 0.5}]).preferences
    apart = [{"expert_group": "g", "expert_score": 0.5}, {"expert_group": "h", "expert_score": 0.7}]
    assert not ExpertPresence.of_metadata(apart).preferences
    assert not ExpertPresence.of_metadata([{"expert_score": 0.5}, {"expert_score": 0.7}]).preferences
    nan = [{**group, "expert_score": 0.5}, {**group, "expert_score": float("nan")}]
    assert not ExpertPresence.of_metadata(nan).preferences
    # Older CRIMSON logs name the group by the candidate's reference.
    legacy = [{"reference_key": "r", "expert_score": 0.2}, {"reference_key": "r", "expert_score": 0.9}]
    assert ExpertPresence.of_metadata(legacy).preferences


def test_presence_of_pairs_is_that_of_what_their_scorers_record():
    pairs = [_pair("a", 4), _pair("b", 2)]
    assert ExpertPresence.of_pairs(pairs) == ExpertPresence.of_metadata([expert_metadata(p) for p in pairs])
    assert ExpertPresence.of_pairs(pairs).preferences


def test_agreement_metrics_cover_every_truth_and_the_preferences():
    everything = ExpertPresence(score=True, counts=True, single_rater_counts=False, total_counts=True, preferences=True)
    assert len(agreement_metrics("k", everything)) == 4
    assert agreement_metrics("k", ExpertPresence(False, False, False)) == []
    assert len(agreement_metrics("k", everything, brief=True)) == 1
    assert agreement_metrics("k", ExpertPresence(False, True, True, True, False), brief=True) == []


def _values(metrics: list[Any], samples: list[SampleScore]) -> dict[str, float]:
    out: dict[str, float] = {}
    for metric in metrics:
        out |= metric(samples)
    return out


def test_agreement_metrics_compute_each_truth_under_its_own_names():
    samples = [
        _sample(
            str(i),
            {"k": float(i)},
            {
                "expert_score": i / 4,
                "expert_significant": _counts(a=4 - i),
                "expert_insignificant": _counts(b=i % 2),
                "expert_raters": 1,
                "expert_group": "g",
            },
        )
        for i in range(5)
    ]
    presence = ExpertPresence.of_samples(samples)
    values = _values(agreement_metrics("k", presence), samples)
    assert values["k_kendall_tau"] == pytest.approx(1.0)
    assert values["k_vs_errors_kendall_tau"] == pytest.approx(1.0)
    totals = [-(4 - i + i % 2) for i in range(5)]
    expected = stats.kendalltau(range(5), totals, variant="b").statistic
    assert values["k_vs_total_errors_kendall_tau"] == pytest.approx(expected)
    assert values["k_preference_accuracy"] == 1.0 and values["k_preference_pairs"] == 10.0


# --- mean total errors: exact ---------------------------------------------------------------------------------


def test_total_errors_are_significant_plus_insignificant_means_added_exactly():
    # Six raters: 4/6 + 6/6 significant and 0 insignificant, against 5/6 significant + 5/6 insignificant: both
    # total 10/6, equal only when added exactly. The judge orders them, so an exact tie shows in tau-b.
    def rexval(significant: dict[str, float], insignificant: dict[str, float]) -> dict[str, Any]:
        return {"expert_significant": significant, "expert_insignificant": insignificant, "expert_raters": 6}

    samples = [
        _sample("1", {"k": 0.1}, rexval(_counts(a=4 / 6, b=1.0), _counts())),
        _sample("2", {"k": 0.2}, rexval(_counts(a=5 / 6), _counts(c=5 / 6))),
        _sample("3", {"k": 0.9}, rexval(_counts(), _counts(d=1 / 6))),
        _sample("4", {"k": 0.0}, rexval(_counts(a=2.0), _counts(b=1 / 6))),
    ]
    value = expert_agreement("k", truth="total_errors", n_resamples=0)(samples)
    expected = stats.kendalltau([0.1, 0.2, 0.9, 0.0], [-10, -10, -1, -13], variant="b").statistic
    assert value["k_vs_total_errors_kendall_tau"] == pytest.approx(expected, abs=1e-12)
    assert value["k_vs_total_errors_n_pairs"] == 4.0
    significant = expert_agreement("k", truth="significant_errors", n_resamples=0)(samples)
    assert significant["k_vs_errors_kendall_tau"] == pytest.approx(
        stats.kendalltau([0.1, 0.2, 0.9, 0.0], [-10, -5, 0, -12], variant="b").statistic, abs=1e-12
    )


def test_total_errors_need_both_kinds_of_count():
    samples = [
        _sample("1", {"k": 0.1}, {"expert_significant": _counts(a=1), "expert_raters": 1}),
        _sample("2", {"k": 0.2}, {"expert_significant": _counts(a=2), "expert_raters": 1}),
    ]
    value = expert_agreement("k", truth="total_errors", n_resamples=0)(samples)
    assert value["k_vs_total_errors_n_no_expert"] == 2.0 and math.isnan(value["k_vs_total_errors_kendall_tau"])
    reason = undefined_reason("radiology_tasks/expert_agreement", "k_vs_total_errors_kendall_tau", samples)
    assert "significant and insignificant" in reason and "only 0 sample(s)" in reason


def test_bad_insignificant_counts_are_refused_naming_the_sample():
    samples = [
        _sample(
            "7", {"k": 0.1}, {"expert_significant": _counts(), "expert_insignificant": {"a": 1}, "expert_raters": 1}
        )
    ]
    with pytest.raises(ValueError, match="sample 7: expert_insignificant: category 'b' is missing"):
        expert_agreement("k", truth="total_errors")(samples)


def test_bad_significant_counts_are_refused_naming_the_sample_and_the_field():
    metadata = {"expert_significant": {"a": 1}, "expert_insignificant": _counts(), "expert_raters": 1}
    with pytest.raises(ValueError, match="sample 8: expert_significant: category 'b' is missing"):
        expert_agreement("k", truth="total_errors")([_sample("8", {"k": 0.1}, metadata)])


def test_counts_without_a_number_of_raters_are_a_single_rater_s():
    assert ExpertPresence.of_metadata([{"expert_significant": _counts(a=2)}]).single_rater_counts
    assert ExpertPresence.of_metadata([{"expert_significant": _counts(a=2), "expert_raters": None}]).single_rater_counts


def test_the_brief_agreement_metric_gives_tau_and_its_interval_only():
    samples = [_sample(str(i), {"k": float(i % 3)}, {"expert_score": i / 6}) for i in range(6)]
    (brief,) = agreement_metrics("k", ExpertPresence(score=True, counts=False, single_rater_counts=False), brief=True)
    assert set(brief(samples)) == {"k_kendall_tau", "k_kendall_tau_ci_low", "k_kendall_tau_ci_high"}


def test_the_brief_agreement_metric_gives_the_full_metric_s_tau_interval():
    # The brief metric bootstraps tau alone; its interval is the full metric's to the bit.
    samples = [_sample(str(i), {"k": float((i * 7) % 5)}, {"expert_score": (i % 4) / 3}) for i in range(40)]
    full = expert_agreement("k", n_resamples=300, seed=4)(samples)
    brief = expert_agreement("k", n_resamples=300, seed=4, brief=True)(samples)
    assert brief == {name: full[name] for name in ("k_kendall_tau", "k_kendall_tau_ci_low", "k_kendall_tau_ci_high")}
    assert full["k_spearman_ci_low"] < full["k_spearman_ci_high"]


def test_the_brief_agreement_metric_resamples_no_rank_or_linear_correlation(monkeypatch):
    # Inspect recomputes a run's summary while the run goes: the brief metric pays for tau's bootstrap alone.
    import radiology_tasks.core.agreement as agreement

    def refuse(*args: object) -> None:
        raise AssertionError("Spearman and Pearson were resampled")

    monkeypatch.setattr(agreement, "_resampled_correlations", refuse)
    samples = [_sample(str(i), {"k": float(i % 3)}, {"expert_score": i / 9}) for i in range(10)]
    assert "k_kendall_tau_ci_low" in expert_agreement("k", n_resamples=50, brief=True)(samples)
    with pytest.raises(AssertionError, match="resampled"):
        expert_agreement("k", n_resamples=50)(samples)


def test_correlate_can_leave_the_other_intervals_out():
    judge = [float((i * 7) % 5) for i in range(30)]
    expert = [(i % 4) / 3 for i in range(30)]
    full = correlate(judge, expert, n_resamples=200, seed=2)
    tau_only = correlate(judge, expert, n_resamples=200, seed=2, kendall_interval_only=True)
    assert tau_only.kendall_tau_ci == full.kendall_tau_ci
    assert (tau_only.kendall_tau, tau_only.spearman, tau_only.pearson) == (
        full.kendall_tau,
        full.spearman,
        full.pearson,
    )
    assert all(math.isnan(bound) for bound in (*tau_only.spearman_ci, *tau_only.pearson_ci))
    assert not any(math.isnan(bound) for bound in (*full.spearman_ci, *full.pearson_ci))


def test_the_agreement_metric_draws_its_bootstrap_with_its_own_settings():
    samples = [_sample(str(i), {"k": float((i * 7) % 5)}, {"expert_score": i / 9}) for i in range(10)]
    judge = [float((i * 7) % 5) for i in range(10)]
    expert = [i / 9 for i in range(10)]
    for settings in ({"n_resamples": 50, "seed": 3, "confidence": 0.8}, {"n_resamples": 80, "seed": 11}):
        value = expert_agreement("k", **settings)(samples)
        low, high = correlate(judge, expert, **settings).pearson_ci
        assert (value["k_pearson_ci_low"], value["k_pearson_ci_high"]) == (low, high)
    assert math.isnan(expert_agreement("k", n_resamples=0)(samples)["k_kendall_tau_ci_low"])


# --- the pairs every agreement uses -------------------------------------------------------------------------


def test_agreement_pairs_are_oriented_ordered_and_counted():
    samples = [
        _sample("b", {"green_ec": 3.0}, {"expert_score": 0.2}),
        _sample("a", {"green_ec": 1.0}, {"expert_score": 0.9}),
        _sample("c", {"green_ec": None}, {"expert_score": 0.5, "unscored": {"green_ec": "grader_failed"}}),
        _sample("d", {"green_ec": 2.0}, {"expert_score": None}),
        _sample("e", {"green_ec": 9.0}, {"expert_score": 0.1, "filled_in": ["green_ec"]}),
    ]
    pairs = agreement_pairs(samples, "green_ec", "score")
    # GREEN-EC counts errors: its family declares it lower-is-better, so it is negated.
    assert (pairs.ids, pairs.judge, pairs.expert) == (["a", "b"], [-1.0, -3.0], [0.9, 0.2])
    assert (pairs.n_unscored, pairs.n_no_expert) == (2, 1)
    assert agreement_pairs(samples, "green_ec", "score", higher_is_better=True).judge == [1.0, 3.0]
    # A score no family declares is higher-is-better: left as it is.
    plain = [_sample("a", {"k": 0.25}, {"expert_score": 0.5}), _sample("b", {"k": 0.75}, {"expert_score": 0.1})]
    assert agreement_pairs(plain, "k", "score").judge == [0.25, 0.75]


def test_the_declared_orientation_makes_agreement_positive():
    samples = [_sample(str(i), {"green_ec": float(4 - i)}, {"expert_score": i / 4}) for i in range(5)]
    value = expert_agreement("green_ec", n_resamples=0)(samples)
    assert value["green_ec_kendall_tau"] == pytest.approx(1.0) and value["green_ec_sign"] == -1.0
    forced = expert_agreement("green_ec", higher_is_better=True, n_resamples=0)(samples)
    assert forced["green_ec_kendall_tau"] == pytest.approx(-1.0) and forced["green_ec_sign"] == 1.0


# --- pairwise preference ------------------------------------------------------------------------------------


def _rated(sample_id: str, value: float | None, expert: float, group: str = "g", **metadata: Any) -> SampleScore:
    return _sample(sample_id, {"k": value}, {"expert_score": expert, "expert_group": group, **metadata})


def test_preference_metric_names_and_counts():
    samples = [
        _rated("1", 0.9, 1.0),
        _rated("2", 0.1, 0.5),  # right
        _rated("3", 0.2, 1.0, "h"),
        _rated("4", 0.6, 0.25, "h"),  # wrong
        _rated("5", 0.4, 0.75, "i"),
        _rated("6", 0.4, 0.0, "i"),  # tie
        _rated("7", 0.7, 0.5, "j"),
        _rated("8", 0.1, 0.5, "j"),  # no preference
    ]
    assert preference_agreement("k")(samples) == {
        "k_preference_accuracy": 0.5,
        "k_preference_pairs": 3.0,
        "k_preference_right": 1.0,
        "k_preference_wrong": 1.0,
        "k_preference_ties": 1.0,
    }
    assert preference_agreement("k", brief=True)(samples) == {"k_preference_accuracy": 0.5}


def test_preference_leaves_out_unscored_and_filled_in_candidates_and_other_studies():
    samples = [
        _rated("1", 0.9, 1.0),
        _rated("2", None, 0.5, unscored={"k": "grader_failed"}),
        _rated("3", 0.0, 0.0, filled_in=["k"]),
        _rated("4", 0.1, 0.2, "other"),
    ]
    outcome = preference_agreement("k")(samples)
    assert outcome["k_preference_pairs"] == 0.0 and math.isnan(outcome["k_preference_accuracy"])
    assert preference_agreement("k", brief=True)(samples) == {}
    reason = undefined_reason("radiology_tasks/preference_agreement", "k_preference_accuracy", samples)
    assert "no two of the 2 samples" in reason


def test_a_brief_preference_with_every_pair_tied_gives_nothing_and_says_why():
    samples = [_rated("1", 0.5, 1.0), _rated("2", 0.5, 0.0)]
    assert preference_agreement("k", brief=True)(samples) == {}
    assert preference_agreement("k")(samples)["k_preference_ties"] == 1.0
    reason = undefined_reason("radiology_tasks/preference_agreement", "k_preference_accuracy", samples)
    assert reason == "the k scores tie on all 1 pairs the experts rated differently"


def test_preference_of_a_lower_is_better_score_and_of_an_older_crimson_log():
    fewer_errors_preferred = [
        _sample("1", {"green_ec": 1.0}, {"expert_score": 0.9, "expert_group": "g"}),
        _sample("2", {"green_ec": 4.0}, {"expert_score": 0.1, "expert_group": "g"}),
    ]
    assert preference_agreement("green_ec")(fewer_errors_preferred)["green_ec_preference_right"] == 1.0
    legacy = [
        _sample("1", {"crimson": 0.8}, {"expert_score": 0.9, "reference_key": "r"}),
        _sample("2", {"crimson": 0.1}, {"expert_score": 0.1, "reference_key": "r"}),
    ]
    assert preference_agreement("crimson")(legacy)["crimson_preference_accuracy"] == 1.0


def test_the_declared_tie_tolerance_decides_ties():
    class Coarse(Family):
        name = "coarse_scores"
        tasks_module = "radiology_tasks.core.metrics"
        tasks = ()
        version = "1.0.0"

        def orientations(self) -> Mapping[str, Orientation]:
            return {"coarse": Orientation(tie_tolerance=0.05)}

    samples = [
        _sample("1", {"coarse": 0.50}, {"expert_score": 0.9, "expert_group": "g"}),
        _sample("2", {"coarse": 0.46}, {"expert_score": 0.1, "expert_group": "g"}),
    ]
    add_family(Coarse())
    try:
        assert orientation("coarse").tie_tolerance == 0.05
        assert preference_agreement("coarse")(samples)["coarse_preference_ties"] == 1.0
    finally:
        remove_family("coarse_scores")
    assert preference_agreement("coarse")(samples)["coarse_preference_right"] == 1.0


# --- orientation ----------------------------------------------------------------------------------------------


def test_the_families_declare_the_lower_is_better_scores():
    assert orientation("green_ec") == LOWER_IS_BETTER
    assert orientation("radcliq_v1") == LOWER_IS_BETTER
    assert higher_is_better("vert") and higher_is_better("bleu_2") and higher_is_better("crimson")
    assert not higher_is_better("green_ec")
    assert (LOWER_IS_BETTER.sign, Orientation().sign) == (-1, 1)


def test_a_negative_tie_tolerance_is_refused():
    with pytest.raises(ValueError, match="tie_tolerance must be >= 0, got -1"):
        Orientation(tie_tolerance=-1)
