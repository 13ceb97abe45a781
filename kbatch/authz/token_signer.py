"""Where the tokens controller finds the service-account signing key.

kube-controller-manager's tokens controller signs legacy tokens with ``--service-account-private-key-file``,
the private half of the key kube-apiserver verifies with (``pkg/controller/serviceaccount/
tokens_controller.go`` ``TokensControllerOptions.TokenGenerator``). kbatch derives that key where it
serves tokens, in ``kbatch serve`` (from the state's seed and ``--token``, docs/serviceaccounts.md), so
the server puts it into this slot on its API server (``APIServer.token_signer``) when it starts, and
the controller signs through the slot. A process that serves no HTTP (the library, a ``kbatch``
command without a server) has an empty slot: its token Secrets wait, and are filled when a server
starts on that state (the slot tells its listeners). The key is never pickled with the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbatch.authz.legacy_tokens import legacy_claims
from kbatch.authz.sa_claims import Ref

if TYPE_CHECKING:  # the key's crypto libraries load only where a key is made (kbatch serve)
    from kbatch.authz.signing import SigningKey

__all__ = ["TokenSigner"]


class TokenSigner:
    """An empty slot until :meth:`install`; listeners (controllers waiting for a key) run then."""

    def __init__(self) -> None:
        self._key: SigningKey | None = None
        self._listeners: list[Callable[[], None]] = []

    @property
    def ready(self) -> bool:
        return self._key is not None

    def listen(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def install(self, key: SigningKey) -> None:
        self._key = key
        for listener in tuple(self._listeners):
            listener()

    def legacy_token(self, namespace: str, account: str, account_uid: str, secret_name: str) -> str | None:
        """``JWTTokenGenerator.GenerateToken(LegacyClaims(...))`` for ``account`` (name and uid) and
        its Secret ``secret_name``; ``None`` while there is no key."""
        if self._key is None:
            return None
        return self._key.sign(legacy_claims(namespace, Ref(account, account_uid), secret_name))

    def __getstate__(self) -> dict[str, Any]:
        return {"_key": None, "_listeners": self._listeners}
