"""The ``serviceaccount-token`` controller (kube-controller-manager's ``serviceaccount-token-controller``,
``pkg/controller/serviceaccount/tokens_controller.go``): fills and cleans up legacy token Secrets.

Requests are token Secrets (type ``kubernetes.io/service-account-token``). A Secret's creation or
update enqueues it; an account's update or deletion enqueues the namespace's token Secrets that name
it (upstream's ``syncServiceAccount`` deletes an account's tokens when it goes: here each of them
finds its account gone). The decision is :func:`~kbatch.controllers.serviceaccount.tokens_sync.decide`;
this module reads and writes. A Secret that is gone has its name removed from the ``secrets`` of the
account that lists it (``removeSecretReference``).

The token is signed through the API server's :class:`~kbatch.authz.token_signer.TokenSigner`, which
``kbatch serve`` fills with its key: while the slot is empty (no server on this state) the Secret
waits, and every waiting Secret is filled when a server starts (docs/serviceaccounts.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Protocol

from kbatch.api.errors import Conflict, NotFound
from kbatch.api.frozen import edit
from kbatch.apiserver.client import Preconditions
from kbatch.apiserver.default_accounts import CA_DATA
from kbatch.controllers.serviceaccount.tokens_sync import (
    SA_NAME_KEY,
    SA_TOKEN_TYPE,
    SA_UID_KEY,
    Action,
    TokenSecret,
    decide,
    filled_data,
)
from kbatch.runtime.context import ControllerContext

__all__ = ["Signer", "TokensController", "setup"]


class Signer(Protocol):
    """What the controller needs of ``APIServer.token_signer`` (kbatch/authz/token_signer.py)."""

    def legacy_token(self, namespace: str, account: str, account_uid: str,
                     secret_name: str) -> str | None: ...

    def listen(self, listener: Callable[[], None]) -> None: ...


class _NoKey:
    """The signer of a controller without an in-process API server: it never has a key."""

    def legacy_token(self, namespace: str, account: str, account_uid: str, secret_name: str) -> str | None:
        return None

    def listen(self, listener: Callable[[], None]) -> None:
        return None


class _TokenSecrets:
    """Only token Secrets (upstream's informer has a ``type`` field selector); module level: the
    state image pickles it."""

    def create(self, obj: Any) -> bool:
        return bool(obj.type == SA_TOKEN_TYPE)

    def update(self, old: Any, new: Any) -> bool:
        return bool(new.type == SA_TOKEN_TYPE)

    def delete(self, obj: Any) -> bool:
        return bool(obj.type == SA_TOKEN_TYPE)


class _AccountChanges:
    """An account's update (its uid cannot change, but its ``secrets`` can) and deletion."""

    def create(self, obj: Any) -> bool:
        return False

    def update(self, old: Any, new: Any) -> bool:
        return True

    def delete(self, obj: Any) -> bool:
        return True


TOKEN_SECRETS, ACCOUNT_CHANGES = _TokenSecrets(), _AccountChanges()


def _view(secret: Any) -> TokenSecret:
    annotations = secret.metadata.annotations or {}
    return TokenSecret(annotations.get(SA_NAME_KEY, ""), annotations.get(SA_UID_KEY, ""),
                       tuple(sorted((secret.data or {}).items())))


class TokensController:
    def __init__(self, ctx: ControllerContext, signer: Signer) -> None:
        self.client = ctx.client
        self.cache = ctx.cache
        self.signer = signer

    def for_account(self, obj: Any) -> list[Any]:
        """The token Secrets of ``obj``'s namespace that name it."""
        from kbatch.api.core_v1 import Secret
        from kbatch.runtime.reconcile import Request

        namespace = obj.metadata.namespace or ""
        return [Request(namespace, s.metadata.name or "") for s in self.cache.list(Secret, namespace)
                if s.type == SA_TOKEN_TYPE and _view(s).account_name == obj.metadata.name]

    def resync(self) -> None:
        """Every cached token Secret, synced now (the signer just got its key)."""
        from kbatch.api.core_v1 import Secret

        for secret in self.cache.list(Secret):
            if secret.type == SA_TOKEN_TYPE:
                self.sync(secret.metadata.namespace or "", secret.metadata.name or "")

    def _account(self, namespace: str, name: str) -> Any:
        from kbatch.api.core_v1 import ServiceAccount

        try:  # getServiceAccount(..., fetchFirstFromAPIServer=true): the live object, not the cache's
            return self.client.get(ServiceAccount, name, namespace) if name else None
        except NotFound:
            return None

    def sync(self, namespace: str, name: str) -> None:
        """``syncSecret``."""
        from kbatch.api.core_v1 import Secret

        try:
            secret = self.client.get(Secret, name, namespace)
        except NotFound:
            self._remove_reference(namespace, name)
            return
        if secret.type != SA_TOKEN_TYPE:
            return
        view = _view(secret)
        account = self._account(namespace, view.account_name)
        uid = (account.metadata.uid or "") if account is not None else None
        action = decide(view, uid, CA_DATA)
        if action is Action.DELETE:
            # deleteToken: a NotFound or a failed uid precondition (Conflict) needs no retry
            precondition = Preconditions(uid=secret.metadata.uid)
            with contextlib.suppress(NotFound, Conflict):
                self.client.delete(Secret, name, namespace, preconditions=precondition)
        elif action is Action.FILL and uid is not None:
            self._fill(secret, view, view.account_name, uid)

    def _fill(self, secret: Any, view: TokenSecret, account: str, uid: str) -> None:
        """``generateTokenIfNeeded`` on the live Secret (read just now, so its resourceVersion is
        current); a Conflict or NotFound is left to the next event, as upstream."""
        namespace = secret.metadata.namespace or ""
        token = self.signer.legacy_token(namespace, account, uid, secret.metadata.name or "")
        if token is None:
            return  # no key yet: filled when `kbatch serve` installs one (resync)
        changed = edit(secret)
        changed.data = filled_data(view, namespace, token, CA_DATA)
        changed.metadata.annotations = {**(secret.metadata.annotations or {}), SA_NAME_KEY: account,
                                        SA_UID_KEY: uid}
        with contextlib.suppress(Conflict, NotFound):
            self.client.update(changed)

    def _remove_reference(self, namespace: str, name: str) -> None:
        """``removeSecretReference``: the namespace's accounts that list the deleted Secret drop it."""
        from kbatch.api.core_v1 import ServiceAccount

        for account in self.cache.list(ServiceAccount, namespace):
            refs = account.secrets or []
            if not any(ref.name == name for ref in refs):
                continue
            changed = edit(account)
            changed.secrets = [ref for ref in refs if ref.name != name] or None
            with contextlib.suppress(Conflict, NotFound):
                self.client.update(changed)

    def reconcile(self, request: Any) -> Any:
        self.sync(request.namespace, request.name)
        return None


def setup(ctx: ControllerContext) -> TokensController:
    """Catalog factory for ``serviceaccount-token``."""
    from kbatch.api.core_v1 import Secret, ServiceAccount

    signer: Signer = ctx.server.token_signer if ctx.server is not None else _NoKey()
    controller = TokensController(ctx, signer)
    (ctx.build()
        .describe("fills legacy service-account token Secrets and deletes those of deleted accounts")
        .for_(Secret, TOKEN_SECRETS)
        .watches(ServiceAccount, controller.for_account, ACCOUNT_CHANGES)
        .complete(controller))
    signer.listen(controller.resync)
    return controller
