"""``ObjectRef``: an event recorded about a reference is the event recorded about the API object it
names (same name, involvedObject, correlation), so callers holding only a view need no model."""

from __future__ import annotations

from _support import make_cp
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event, Pod
from kbatch.runtime.events import ObjectRef

_names = st.from_regex(r"[a-z]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)


def _recorded(cp, obj, namespace: str) -> list[dict]:  # type: ignore[no-untyped-def]
    rec = cp.recorder("default-scheduler")
    for _ in range(3):  # the second and third are counted on the first
        rec.event(obj, "Normal", "Scheduled", "Successfully assigned")
    events = cp.client.list(Event, namespace).items
    return [{k: v for k, v in e.to_dict().items() if k != "metadata"} | {"name": e.metadata.name}
            for e in events]


@settings(max_examples=20, deadline=None)
@given(_names, st.sampled_from(["default", "kube-system"]), st.one_of(st.none(), st.uuids().map(str)))
def test_a_reference_records_what_the_object_records(name: str, namespace: str, uid: str | None) -> None:
    pod = Pod.model_validate({"metadata": {"name": name, "namespace": namespace, "uid": uid}})
    ref = ObjectRef("Pod", "v1", name, namespace, uid)
    by_model, by_ref = _recorded(make_cp(), pod, namespace), _recorded(make_cp(), ref, namespace)
    assert by_model == by_ref and len(by_model) == 1 and by_model[0]["count"] == 3
