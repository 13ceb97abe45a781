"""The admission seam: ordered mutating and validating hooks, per kind or for every kind.

As kube-apiserver's admission chain (``staging/src/k8s.io/apiserver/pkg/admission``): mutating hooks
run after defaulting and may change the object in place; validating hooks run after the kind's
validation and may only reject (by raising a ``StatusError``, e.g. ``Forbidden`` or ``Invalid``).
Hooks run in the order they were added; hooks registered for every kind (``model=None``) and for
one kind are interleaved in that order. Add-ons such as a Kueue-style "create suspended" or
JobSet-style defaults would plug in here without touching the server (none ships with kbatch yet).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from kbatch.api.meta import Resource

__all__ = ["Admission", "AdmissionHook", "AdmissionRequest", "Operation"]

Operation = Literal["CREATE", "UPDATE"]


class AdmissionRequest(NamedTuple):
    """What a hook sees. ``obj`` is the server's private working copy (mutating hooks change it in
    place); ``old`` is the stored object for updates (do not mutate it). Immutable; a named tuple
    rather than a frozen dataclass, whose per-field ``object.__setattr__`` made building one per write
    cost ~0.35 µs more."""

    operation: Operation
    obj: Resource
    old: Resource | None
    subresource: str = ""  # "" for the main resource, "status" for the status subresource
    dry_run: bool = False


AdmissionHook = Callable[[AdmissionRequest], None]


class Admission:
    def __init__(self) -> None:
        self._mutating: list[tuple[type[Resource] | None, AdmissionHook]] = []
        self._validating: list[tuple[type[Resource] | None, AdmissionHook]] = []

    def add_mutating(self, model: type[Resource] | None, hook: AdmissionHook) -> None:
        """Run ``hook`` on creates and updates of ``model`` (every kind when ``None``)."""
        self._mutating.append((model, hook))

    def add_validating(self, model: type[Resource] | None, hook: AdmissionHook) -> None:
        self._validating.append((model, hook))

    def mutate(self, request: AdmissionRequest) -> None:
        _run(self._mutating, request)

    def validate(self, request: AdmissionRequest) -> None:
        _run(self._validating, request)


def _run(hooks: list[tuple[type[Resource] | None, AdmissionHook]], request: AdmissionRequest) -> None:
    model = type(request.obj)
    for target, hook in hooks:
        if target is None or target is model:
            hook(request)
