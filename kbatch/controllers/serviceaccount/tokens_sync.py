"""The tokens controller's decision for one ``kubernetes.io/service-account-token`` Secret, pure.

Upstream ``pkg/controller/serviceaccount/tokens_controller.go`` (1.37) ``syncSecret``: the account the
Secret's ``kubernetes.io/service-account.name`` annotation names is read from the API server; when it
is gone, or its uid is not the one the ``kubernetes.io/service-account.uid`` annotation gives, the
Secret is deleted (with a uid precondition); otherwise ``generateTokenIfNeeded`` fills what is
missing — ``data.namespace``, ``data.token`` (a legacy token, :mod:`kbatch.authz.legacy_tokens`) and
``data["ca.crt"]`` — and sets both annotations. ``secretUpdateNeeded`` looks only at those keys: a
token already there is never replaced, whoever wrote it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from enum import Enum

__all__ = ["CA_KEY", "NAMESPACE_KEY", "SA_NAME_KEY", "SA_TOKEN_TYPE", "SA_UID_KEY", "TOKEN_KEY", "Action",
           "TokenSecret", "decide", "filled_data"]

SA_TOKEN_TYPE = "kubernetes.io/service-account-token"
SA_NAME_KEY = "kubernetes.io/service-account.name"  # v1.ServiceAccountNameKey
SA_UID_KEY = "kubernetes.io/service-account.uid"  # v1.ServiceAccountUIDKey
# v1.ServiceAccountTokenKey, ServiceAccountNamespaceKey, ServiceAccountRootCAKey
TOKEN_KEY, NAMESPACE_KEY, CA_KEY = "token", "namespace", "ca.crt"


class Action(Enum):
    NOTHING = "nothing"
    DELETE = "delete"  # the account is gone or was recreated
    FILL = "fill"  # write the missing keys and the annotations


@dataclass(frozen=True, slots=True)
class TokenSecret:
    """What the decision reads of a token Secret: its annotations' account and its data keys."""

    account_name: str
    account_uid: str  # the uid annotation; empty until the controller first fills the Secret
    data: tuple[tuple[str, str], ...]  # (key, base64) pairs, sorted

    def has(self, key: str) -> bool:
        """``len(secret.Data[key]) > 0``."""
        return any(k == key and v for k, v in self.data)


def decide(secret: TokenSecret, account_uid: str | None, root_ca: str) -> Action:
    """``syncSecret`` for a Secret that exists: ``account_uid`` is the uid of the live account its
    annotation names (``None``: there is none)."""
    if account_uid is None or (secret.account_uid and secret.account_uid != account_uid):
        return Action.DELETE
    needs_ca = bool(root_ca) and dict(secret.data).get(CA_KEY) != _b64(root_ca)
    if secret.has(TOKEN_KEY) and secret.has(NAMESPACE_KEY) and not needs_ca:
        return Action.NOTHING
    return Action.FILL


def filled_data(secret: TokenSecret, namespace: str, token: str, root_ca: str) -> dict[str, str]:
    """The Secret's data after ``generateTokenIfNeeded``: missing keys filled, the rest kept."""
    data = dict(secret.data)
    if CA_KEY not in data or root_ca:  # kbatch's root CA is empty: the key is still written (docs)
        data[CA_KEY] = _b64(root_ca)
    if not secret.has(NAMESPACE_KEY):
        data[NAMESPACE_KEY] = _b64(namespace)
    if not secret.has(TOKEN_KEY):
        data[TOKEN_KEY] = _b64(token)
    return data


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()
