"""Property tests: no lost writes under stale/fresh/absent resourceVersions; invalid objects are
rejected whole with the right field path and nothing stored."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from kbatch.api.errors import BadRequest, Conflict, Invalid, StatusError
from kbatch.api.frozen import edit
from tests.apiserver.conftest import make_server
from tests.apiserver.kinds import Widget


class NoLostWrites(RuleBasedStateMachine):
    """Three clients hold copies of one object. Each write appends a unique token to spec.tags:
    through update with the copy's resourceVersion (Conflict when stale), or through a JSON patch,
    which applies to the latest object. Every acknowledged write must be in the final object, in
    acknowledgement order; a Conflict must leave the object as it was."""

    def __init__(self) -> None:
        super().__init__()
        self.server = make_server()
        self.acked: list[str] = []
        self.copies: list[Widget] = []
        self.n = 0

    @initialize()
    def create(self) -> None:
        obj = self.server.create(Widget.model_validate({"metadata": {"name": "w", "namespace": "default"},
                                                        "spec": {"tags": []}}))
        self.copies = [obj.clone() for _ in range(3)]

    def _token(self) -> str:
        self.n += 1
        return f"t{self.n}"

    @rule(client=st.integers(0, 2))
    def read(self, client: int) -> None:
        self.copies[client] = self.server.get(Widget, "w")

    @rule(client=st.integers(0, 2))
    def update_with_copy(self, client: int) -> None:
        copy = self.copies[client].clone()
        token = self._token()
        copy.spec.tags = [*(copy.spec.tags or []), token]  # type: ignore[union-attr]
        before = self.server.get(Widget, "w")
        try:
            self.copies[client] = self.server.update(copy)
        except Conflict:
            assert self.server.get(Widget, "w") == before
            return
        self.acked.append(token)

    @rule(client=st.integers(0, 2))
    def status_with_copy(self, client: int) -> None:
        copy = self.copies[client].clone()
        copy.status = type(copy).model_fields["status"].annotation.__args__[0](count=self.n)  # type: ignore[union-attr]
        try:
            self.server.update_status(copy)
        except Conflict:
            return

    @rule()
    def patch_append(self) -> None:
        token = self._token()
        self.server.patch(Widget, "w", [{"op": "add", "path": "/spec/tags/-", "value": token}], "default",
                          patch_type="json")
        self.acked.append(token)

    @invariant()
    def every_acknowledged_write_is_kept(self) -> None:
        if self.copies:
            assert self.server.get(Widget, "w").spec.tags == self.acked  # type: ignore[union-attr]


TestNoLostWrites = NoLostWrites.TestCase
TestNoLostWrites.settings = settings(max_examples=50, stateful_step_count=25, deadline=None)


_INVALID: dict[str, tuple[dict[str, Any], type[StatusError], str]] = {
    "negative size": ({"spec": {"size": -1}}, Invalid, "spec.size"),
    "bad name": ({"metadata": {"name": "Not_Valid"}}, Invalid, "metadata.name"),
    "bad label value": ({"metadata": {"labels": {"a": "-x-"}}}, Invalid, "metadata.labels"),
    "bad label key": ({"metadata": {"labels": {"a b": "x"}}}, Invalid, "metadata.labels"),
    "two controllers": ({"metadata": {"ownerReferences": [
        {"apiVersion": "v1", "kind": "Widget", "name": "a", "uid": "1", "controller": True},
        {"apiVersion": "v1", "kind": "Widget", "name": "b", "uid": "2", "controller": True}]}},
        Invalid, "metadata.ownerReferences"),
    "unknown field": ({"spec": {"sise": 1}}, BadRequest, "spec.sise"),
    "wrong type": ({"spec": {"size": "x"}}, BadRequest, "spec.size"),
    "both gc finalizers": ({"metadata": {"finalizers": ["orphan", "foregroundDeletion"]}}, Invalid,
                           "metadata.finalizers"),
}


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) \
            else value
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(_INVALID)), min_size=1, max_size=3, unique=True),
       st.sampled_from(["create", "update"]))
def test_invalid_objects_are_rejected_whole(defects: list[str], verb: str) -> None:
    if verb == "update" and "bad name" in defects:
        defects = [d for d in defects if d != "bad name"] or ["negative size"]  # a rename is NotFound
    server = make_server()
    base = {"apiVersion": "v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
            "spec": {"size": 1}}
    if verb == "update":
        created, _ = server.unstructured.create(base)
        base = created
    data = base
    for defect in defects:
        data = _merge(data, _INVALID[defect][0])
    rev = server.store.revision
    call = server.unstructured.create if verb == "create" else server.unstructured.update
    try:
        call(data)
    except StatusError as err:
        decode_defects = [d for d in defects if _INVALID[d][1] is BadRequest]
        expected = decode_defects or defects  # decoding fails before validation, as upstream
        assert any(_INVALID[d][2] in err.message for d in expected), err.message
        if not decode_defects:
            assert isinstance(err, Invalid)
            fields = {c.field for c in err.details.causes or ()}  # type: ignore[union-attr]
            assert all(any((f or "").startswith(_INVALID[d][2]) for f in fields) for d in defects), fields
    else:
        raise AssertionError(f"{defects} accepted")
    assert server.store.revision == rev


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["a", "b", None])), min_size=1, max_size=25),
       st.sampled_from(["app=a", "app!=a", "app in (a,b)", "!app", "app", "app=b,app!=a"]),
       st.one_of(st.none(), st.integers(1, 4)))
def test_selective_list_equals_brute_force(writes: list[tuple[int, str | None]], selector: str,
                                           limit: int | None) -> None:
    """Lists answer from a decode cache keyed by mod_revision; after any sequence of label changes
    they equal filtering a full list by hand (paginated or not)."""
    from kbatch.api.selectors import parse_label_selector

    server = make_server()
    for i, value in writes:
        name = f"w{i}"
        labels = {"app": value} if value else None
        try:
            obj = edit(server.get(Widget, name))
            obj.metadata.labels = labels
            server.update(obj)
        except StatusError:
            server.create(Widget.model_validate({"metadata": {"name": name, "namespace": "default",
                                                              "labels": labels}}))
        server.list(Widget, label_selector=selector)  # warm the cache at every step
    sel = parse_label_selector(selector)
    want = [w.name for w in server.list(Widget).items if sel.matches(w.metadata.labels)]
    got: list[str] = []
    token = None
    while True:
        page = server.list(Widget, label_selector=selector, limit=limit, continue_=token)
        got += [w.name for w in page.items]
        token = page.metadata.continue_
        if not token:
            break
    assert got == want
