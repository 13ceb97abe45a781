"""The pod webhook's cheap paths decide as its full rules do.

Every pod created or updated in a cluster serving Kueue goes through ``vpod.kb.io`` and ``mpod.kb.io``
(upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_webhook.go``), most of them
pods Kueue does not manage. kbatch skips the validation rules for a pod with no ``kueue.x-k8s.io/``
label or annotation (before and after the update) — every rule reads one — and answers "does the
namespace have a usable ``default`` LocalQueue" from a memo that LocalQueue writes clear
(``webhooks/default_queue.py``; its exactness is property-tested in ``test_default_queue_memo.py``).
"""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.kueue.webhooks.default_queue import DefaultQueues
from kbatch.controllers.kueue.webhooks.jobs import _JobWebhook
from kbatch.controllers.kueue.webhooks.pods import PodWebhook, _has_kueue_keys

from .helpers import local_queue
from .test_jobs import _world
from .test_pods import QUEUE, get_pod, pod

_OTHER_KEYS = st.sampled_from(
    ["app", "batch.kubernetes.io/job-name", "kueue.x-k8s.io", "x-kueue.x-k8s.io/queue-name", "tier"]
)
_KUEUE_KEYS = st.sampled_from(
    [
        QUEUE,
        "kueue.x-k8s.io/managed",
        "kueue.x-k8s.io/pod-group-name",
        "kueue.x-k8s.io/pod-group-total-count",
        "kueue.x-k8s.io/retriable-in-group",
        "kueue.x-k8s.io/max-exec-time-seconds",
        "kueue.x-k8s.io/priority-class",
    ]
)
_VALUES = st.sampled_from(["", "0", "2", "false", "true", "g", "Bad_Name", "-1"])


def _webhook(w) -> PodWebhook:
    (integ,) = [i for i in w.cp.server.composition.job_integrations if i.name == "pod"]
    return PodWebhook(_JobWebhook(w.cp.server, integ, DefaultQueues(w.cp.server)))


def _pod(labels: dict[str, str], annotations: dict[str, str]) -> Pod:
    return Pod.model_validate(pod("p", queue=None, labels=labels, annotations=annotations))


@functools.cache
def _shared_hook() -> PodWebhook:
    return _webhook(_world())


@settings(max_examples=150, deadline=None)
@given(
    new=st.tuples(st.dictionaries(_OTHER_KEYS | _KUEUE_KEYS, _VALUES, max_size=3),
                  st.dictionaries(_OTHER_KEYS | _KUEUE_KEYS, _VALUES, max_size=3)),
    old=st.none() | st.tuples(st.dictionaries(_OTHER_KEYS | _KUEUE_KEYS, _VALUES, max_size=3),
                              st.dictionaries(_OTHER_KEYS | _KUEUE_KEYS, _VALUES, max_size=3)),
)
def test_a_pod_without_kueue_keys_passes_every_validation_rule(new, old) -> None:
    """The skip's premise: with no Kueue key before nor after, the full rules find nothing."""
    pod_new = _pod(*new)
    pod_old = _pod(*old) if old is not None else None
    skipped = not _has_kueue_keys(pod_new) and (pod_old is None or not _has_kueue_keys(pod_old))
    errors = _shared_hook().errors(pod_new, pod_old)
    if skipped:
        assert errors == []
    # and the other way round, the skip is taken only when no key of Kueue's is present
    keys = [*new[0], *new[1], *((old[0].keys() | old[1].keys()) if old else ())]
    assert skipped == (not any(k.startswith("kueue.x-k8s.io/") for k in keys))


def test_the_default_local_queue_lookup_follows_the_store() -> None:
    w = _world()
    hook = _webhook(w)
    assert not hook.jobs._default_queue_exists("default")
    assert not hook.jobs._default_queue_exists("")
    w.apply(local_queue("default", "cq"))
    assert hook.jobs._default_queue_exists("default")
    assert not hook.jobs._default_queue_exists("elsewhere")
    w.apply({**local_queue("default", "cq", stopPolicy="Hold")})
    assert not hook.jobs._default_queue_exists("default")  # stopped: not usable
    w.apply(pod("held", queue=None))
    assert QUEUE not in (get_pod(w, "held").metadata.labels or {})
