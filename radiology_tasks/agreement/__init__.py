"""The agreement table: every metric's agreement with radiologists, per dataset and protocol, from runs' logs.

`radiology-tasks agreement LOG... --out DIR` reads each log's figures through the run report, gathers them into
one row per metric and one column group per dataset and protocol (Kendall's tau-b against the experts' score,
their clinically significant errors or all their errors, and pairwise preference accuracy), adds the paired
tests of two metrics' taus and the published figures papers print for the same cells, and writes JSON, CSV,
Markdown and a page. Shared by every family: nothing here names one.
"""
