"""StorageClass strategy: defaults, validation and the update rules of upstream.

Upstream (read at master, 1.34+): kubernetes ``pkg/apis/storage/v1/defaults.go``
(``SetDefaults_StorageClass``: ``reclaimPolicy: Delete``, ``volumeBindingMode: Immediate``),
``pkg/apis/storage/validation/validation.go`` (``ValidateStorageClass``, ``ValidateStorageClassUpdate``,
``validateProvisioner``, ``validateParameters``, ``validateReclaimPolicy``,
``validateVolumeBindingMode``, ``validateAllowedTopologies``), ``pkg/apis/core/validation``
(``ValidateTopologySelectorTerm``) and ``pkg/registry/storage/storageclass/strategy.go`` (no status,
no generation). Messages are upstream's.
"""

from __future__ import annotations

from kbatch.api.errors import FieldError
from kbatch.api.storage_v1 import VOLUME_BINDING_MODES, StorageClass, TopologySelectorTerm
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import child, index, is_qualified_name, validate_immutable, validate_label_name

__all__ = ["StorageClassStrategy", "validate_topology_term"]

RECLAIM_POLICIES = ["Delete", "Retain"]
MAX_PARAMETERS = 512
MAX_PARAMETERS_SIZE = 256 * (1 << 10)


def _provisioner_errors(provisioner: str) -> list[FieldError]:
    if not provisioner:
        return [FieldError.required("provisioner", "")]
    lowered = provisioner.lower()  # upstream checks the lower-cased name and reports it
    return [FieldError.invalid("provisioner", lowered, m) for m in is_qualified_name(lowered)]


def _parameters_errors(params: dict[str, str] | None) -> list[FieldError]:
    if params is not None and len(params) > MAX_PARAMETERS:
        return [FieldError.too_long("parameters", MAX_PARAMETERS)]  # upstream's TooLong, sic
    found = params or {}
    errs = [FieldError.invalid("parameters", k, "field can not be empty.") for k in sorted(found) if not k]
    if sum(len(k) + len(v) for k, v in found.items()) > MAX_PARAMETERS_SIZE:
        errs.append(FieldError.too_long("parameters", MAX_PARAMETERS_SIZE))
    return errs


def validate_topology_term(term: TopologySelectorTerm, path: str) -> tuple[dict[str, frozenset[str]],
                                                                            list[FieldError]]:
    """``ValidateTopologySelectorTerm``: each requirement has values, none twice, a label-name key;
    no key twice. Returns the term as key -> values (to find duplicate terms) and the errors."""
    errs: list[FieldError] = []
    seen: dict[str, frozenset[str]] = {}
    exprs = child(path, "matchLabelExpressions")
    for i, req in enumerate(term.match_label_expressions or ()):
        at = index(exprs, i)
        values_path = child(at, "values")
        if not req.values:
            errs.append(FieldError.required(values_path, ""))
        values: set[str] = set()
        for j, value in enumerate(req.values or ()):
            if value in values:
                errs.append(FieldError.duplicate(index(values_path, j), value))
            values.add(value)
        errs += validate_label_name(req.key, child(at, "key"))
        if req.key in seen:
            errs.append(FieldError.duplicate(child(at, "key"), req.key))
        seen[req.key] = frozenset(values)
    return seen, errs


def _topologies_errors(terms: list[TopologySelectorTerm] | None) -> list[FieldError]:
    """``validateAllowedTopologies``: each term valid, no term twice (the same keys with the same value
    sets). Upstream starts its list of seen terms with one empty entry per term (``make`` with a
    length, then ``append``) and compares with semantic equality, for which an empty map equals a
    nil one: a term without expressions is reported as a duplicate once per term in the list
    (upstream's TestValidateAllowedTopologies expects "empty MatchLabelExpressions" to fail)."""
    errs: list[FieldError] = []
    earlier: list[dict[str, frozenset[str]]] = [{} for _ in terms or ()]
    for i, term in enumerate(terms or ()):
        at = index("allowedTopologies", i)
        expressions, term_errs = validate_topology_term(term, at)
        errs += term_errs
        errs += [FieldError.duplicate(child(at, "matchLabelExpressions"), "")
                 for seen in earlier if seen == expressions]
        earlier.append(expressions)
    return errs


class StorageClassStrategy(DefaultStrategy):
    has_status = False
    has_generation = False

    def default(self, obj: StorageClass) -> None:  # type: ignore[override]
        if obj.reclaim_policy is None:
            obj.reclaim_policy = "Delete"
        if obj.volume_binding_mode is None:
            obj.volume_binding_mode = "Immediate"

    def validate(self, obj: StorageClass) -> list[FieldError]:  # type: ignore[override]
        errs = _provisioner_errors(obj.provisioner) + _parameters_errors(obj.parameters)
        if obj.reclaim_policy and obj.reclaim_policy not in RECLAIM_POLICIES:
            errs.append(FieldError.not_supported("reclaimPolicy", obj.reclaim_policy, RECLAIM_POLICIES))
        mode = obj.volume_binding_mode
        if mode is None:
            errs.append(FieldError.required("volumeBindingMode", ""))
        elif mode not in VOLUME_BINDING_MODES:
            errs.append(FieldError.not_supported("volumeBindingMode", mode, list(VOLUME_BINDING_MODES)))
        return errs + _topologies_errors(obj.allowed_topologies)

    def validate_update(self, new: StorageClass,  # type: ignore[override]
                        old: StorageClass) -> list[FieldError]:
        errs: list[FieldError] = []
        if (new.parameters or {}) != (old.parameters or {}):
            errs.append(FieldError.forbidden("parameters", "updates to parameters are forbidden."))
        if new.provisioner != old.provisioner:
            errs.append(FieldError.forbidden("provisioner", "updates to provisioner are forbidden."))
        if new.reclaim_policy != old.reclaim_policy:
            errs.append(FieldError.forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
        return errs + validate_immutable(new.volume_binding_mode, old.volume_binding_mode,
                                         "volumeBindingMode")

    def spec_changed(self, new: StorageClass, old: StorageClass) -> bool:  # type: ignore[override]
        return False
