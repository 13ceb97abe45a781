"""Cases of upstream's ``TestDefaultNormalizeScore``, ported one by one
(``pkg/scheduler/framework/plugins/helper/normalize_score_test.go`` at the stored commit 0c3d8b9,
cases ``case_0`` .. ``case_6``): the normalization NodeAffinity, TaintToleration and InterPodAffinity
scores go through."""

from __future__ import annotations

import pytest

from kbatch.controllers.scheduler.plugins.normalize import default_normalize


@pytest.mark.parametrize(
    ("reverse", "scores", "want"),
    [
        (False, [1, 2, 3, 4], [25, 50, 75, 100]),
        (True, [1, 2, 3, 4], [75, 50, 25, 0]),
        (False, [1000, 10, 20, 30], [100, 1, 2, 3]),
        (True, [1000, 10, 20, 30], [0, 99, 98, 97]),
        (False, [1, 1, 1, 1], [100, 100, 100, 100]),
        (False, [1000, 1, 1, 1], [100, 0, 0, 0]),
        (True, [0, 1, 1, 1], [100, 0, 0, 0]),
    ],
    ids=[f"case_{i}" for i in range(7)],
)
def test_default_normalize_score(reverse: bool, scores: list[int], want: list[int]) -> None:
    assert default_normalize(scores, reverse) == want
