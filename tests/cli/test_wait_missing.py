"""``kbatch wait`` on an object that does not exist answers at once, as kubectl wait does.

Upstream: kubectl ``pkg/cmd/wait/wait.go`` ``RunWait`` visits the named object through a resource
builder that GETs it (``Latest``): a NotFound is returned as the command's error, without waiting for
the timeout; only ``--for=delete`` ignores it (``IgnoreErrors(apierrors.IsNotFound)``), and then prints
nothing (nothing was visited) and exits 0.
"""

from __future__ import annotations

from typing import Any


def test_wait_for_a_condition_of_a_missing_object_is_not_found_at_once(kb: Any) -> None:
    res = kb("wait", "job/nope", "--for", "condition=Complete", "--timeout", "1h")
    assert res.code == 1
    assert res.err.strip() == 'Error from server (NotFound): jobs.batch "nope" not found'
    assert kb.ok("advance", "1s").strip() == "advanced 1s to 2025-01-01T00:00:01Z"  # no hour went by


def test_wait_for_delete_of_a_missing_object_prints_nothing(kb: Any) -> None:
    res = kb("wait", "job/nope", "--for", "delete", "--timeout", "1h")
    assert (res.code, res.out, res.err) == (0, "", "")
    assert kb.ok("advance", "1s").strip() == "advanced 1s to 2025-01-01T00:00:01Z"
