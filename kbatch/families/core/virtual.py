"""The core family's virtual resources (:mod:`kbatch.api.virtual`): answered by a handler, never
stored.

* authentication.k8s.io/v1 ``selfsubjectreviews`` and ``tokenreviews``, create-only
  (``pkg/registry/authentication/selfsubjectreview/rest.go``, ``tokenreview/storage.go``);
* authorization.k8s.io/v1 ``selfsubjectaccessreviews``, ``subjectaccessreviews``,
  ``localsubjectaccessreviews`` (namespaced) and ``selfsubjectrulesreviews``, create-only
  (``pkg/registry/authorization/*/rest.go``); kube-apiserver installs both groups whatever the
  authorization mode, so they belong to core rather than to the rbac family;
* the subresources of core kinds beyond ``status`` (:class:`~kbatch.api.virtual.Subresource`):
  ``pods/log``, ``pods/eviction`` (policy/v1 Eviction), ``pods/ephemeralcontainers``, the connect
  subresources ``pods/{attach,exec,portforward,proxy}`` (their ``*Options`` kinds and the verbs the
  installer derives from ``ConnectMethods``; kbatch refuses them when asked, docs/serve.md), served by
  the pod's REST handlers; ``serviceaccounts/token`` (authentication.k8s.io/v1 TokenRequest,
  ``pkg/registry/core/serviceaccount/storage/token.go``: create only) by its handler;
* metrics.k8s.io/v1beta1 ``nodes`` and ``pods`` (``get``, ``list``), which metrics-server serves
  behind the APIService ``v1beta1.metrics.k8s.io`` (kubernetes-sigs/metrics-server
  ``pkg/api/{node,pod}.go``: no singular name); kbatch's usage is the simulation's
  (:mod:`kbatch.sim.metrics`).
"""

from __future__ import annotations

from kbatch.api.virtual import Subresource, VirtualResource

__all__ = ["AUTHENTICATION", "AUTHORIZATION", "METRICS", "POD_CONNECT", "POD_SUBRESOURCES",
           "SERVICE_ACCOUNT_SUBRESOURCES", "VIRTUAL"]

_AUTHN, _AUTHZ = "authentication.k8s.io", "authorization.k8s.io"
_REVIEW = "kbatch.server.authorization_api:serve_review"
_METRICS_SERVICE = "v1beta1.metrics.k8s.io"

AUTHENTICATION = (
    VirtualResource(_AUTHN, "v1", "selfsubjectreviews", "SelfSubjectReview",
                    "kbatch.server.authentication_api:serve_self_subject_review"),
    VirtualResource(_AUTHN, "v1", "tokenreviews", "TokenReview",
                    "kbatch.server.authentication_api:serve_token_review"),
)
AUTHORIZATION = (
    VirtualResource(_AUTHZ, "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", _REVIEW),
    VirtualResource(_AUTHZ, "v1", "subjectaccessreviews", "SubjectAccessReview", _REVIEW),
    VirtualResource(_AUTHZ, "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", _REVIEW,
                    namespaced=True),
    VirtualResource(_AUTHZ, "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", _REVIEW),
)
_METRICS_TABLE = "kbatch.server.metrics_table:metrics_table"  # metrics-server's ConvertToTable
METRICS = (
    VirtualResource("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics",
                    "kbatch.server.metrics_api:serve_node_metrics", verbs=("get", "list"), singular="",
                    aggregated=_METRICS_SERVICE, table=_METRICS_TABLE),
    VirtualResource("metrics.k8s.io", "v1beta1", "pods", "PodMetrics",
                    "kbatch.server.metrics_api:serve_pod_metrics", namespaced=True, verbs=("get", "list"),
                    singular="", aggregated=_METRICS_SERVICE, table=_METRICS_TABLE),
)
VIRTUAL = (*AUTHENTICATION, *AUTHORIZATION, *METRICS)

# pkg/registry/core/pod/rest/subresources.go: each REST's ConnectMethods as verbs (GET/POST connect as
# get/create, the proxy's PUT/PATCH/DELETE as update/patch/delete; HEAD and OPTIONS have none)
POD_CONNECT = (
    Subresource("attach", ("create", "get"), "PodAttachOptions"),
    Subresource("exec", ("create", "get"), "PodExecOptions"),
    Subresource("portforward", ("create", "get"), "PodPortForwardOptions"),
    Subresource("proxy", ("create", "delete", "get", "patch", "update"), "PodProxyOptions"),
)
POD_SUBRESOURCES = (
    Subresource("log", ("get",)),
    Subresource("eviction", ("create",), "Eviction", group="policy", version="v1"),
    Subresource("ephemeralcontainers", ("get", "patch", "update")),  # EphemeralContainersREST
    *POD_CONNECT,
)
SERVICE_ACCOUNT_SUBRESOURCES = (
    Subresource("token", ("create",), "TokenRequest", group=_AUTHN, version="v1",
                handler="kbatch.server.authentication_api:serve_token_request"),
)
