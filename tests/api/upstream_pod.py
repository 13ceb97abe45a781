"""Helpers for the translated upstream core/v1 pod validation tables: a Pod (or a Job whose template
carries the spec) goes to an :class:`APIServer` as a user's object would (defaulting, then
validation), and a rejection is read back as the 422's ``status.details.causes``.

Upstream's tables (kubernetes ``pkg/apis/core/validation/validation_test.go``) compare the error
list's types and fields; ``ERROR_TYPE`` maps Go's ``field.ErrorType`` names to the ``reason`` a
cause carries on the wire.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

REQUIRED, INVALID, FORBIDDEN = "FieldValueRequired", "FieldValueInvalid", "FieldValueForbidden"
NOT_SUPPORTED, DUPLICATE, NOT_FOUND = "FieldValueNotSupported", "FieldValueDuplicate", "FieldValueNotFound"


def server() -> APIServer:
    """An API server for the validation tables: upstream's ValidatePod* tests check the object as
    given, so the ServiceAccount admission plugin (which names an account and adds the API volume
    and mounts before validation) is off here; tests/apiserver/test_upstream_serviceaccount_admission.py
    covers it. So is the RuntimeClass plugin (which refuses a class that is not stored and an overhead
    without one before validation runs); tests/apiserver/test_upstream_runtimeclass_admission.py
    covers it."""
    from kbatch.families import builtin

    plugins = builtin().admission_plugins(disable="ServiceAccount,RuntimeClass")
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(3), admission_plugins=plugins)


def ctr(name: str = "abc", image: str = "image", **fields: Any) -> dict[str, Any]:
    """A container as upstream's cases write it (pull and message policies are defaulted)."""
    return {"name": name, "image": image, **fields}


def pod(spec: dict[str, Any]) -> Pod:
    body = {"containers": [ctr()], **spec}
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"}, "spec": body})


def job(spec: dict[str, Any]) -> Job:
    body = {"restartPolicy": "Never", "containers": [ctr()], **spec}
    return Job.model_validate({"metadata": {"name": "j", "namespace": "default"},
                               "spec": {"template": {"spec": body}}})


def causes(obj: Pod | Job) -> list[tuple[str, str, str]]:
    """``(field, reason, message)`` of every cause of the 422 creating ``obj`` must raise."""
    with pytest.raises(Invalid) as err:
        server().create(obj)
    assert err.value.status.code == 422
    return [(c["field"], c["reason"], c["message"]) for c in err.value.status.to_dict()["details"]["causes"]]


def fields(obj: Pod | Job) -> list[tuple[str, str]]:
    """``(field, reason)`` of every cause, what upstream's tables compare."""
    return [(f, r) for f, r, _ in causes(obj)]


def created(obj: Pod | Job, *first: Any) -> None:
    """``obj`` is accepted (after the objects in ``first``, e.g. a PriorityClass it names)."""
    api = server()
    for other in first:
        api.create(other)
    assert api.create(obj).metadata.uid
