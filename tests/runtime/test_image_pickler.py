"""The image pickler's reduction of slotted objects gives back what pickle's own does (pickling.py)."""

from __future__ import annotations

import io
import pickle
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.runtime.pickling import ImagePickler, restore_slots


class Base:
    __slots__ = ("__hidden", "a")  # a private slot is stored under its mangled name

    def set_hidden(self, value: Any) -> None:
        self.__hidden = value

    def hidden(self) -> Any:
        return getattr(self, "_Base__hidden", "<unset>")


class Leaf(Base):
    __slots__ = ("c",)


class Guarded(Leaf):
    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:  # pickle's own BUILD goes through this
        object.__setattr__(self, name, ("guarded", value))


def _image_round_trip(obj: Any) -> tuple[Any, bytes]:
    out = io.BytesIO()
    ImagePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return pickle.loads(out.getvalue()), out.getvalue()


def _state(obj: Any) -> tuple[Any, ...]:
    return (type(obj), getattr(obj, "a", "<unset>"), getattr(obj, "c", "<unset>"), obj.hidden())


values = st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=3)


@given(st.sampled_from([Base, Leaf, Guarded]), st.dictionaries(st.sampled_from(["a", "c", "hidden"]), values))
def test_a_slotted_object_comes_back_as_pickle_gives_it_back(cls: type, assigned: dict[str, Any]) -> None:
    obj = object.__new__(cls)
    for name, value in assigned.items():
        if name == "hidden":
            obj.set_hidden(value)
        elif name != "c" or cls is not Base:
            object.__setattr__(obj, name, value)
    back, data = _image_round_trip(obj)
    assert _state(back) == _state(pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)))
    # written as a deferred object (pickling.new, its slots in a chunk) unless its class has its own
    # __setattr__, which pickle's own BUILD goes through
    assert (b"\x8c\x03new" in data) == (cls is not Guarded)


def test_shared_values_stay_shared() -> None:
    shared = [1, 2]
    a, b = object.__new__(Leaf), object.__new__(Leaf)
    a.a = b.a = shared
    (a2, b2), _ = _image_round_trip((a, b))
    assert a2.a is b2.a and a2.a == shared


def test_restore_slots_leaves_missing_slots_unset() -> None:
    from kbatch.runtime.pickling import MISSING

    obj = restore_slots(Leaf, MISSING, MISSING, 1)  # copyreg._slotnames order: c, _Base__hidden, a
    assert obj.a == 1 and not hasattr(obj, "c") and obj.hidden() == "<unset>"


class Unslotted(Leaf):  # no __slots__ of its own: its instances have a __dict__ as well
    pass


def test_a_subclass_without_slots_is_pickled_by_pickle_itself() -> None:
    obj = Unslotted()
    obj.a, obj.extra = 1, 2  # type: ignore[attr-defined]
    back, data = _image_round_trip(obj)
    assert b"restore_slots" not in data and b"\x8c\x03new" not in data and back.a == 1 and back.extra == 2
