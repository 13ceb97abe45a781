"""Create: system fields, generateName, namespaces, validation, admission, dry run, AlreadyExists."""

from __future__ import annotations

import random

import pytest

from kbatch.api.errors import AlreadyExists, BadRequest, Forbidden, InternalError, Invalid, NotFound
from kbatch.api.frozen import FrozenObjectError
from kbatch.apiserver import AdmissionRequest, APIServer
from kbatch.apiserver.names import GENERATE_ALPHABET, generate_name, new_uid
from tests.apiserver.conftest import make_server
from tests.apiserver.kinds import Namespace, Widget, WidgetSpec


def widget(name: str = "w", namespace: str | None = "default", **spec: object) -> Widget:
    return Widget.model_validate({"metadata": {"name": name, "namespace": namespace}, "spec": spec})


def test_create_fills_system_fields(server: APIServer) -> None:
    out = server.create(widget(size=1))
    assert out.metadata.uid and len(out.metadata.uid) == 36
    assert out.metadata.generation == 1
    assert out.metadata.creation_timestamp == server.now()
    assert out.metadata.resource_version == str(server.store.revision)
    assert out.spec is not None and out.spec.color == "blue"  # defaulted by the strategy
    assert server.get(Widget, "w", "default") == out


def test_create_clears_status_and_ignores_client_system_fields(server: APIServer) -> None:
    obj = Widget.model_validate({"metadata": {"name": "w", "namespace": "default", "uid": "x",
                                              "generation": 7, "creationTimestamp": "2020-01-01T00:00:00Z"},
                                 "status": {"phase": "Done"}})
    out = server.create(obj)
    assert out.metadata.creation_timestamp == server.now()
    assert out.status is None and out.metadata.uid != "x" and out.metadata.generation == 1


def test_create_with_resource_version_is_refused_as_upstream(server: APIServer) -> None:
    obj = Widget.model_validate({"metadata": {"name": "w", "namespace": "default", "resourceVersion": "9"}})
    with pytest.raises(InternalError, match="resourceVersion should not be set on objects to be created"):
        server.create(obj)


def test_create_does_not_keep_the_callers_object_and_answers_the_shared_one(server: APIServer) -> None:
    obj = widget(size=1)
    out = server.create(obj)
    obj.spec.size = 5  # type: ignore[union-attr]
    assert server.get(Widget, "w").spec.size == 1  # type: ignore[union-attr]
    assert obj.metadata.uid is None
    assert out == server.get(Widget, "w")
    with pytest.raises(FrozenObjectError):  # strict mode (the suite's): the answer is read only
        out.spec.size = 6  # type: ignore[union-attr]


def test_create_twice_is_already_exists(server: APIServer) -> None:
    server.create(widget())
    with pytest.raises(AlreadyExists) as err:
        server.create(widget())
    assert err.value.message == 'widgets "w" already exists'
    assert err.value.code == 409


def test_generate_name_uses_seeded_rng_and_alphabet() -> None:
    a = make_server(seed=1).create(Widget.model_validate({"metadata": {"generateName": "job-"}}))
    b = make_server(seed=1).create(Widget.model_validate({"metadata": {"generateName": "job-"}}))
    assert a.name == b.name and a.metadata.uid == b.metadata.uid
    assert a.name.startswith("job-") and len(a.name) == 9
    assert all(c in GENERATE_ALPHABET for c in a.name[4:])


def test_generate_name_retries_on_collision(server: APIServer) -> None:
    gen = Widget.model_validate({"metadata": {"generateName": "x-"}})
    names = {server.create(gen).name for _ in range(50)}
    assert len(names) == 50


def test_missing_name_is_invalid_with_upstream_message(server: APIServer) -> None:
    with pytest.raises(Invalid) as err:
        server.create(Widget())
    assert "metadata.name: Required value: name or generateName is required" in err.value.message
    assert err.value.code == 422


def test_invalid_object_reports_every_error_and_stores_nothing(server: APIServer) -> None:
    rev = server.store.revision
    bad = Widget.model_validate({"metadata": {"name": "Bad_Name", "namespace": "default",
                                              "labels": {"-x": "y"}}, "spec": {"size": -1}})
    with pytest.raises(Invalid) as err:
        server.create(bad)
    fields = [c.field for c in err.value.details.causes]  # type: ignore[union-attr]
    assert "metadata.name" in fields and "metadata.labels" in fields and "spec.size" in fields
    assert 'spec.size: Invalid value: -1: must be greater than or equal to 0' in err.value.message
    assert server.store.revision == rev


def test_namespace_from_call_and_mismatch(server: APIServer) -> None:
    out = server.create(widget(namespace=None), namespace="kube-system")
    assert out.namespace == "kube-system"
    with pytest.raises(BadRequest, match="does not match the namespace sent on the request"):
        server.create(widget(name="w2", namespace="default"), namespace="kube-system")


def test_default_namespaces_are_bootstrapped(server: APIServer) -> None:
    names = [n.name for n in server.list(Namespace).items]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_create_in_missing_namespace_is_not_found(server: APIServer) -> None:
    with pytest.raises(NotFound, match='namespaces "nope" not found'):
        server.create(widget(namespace="nope"))


def test_create_in_terminating_namespace_is_forbidden(server: APIServer) -> None:
    server.create(Namespace.model_validate({"metadata": {"name": "t"}}))
    server.create(widget(namespace="t"))
    server.delete(Namespace, "t")
    with pytest.raises(Forbidden, match="unable to create new content in namespace t because it is") as err:
        server.create(widget(name="w2", namespace="t"))
    # NamespaceLifecycle's cause, which the Job and CronJob controllers test (HasStatusCause)
    causes = err.value.status.details.causes  # type: ignore[union-attr]
    assert [(c.reason, c.field, c.message) for c in causes or ()] == [
        ("NamespaceTerminating", "metadata.namespace", "namespace t is being terminated")]
    assert err.value.status.details.name == "w2"  # type: ignore[union-attr]


def test_cluster_scoped_create_clears_namespace(server: APIServer) -> None:
    out = server.create(Namespace.model_validate({"metadata": {"name": "abc", "namespace": "x"}}))
    assert out.namespace is None and out.status.phase == "Active"  # type: ignore[union-attr]


def test_dry_run_create_writes_nothing(server: APIServer) -> None:
    rev = server.store.revision
    out = server.create(widget(), dry_run=True)
    assert out.metadata.uid and server.store.revision == rev
    with pytest.raises(NotFound):
        server.get(Widget, "w")


def test_admission_hooks_run_in_order_and_can_reject(server: APIServer) -> None:
    seen: list[str] = []

    def suspend(req: AdmissionRequest) -> None:
        seen.append(f"mutate:{req.operation}")
        req.obj.spec = req.obj.spec or WidgetSpec()  # type: ignore[attr-defined]
        req.obj.spec.size = 42  # type: ignore[attr-defined]

    def deny_red(req: AdmissionRequest) -> None:
        seen.append("validate")
        if req.obj.spec.color == "red":  # type: ignore[attr-defined]
            raise Forbidden("red is forbidden")

    server.admission.add_mutating(Widget, suspend)
    server.admission.add_validating(None, deny_red)
    assert server.create(widget()).spec.size == 42  # type: ignore[union-attr]
    assert seen == ["mutate:CREATE", "validate"]
    with pytest.raises(Forbidden):
        server.create(widget(name="r", color="red"))
    with pytest.raises(NotFound):
        server.get(Widget, "r")


def test_client_is_a_client(server: APIServer) -> None:
    client = server.client()
    out = client.create(widget())
    assert client.get(Widget, "w", "default") == out


def test_public_names_are_exported() -> None:
    import kbatch.apiserver as pkg

    assert sorted(pkg.__all__) == sorted(n for n in dir(pkg) if not n.startswith("_") and n[0].isupper())


def test_a_colliding_generated_name_is_retried_from_scratch(server: APIServer) -> None:
    probe = random.Random()
    probe.setstate(server.rng.getstate())
    new_uid(probe)  # the blocking object's uid
    first_uid = new_uid(probe)  # then the first attempt draws a uid, then the name
    first = generate_name("x-", probe)
    server.create(Widget.model_validate({"metadata": {"name": first}}))
    created = server.create(Widget.model_validate({"metadata": {"generateName": "x-"}}))
    assert created.name != first and created.name.startswith("x-")
    assert created.metadata.uid != first_uid  # each attempt fills the system fields again
    assert server.get(Widget, created.name).metadata.uid == created.metadata.uid
