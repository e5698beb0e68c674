"""Pure logic of the judge-sensitivity family: no Inspect imports."""
