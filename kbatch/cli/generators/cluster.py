"""``create namespace|serviceaccount|priorityclass|quota|poddisruptionbudget`` (k8s.io/kubectl
``pkg/cmd/create/create_namespace.go``, ``create_serviceaccount.go``, ``create_priorityclass.go``,
``create_quota.go``, ``create_pdb.go``)."""

from __future__ import annotations

import re

from kbatch.cli.generators import GeneratorError, Obj, object_meta

__all__ = ["label_selector", "namespace", "pod_disruption_budget", "priority_class", "quota",
           "service_account"]


def namespace(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": {}, "status": {}}


def service_account(name: str, ns: str | None) -> Obj:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object_meta(name, ns)}


def priority_class(name: str, value: int, global_default: bool, description: str,
                   preemption_policy: str) -> Obj:
    """The flags as given: ``--preemption-policy`` defaults to ``PreemptLowerPriority`` and is always
    sent; ``globalDefault`` and ``description`` are ``omitempty``."""
    out: Obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                "value": value}
    if global_default:
        out["globalDefault"] = True
    if description:
        out["description"] = description
    out["preemptionPolicy"] = preemption_policy
    return out


def _resource_list(spec: str) -> dict[str, str] | None:
    """``populateResourceListV1``: ``name=quantity,…``; each quantity parsed, and written canonically
    as the typed ``resource.Quantity`` kubectl holds serializes."""
    from kbatch.api.quantity import Quantity

    if not spec:
        return None
    out: dict[str, str] = {}
    for statement in spec.split(","):
        parts = statement.split("=")
        if len(parts) != 2:
            raise GeneratorError(f"Invalid argument syntax {statement}, expected <resource>=<value>")
        try:
            out[parts[0]] = str(Quantity(parts[1]))
        except (ValueError, TypeError):
            raise GeneratorError("quantities must match the regular expression "
                                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'") from None
    return out


def _scopes(spec: str) -> list[str] | None:
    """``parseScopes``: comma-separated, not checked against the known scopes (the server does)."""
    if not spec:
        return None
    scopes = spec.split(",")
    if "" in scopes:
        raise GeneratorError('invalid resource quota scope ""')
    return scopes


def quota(name: str, ns: str | None, hard: str, scopes: str) -> Obj:
    spec: Obj = {}
    resources, scope_list = _resource_list(hard), _scopes(scopes)
    if resources:
        spec["hard"] = resources
    if scope_list:
        spec["scopes"] = scope_list
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": object_meta(name, ns), "spec": spec,
            "status": {}}


def label_selector(text: str) -> Obj:
    """apimachinery ``metav1.ParseToLabelSelector``: equality requirements become ``matchLabels``,
    set-based ones ``matchExpressions``; ``!=``, ``>`` and ``<`` are refused."""
    from kbatch.api.errors import BadRequest
    from kbatch.api.selectors import parse_label_selector

    try:
        requirements = parse_label_selector(text).requirements
    except BadRequest as err:
        raise GeneratorError(f"couldn't parse the selector string \"{text}\": {err.message}") from None
    labels: dict[str, str] = {}
    expressions: list[Obj] = []
    ops = {"in": "In", "notin": "NotIn", "exists": "Exists", "!": "DoesNotExist"}
    for req in requirements:
        if req.operator in ("=", "=="):
            labels[req.key] = req.values[0]
        elif req.operator in ops:
            expr: Obj = {"key": req.key, "operator": ops[req.operator]}
            if req.values:
                expr["values"] = list(req.values)
            expressions.append(expr)
        elif req.operator in ("gt", "lt"):
            raise GeneratorError(f'"{req.operator}" isn\'t supported in label selectors')
        else:
            raise GeneratorError(f'"{req.operator}" is not a valid label selector operator')
    out: Obj = {}
    if labels:
        out["matchLabels"] = labels
    if expressions:
        out["matchExpressions"] = expressions
    return out


_COUNT = re.compile(r"[0-9]+%?")


def _int_or_string(text: str) -> int | str:
    """apimachinery ``intstr.Parse``: an integer when it reads as one, else the string."""
    try:
        return int(text)
    except ValueError:
        return text


def pod_disruption_budget(name: str, ns: str | None, selector: str, min_available: str,
                          max_unavailable: str) -> Obj:
    """``PodDisruptionBudgetOpts.Validate`` then ``createPodDisruptionBudgets``; the status's
    counters are by-value integers, written as 0."""
    if not selector:
        raise GeneratorError("a selector must be specified")
    if not (min_available or max_unavailable):
        raise GeneratorError("one of min-available or max-unavailable must be specified")
    if min_available and max_unavailable:
        raise GeneratorError("min-available and max-unavailable cannot be both specified")
    if min_available and not _COUNT.fullmatch(min_available):
        raise GeneratorError("invalid format specified for min-available")
    if max_unavailable and not _COUNT.fullmatch(max_unavailable):
        raise GeneratorError("invalid format specified for max-unavailable")
    spec: Obj = {"selector": label_selector(selector)}
    if min_available:
        spec["minAvailable"] = _int_or_string(min_available)
    else:
        spec["maxUnavailable"] = _int_or_string(max_unavailable)
    status = {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": object_meta(name, ns),
            "spec": spec, "status": status}
