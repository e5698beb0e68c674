"""The GREEN/VERT judge as an Inspect scorer, with the options that say how its answer is asked for and read.

A shared component below the families: GREEN/VERT scores reports with it, and judge sensitivity asks the same
judge about its variants. The scorer registers as `radiology_tasks/report_judge`.
"""
