"""``active_pods_for_removal``'s shortcut (nothing to remove: no pod wanted gone, and every active
pod of an Indexed Job holds its own valid index) answers what the general grouping path answers
(upstream job_controller.go ``activePodsForRemoval``, indexed_job_utils.go
``appendDuplicatedIndexPodsForRemoval``)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_constants import JOB_COMPLETION_INDEX_ANNOTATION
from kbatch.controllers.job.context import SyncConfig, SyncContext
from kbatch.controllers.job.manage import _pods_for_removal, active_pods_for_removal
from kbatch.controllers.job.views import PodInfo

from .builders import make_job

_index = st.one_of(st.none(), st.integers(-1, 6).map(str), st.just("x"))


@given(st.booleans(), st.lists(_index, max_size=8), st.integers(-1, 3),
       st.one_of(st.none(), st.integers(0, 6)))
def test_shortcut_equals_the_general_path(indexed: bool, indexes: list, at_least: int,
                                          completions: int | None) -> None:
    job = make_job(indexed=indexed, completions=completions if indexed else None)
    pods = [PodInfo(f"p{i}", f"u{i}", phase="Running",
                    annotations={} if ix is None else {JOB_COMPLETION_INDEX_ANNOTATION: ix})
            for i, ix in enumerate(indexes)]
    ctx = SyncContext(job=job, pods=pods, now=datetime(2026, 1, 1, tzinfo=UTC), config=SyncConfig())
    ctx.active = pods
    assert active_pods_for_removal(ctx, at_least) == _pods_for_removal(ctx, at_least)
