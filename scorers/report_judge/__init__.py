"""The GREEN/VERT judge's answer, read without Inspect: its grammar, its parser and the scores taken from it.

Shared by every family that asks this judge (GREEN/VERT's own tasks and the judge-sensitivity study).
"""
