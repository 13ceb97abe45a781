"""The webhooks' memo of "does this namespace have a usable ``default`` LocalQueue" answers as a read of
the store would, after any sequence of LocalQueue writes, through the API server or behind its back.

Upstream answers ``DefaultLocalQueueExist`` from the queue manager's informer-fed LocalQueues
(kubernetes-sigs/kueue ``pkg/queue/manager.go``); kbatch's memo is cleared by any write under the
LocalQueues' key range (``kbatch/controllers/kueue/webhooks/default_queue.py``).
"""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import LocalQueue
from kbatch.controllers.kueue.webhooks.default_queue import DefaultQueues

from .helpers import local_queue
from .test_jobs import _world

_NAMESPACES = ("default", "other", "absent")
_OPS = st.one_of(
    st.tuples(st.just("apply"), st.sampled_from(_NAMESPACES[:2]), st.sampled_from(["default", "lq2"]),
              st.sampled_from([None, "None", "Hold", "HoldAndDrain"])),
    st.tuples(st.just("delete"), st.sampled_from(_NAMESPACES[:2]), st.sampled_from(["default", "lq2"]),
              st.none()),
    st.tuples(st.just("raw-delete"), st.sampled_from(_NAMESPACES[:2]), st.just("default"), st.none()),
    st.tuples(st.just("ask"), st.sampled_from(_NAMESPACES), st.none(), st.none()),
)


def _truth(server, namespace: str) -> bool:
    try:
        lq = server.get(LocalQueue, "default", namespace)
    except NotFound:
        return False
    return ((lq.spec.stop_policy if lq.spec else None) or "None") == "None"


@settings(max_examples=20, deadline=None)
@given(ops=st.lists(_OPS, max_size=12))
def test_the_memo_answers_as_the_store_after_any_writes(ops) -> None:
    w = _world()
    w.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    server = w.cp.server
    memo = DefaultQueues(server)
    keys = server.kind(LocalQueue).keys
    for op, namespace, name, stop in ops:
        if op == "apply":
            spec = {} if stop is None else {"stopPolicy": stop}
            w.apply(local_queue(name, "cq", namespace=namespace, **spec))
        elif op == "delete":
            with contextlib.suppress(NotFound):
                server.delete(LocalQueue, name, namespace)
        elif op == "raw-delete":  # a write behind the API server's back: the store is the truth
            server.store.delete_range(keys.key(namespace, name))
        for ns in _NAMESPACES:
            assert memo.exists(ns) == _truth(server, ns), (op, namespace, name, ns)
    assert not memo.exists("")
