"""``predicate.Funcs``: per event type, a constant or a test of the object (the new one for updates), as
a client-go handler that registers only some of AddFunc/UpdateFunc/DeleteFunc; it survives pickling (a
saved control plane holds its predicates)."""

from __future__ import annotations

import pickle
from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.predicate import Funcs


def _labelled(obj: Any) -> bool:
    return bool(obj.labelled)


tests = st.one_of(st.booleans(), st.just(_labelled))


@given(create=tests, update=tests, delete=tests, old=st.booleans(), new=st.booleans())
def test_each_event_type_answers_its_own_test(create: Any, update: Any, delete: Any, old: bool,
                                              new: bool) -> None:
    pred = Funcs(create=create, update=update, delete=delete)
    before, after = SimpleNamespace(labelled=old), SimpleNamespace(labelled=new)

    def expect(test: Any, obj: Any) -> bool:
        return test if isinstance(test, bool) else obj.labelled

    assert pred.create(after) == expect(create, after)
    assert pred.update(before, after) == expect(update, after)  # the old object is never consulted
    assert pred.delete(before) == expect(delete, before)
    again = pickle.loads(pickle.dumps(pred))
    assert (again.create(after), again.update(before, after), again.delete(before)) == (
        pred.create(after), pred.update(before, after), pred.delete(before))


def test_defaults_pass_everything() -> None:
    pred = Funcs()
    obj = SimpleNamespace(labelled=False)
    assert pred.create(obj) and pred.update(obj, obj) and pred.delete(obj)
