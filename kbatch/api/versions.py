"""Served versions: a kind served in more than one API version, stored in one (CRD conversion).

A custom resource may be served in several versions while stored in one (``spec.versions[].served``,
``storage``, ``deprecated`` and ``deprecationWarning`` of a CustomResourceDefinition). A request in a
non-storage version is decoded in that version, converted to the storage version for the API
server's strategy, admission and storage, and the answer converted back (kube-apiextensions-apiserver
with a conversion webhook). :class:`ServedVersion` is what a kind declares for each such version;
the registry serves it (:meth:`kbatch.api.registry.Registry.register`), the API server's dict-level
the HTTP front end and the CLI convert (:mod:`kbatch.server.versions`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.printing import Printer

__all__ = ["ServedVersion"]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServedVersion:
    """One more served version of a kind: ``model`` decodes its requests (its ``api_info`` names the
    version), ``to_storage``/``from_storage`` convert wire dicts (partial ones too, never changing
    their argument), ``warning`` is the deprecation warning every request in it answers with,
    ``printer`` its own columns (a CRD's ``additionalPrinterColumns`` are per version)."""

    model: type[Resource]
    to_storage: Callable[[Obj], Obj]
    from_storage: Callable[[Obj], Obj]
    warning: str | None = None
    printer: Printer | None = None  # its ``kubectl get`` columns, when they differ from the storage version's
    feature_gate: str = ""  # served only with this gate on (an alpha version of a built-in group)
    # further validation of writes in this version, on the storage form (``new``, ``old`` or ``None``
    # on create): upstream's strategies that validate by request version (events.k8s.io/v1 Events)
    validate: Callable[[Obj, Obj | None], list[FieldError]] | None = None
    # a list's or watch's field selector in this version's labels → the storage version's (upstream's
    # field label conversion: events.k8s.io/v1 ``regarding.name`` is ``involvedObject.name``)
    field_selector: Callable[[str], str] | None = None
