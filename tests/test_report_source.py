"""Every task that can write reports refuses to be told both to write them and where to read them."""

from __future__ import annotations

import pytest

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.core.errors import InputError
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.ran_score.tasks import ran_score


@pytest.mark.parametrize("task", [green, vert, baselines, ct_finebench, ran_score], ids=lambda t: t.__name__)
def test_generate_and_candidates_together_are_refused_in_one_line(task):
    with pytest.raises(InputError) as refused:
        task(generate=True, candidates="generation.eval")
    assert str(refused.value) == (
        "-T generate=true has the model under test write the reports, and -T candidates=generation.eval gives "
        "them: use one (a report_generation log as -T candidates judges reports generated once)"
    )
