"""Leaderboard submissions: check logs into bundles (`submit`), rank comparable runs (`leaderboard`), write the page.

The two settings the command line shares with the code live here, where importing them costs nothing.
"""

DEFAULT_MAX_UNSCORED = 0.02
"""The largest share of unscored samples a run may have to be submitted or ranked."""

TRACKS = ("findings", "findings_impression", "judges")
"""The report sections a submission can be generated for (ReXrank's tracks), and `judges`: the run ranks its judge
against experts, not a report generator."""
