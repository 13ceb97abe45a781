"""Upstream's RuntimeClass validation tables, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/node/validation/validation_test.go`` (``TestValidateRuntimeClass``,
``TestValidateRuntimeUpdate``, ``TestValidateOverhead``, ``TestValidateScheduling``) against
``validation.go`` and ``pkg/registry/node/runtimeclass/strategy.go``. Upstream counts errors; here
each is a 422 whose causes are checked field by field. The "invalid metadata update" row changes
``clusterName``, a field ObjectMeta no longer has; the name change below stands for it.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.node_v1 import RuntimeClass
from tests.api.upstream_batch import rejected, server

NOT_A_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
               "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used "
               "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def rc(name: str = "foo", handler: str = "bar", **fields: Any) -> RuntimeClass:
    return RuntimeClass.model_validate({"metadata": {"name": name}, "handler": handler, **fields})


def test_valid_runtime_classes_are_stored() -> None:
    api = server()
    api.create(rc(handler="bar-baz"))
    api.create(rc("with-overhead", overhead={"podFixed": {"cpu": "10", "memory": "10G"}}))
    toleration = {"key": "valid", "operator": "Exists", "effect": "NoSchedule"}
    api.create(rc("scheduled", scheduling={"nodeSelector": {"valid": "yes"}, "tolerations": [toleration]}))
    api.create(rc("empty-scheduling", scheduling={}))
    stored = api.get(RuntimeClass, "with-overhead")
    assert stored.metadata.generation is None  # the strategy keeps no generation


@pytest.mark.parametrize(("name", "body", "want"), [
    ("invalid name", rc("&!@#", "foo"), [("metadata.name", "FieldValueInvalid")]),
    ("invalid Handler name", rc("foo", "&@#$"), [("handler", "FieldValueInvalid")]),
    ("invalid empty RuntimeClass", rc("empty", ""), [("handler", "FieldValueInvalid")]),
    ("Invalid Resources", rc(overhead={"podFixed": {"my.org": "10m"}}),
     [("overhead.limits[my.org]", "FieldValueInvalid")] * 2),  # not standard; not for containers
    ("invalid nodeSelector", rc(scheduling={"nodeSelector": {"not a valid key!!!": "nope"}}),
     [("scheduling.nodeSelector", "FieldValueInvalid")]),
    ("invalid toleration", rc(scheduling={"tolerations": [
        {"key": "valid", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "not a valid key!!!", "operator": "Exists", "effect": "NoSchedule"}]}),
     [("scheduling.tolerations[1].key", "FieldValueInvalid")]),
    ("invalid scheduling", rc(scheduling={"nodeSelector": {"not a valid key!!!": "nope"}, "tolerations": [
        {"key": "not a valid toleration key!!!", "operator": "Exists", "effect": "NoSchedule"}]}),
     [("scheduling.nodeSelector", "FieldValueInvalid"),
      ("scheduling.tolerations[0].key", "FieldValueInvalid")]),
])
def test_invalid_runtime_classes_are_refused(name: str, body: RuntimeClass,
                                             want: list[tuple[str, str]]) -> None:
    causes = rejected(server().create, body)
    assert [(field, reason) for field, reason, _ in causes] == want


def test_an_empty_handler_is_reported_as_upstream_does() -> None:
    with pytest.raises(Invalid) as err:
        server().create(rc(handler=""))
    want = f'RuntimeClass.node.k8s.io "foo" is invalid: handler: Invalid value: "": {NOT_A_LABEL}'
    assert err.value.status.message == want


def test_the_handler_is_immutable_and_labels_may_change() -> None:
    api = server()
    api.create(rc())
    stored = api.get(RuntimeClass, "foo").model_copy(deep=True)
    stored.metadata.labels = {"foo": "bar"}
    stored = api.update(stored).model_copy(deep=True)  # "valid metadata update"
    stored.handler = "somethingelse"
    causes = rejected(api.update, stored)  # "invalid Handler update"
    assert [(f, r) for f, r, _ in causes] == [("handler", "FieldValueInvalid")]
    assert causes[0][2] == 'Invalid value: "somethingelse": field is immutable'


def test_an_update_must_name_its_resource_version() -> None:
    """``AllowUnconditionalUpdate`` is false for RuntimeClasses."""
    api = server()
    api.create(rc())
    unconditional = rc(overhead={"podFixed": {"cpu": "1"}})
    causes = rejected(api.update, unconditional)
    assert [(f, r) for f, r, _ in causes] == [("metadata.resourceVersion", "FieldValueInvalid")]


def test_a_pods_overhead_is_validated_as_container_limits() -> None:
    """core validation ``validateOverhead`` (PodOverhead, GA): ``ValidateResourceRequirements`` over
    ``Limits: overhead``, so the errors sit under ``spec.overhead.limits``, names checked as well as
    values."""
    pod = Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": {
        "containers": [{"name": "c", "image": "busybox"}], "overhead": {"cpu": "-1", "my.org": "1"}}})
    causes = rejected(server().create, pod)
    assert causes == [
        ("spec.overhead.limits[cpu]", "FieldValueInvalid",
         'Invalid value: "-1": must be greater than or equal to 0'),
        ("spec.overhead.limits[my.org]", "FieldValueInvalid",
         'Invalid value: "my.org": must be a standard resource type or fully qualified'),
        ("spec.overhead.limits[my.org]", "FieldValueInvalid",
         'Invalid value: "my.org": must be a standard resource for containers')]
