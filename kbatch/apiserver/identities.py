"""Who the control plane's own components are when they write (kind's kubeadm defaults).

- kube-controller-manager runs with ``--use-service-account-credentials=true``: each controller's
  client is built by ``ClientBuilder.ClientOrDie("<account>")`` (k8s.io/kubernetes
  ``cmd/kube-controller-manager/app/core.go``, ``batch.go``, …), and acts as the ServiceAccount
  ``kube-system/<account>``, whose ClusterRole ``system:controller:<account>`` is bootstrap policy
  (``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go``). A few controllers share
  an account (node-lifecycle, taint-eviction and node-ipam all use ``node-controller``); the
  service-account token controller uses the manager's own credentials
  (``system:kube-controller-manager``), since the other accounts' tokens depend on it.
- kube-scheduler is ``system:kube-scheduler`` (its kubeconfig's client certificate).
- a kubelet is ``system:node:<nodeName>`` in the group ``system:nodes``
  (k8s.io/kubernetes ``pkg/auth/nodeidentifier/default.go`` reads them back).
- every authenticated user is also in ``system:authenticated``
  (k8s.io/apiserver ``pkg/authentication/group/authenticated_group_adder.go``).

:func:`component_user` turns a username into that :class:`UserInfo`; :func:`node_identity` is
``NodeIdentity``.
"""

from __future__ import annotations

from functools import lru_cache

from kbatch.authz.user import ALL_AUTHENTICATED, NODE_USER_PREFIX, NODES_GROUP, UserInfo, node_identity
from kbatch.families.family import kcm_account

__all__ = [
    "CONTROLLER_NAMESPACE",
    "KUBE_CONTROLLER_MANAGER",
    "KUBE_SCHEDULER",
    "NODES_GROUP",
    "NODE_USER_PREFIX",
    "SERVICE_ACCOUNT_PREFIX",
    "UserInfo",
    "component_user",
    "controller_account_name",
    "kcm_account",
    "node_identity",
    "node_user",
    "user_agent",
]

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
CONTROLLER_NAMESPACE = "kube-system"

KUBE_SCHEDULER = UserInfo("system:kube-scheduler", (ALL_AUTHENTICATED,))
KUBE_CONTROLLER_MANAGER = UserInfo("system:kube-controller-manager", (ALL_AUTHENTICATED,))


def controller_account_name(username: str) -> str | None:
    """The ServiceAccount name in ``kube-system`` that ``username`` (a :func:`kcm_account`) is, else
    ``None``."""
    prefix = kcm_account("")
    return username[len(prefix):] or None if username.startswith(prefix) else None


@lru_cache(maxsize=4096)
def component_user(username: str) -> UserInfo:
    """The user a component's credentials authenticate as: a service account gets
    ``system:serviceaccounts`` and ``system:serviceaccounts:<ns>`` (k8s.io/apiserver
    ``pkg/authentication/serviceaccount/util.go`` ``MakeGroupNames``), a node ``system:nodes``."""
    if username.startswith(SERVICE_ACCOUNT_PREFIX):
        namespace = username[len(SERVICE_ACCOUNT_PREFIX):].partition(":")[0]
        groups: tuple[str, ...] = ("system:serviceaccounts", f"system:serviceaccounts:{namespace}")
    elif username.startswith(NODE_USER_PREFIX):
        groups = (NODES_GROUP,)
    else:
        groups = ()
    return UserInfo(username, (*groups, ALL_AUTHENTICATED))


def node_user(node_name: str) -> UserInfo:
    """The kubelet of ``node_name``."""
    return component_user(NODE_USER_PREFIX + node_name)


def user_agent(user: UserInfo) -> str | None:
    """The product name in the user agent of the component ``user`` is (what upstream's handlers take
    as the field manager of a write that names none: ``prefixFromUserAgent``, the part before the
    first "/"); ``None`` for anyone else."""
    name = user.name
    if name.startswith(NODE_USER_PREFIX):
        return "kubelet"
    if name == KUBE_SCHEDULER.name:
        return "kube-scheduler"
    if name == KUBE_CONTROLLER_MANAGER.name or name.startswith(kcm_account("")):
        return "kube-controller-manager"
    return None

