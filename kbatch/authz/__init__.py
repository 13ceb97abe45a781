"""Authentication and authorization: who a request acts as and whether the Node authorizer or RBAC
allows it.

* :mod:`.user` — the user a request acts as (``user.Info``) and the attributes an authorizer decides on;
* :mod:`.rules` — whether one PolicyRule covers a request (``pkg/apis/rbac/v1/evaluation_helpers.go``);
* :mod:`.rbac` — the RBAC authorizer over a snapshot of roles and bindings
  (``plugin/pkg/auth/authorizer/rbac/rbac.go``, ``pkg/registry/rbac/validation/rule.go``);
* :mod:`.chain` — kube-apiserver's authorizer chain as kbatch models it: ``system:masters``, then the
  Node authorizer (when configured) and RBAC as a union (k8s.io/apiserver ``union.go``);
* :mod:`.node_authorizer`, :mod:`.node_graph`, :mod:`.node_graph_populator`, :mod:`.pod_references` —
  the Node authorizer and its graph of pods and what they reference
  (``plugin/pkg/auth/authorizer/node``);
* :mod:`.impersonation` — the ``Impersonate-*`` headers (k8s.io/apiserver
  ``pkg/endpoints/filters/impersonation/impersonation.go``);
* :mod:`.request` — a REST request's verb and resource (``pkg/endpoints/request/requestinfo.go``) and
  the 403 it gets when denied (``pkg/endpoints/handlers/responsewriters/errors.go``);
* :mod:`.escalation` — RBAC's escalation check on writes of roles and bindings
  (``pkg/registry/rbac/*/policybased``), run in the write path by :mod:`kbatch.apiserver.rbac_policybased`;
* :mod:`.reviews` — authorization.k8s.io/v1 access and rules reviews (``pkg/registry/authorization``);
* :mod:`.impersonation_check` — whether the caller may impersonate (1.37's constrained impersonation);
* :mod:`.signing`, :mod:`.sa_claims`, :mod:`.token_authentication`, :mod:`.token_request` — service-account
  tokens: the key, the claims and their validation, bearer-token authentication, the TokenRequest's
  rules (``pkg/serviceaccount``, ``pkg/registry/core/serviceaccount/storage/token.go``).

Every decision is a pure function of its inputs; docs/rbac.md says which requests are authorized.
"""
