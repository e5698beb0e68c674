"""Leaderboard submissions: check logs into bundles (`submit`), rank comparable runs (`leaderboard`), write the page."""
