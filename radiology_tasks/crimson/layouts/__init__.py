"""Layouts of the public datasets the CRIMSON authors released with their metric (RadPref). Each module defines one
`LAYOUT`."""
