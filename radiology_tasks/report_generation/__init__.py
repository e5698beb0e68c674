"""Report generation on its own: the model under test writes each study's report once, for any metric to judge."""
