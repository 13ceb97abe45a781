"""The walk both admission-policy plugins share: which (policy, binding) pairs a request reaches.

Upstream's generic dispatcher (k8s.io/apiserver ``pkg/admission/plugin/policy/generic``) visits every
policy whose ``matchConstraints`` select the request, reports a policy whose ``paramKind`` cannot be
served as a configuration error, and then every binding of that policy whose ``matchResources``
select the request. Policies and bindings are taken in name order (kbatch's determinism: upstream
walks its informer's order). What a pair does (validate, mutate) is the plugin's own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from kbatch.apiserver.admission_plugins.policy_matching import Attributes, match_resources
from kbatch.apiserver.admission_plugins.policy_params import param_kind_error
from kbatch.apiserver.admission_plugins.policy_request import namespace_labels

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["matching_pairs"]


def matching_pairs(server: APIServer, policies: Sequence[Any], bindings: Sequence[Any],
                   attrs: Attributes) -> Iterator[tuple[Any, Any, str | None]]:
    """``(policy, binding, None)`` for each matching pair, and ``(policy, None, error)`` for a
    matching policy whose ``paramKind`` is misconfigured (its bindings are then skipped)."""
    by_name = {p.name: p for p in policies}
    labels = namespace_labels(server, attrs)
    for name in sorted(by_name):
        policy = by_name[name]
        if not match_resources(policy.spec.match_constraints, attrs, labels):
            continue
        config_error = param_kind_error(server, policy)
        if config_error is not None:
            yield policy, None, config_error
            continue
        for binding in sorted((b for b in bindings if b.spec.policy_name == name), key=lambda b: b.name):
            if match_resources(binding.spec.match_resources, attrs, labels):
                yield policy, binding, None
