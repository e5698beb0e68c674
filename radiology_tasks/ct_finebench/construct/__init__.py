"""Building CT-FineBench questions from a user's own reports (paper, section 3.2), as three commands.

1. ``radiology-tasks ctfb-triplets``: the judge lists (finding, attribute, value) triplets per report
   (`triplets`).
2. ``radiology-tasks ctfb-schema``: the frequent groups become an attribute schema file a person edits
   (`schema`).
3. ``radiology-tasks ctfb-qa``: the judge answers the schema's questions from each report, giving a data
   file that ``-T data=`` loads (`qa`).

Steps 1 and 3 call any Inspect model outside an eval, write one line per report as it finishes and resume
where they stopped (`output`, `runner`).
"""
