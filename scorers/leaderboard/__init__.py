"""Pure statistics for leaderboards: bootstrap intervals and paired significance tests."""
