"""Leaderboard submissions: check logs into bundles (`submit`), rank comparable runs (`leaderboard`), write the page.

The two settings the command line shares with the code live here, where importing them costs nothing.
"""

DEFAULT_MAX_UNSCORED = 0.02
"""The largest share of unscored samples a run may have to be submitted or ranked."""

JUDGES_TRACK = "judges"
"""The track whose runs rank their judge against experts (or by its sensitivity), not a report generator."""

TRACKS = ("findings", "findings_impression", JUDGES_TRACK)
"""The report sections a submission can be generated for (ReXrank's tracks), and the judges' track."""
