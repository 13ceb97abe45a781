"""The ``serviceaccount-token`` controller (upstream ``pkg/controller/serviceaccount/tokens_controller.go``
``syncSecret`` and ``tokens_controller_test.go``'s rows that survive 1.24's end of auto-generated
tokens), run as the control plane runs it, and its pure decision."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Secret, ServiceAccount
from kbatch.authz.signing import SigningKey
from kbatch.controllers.serviceaccount.tokens_sync import Action, TokenSecret, decide, filled_data

KEY = SigningKey.derive(b"tokens-controller")
NS = "default"


def _plane(*, key: bool = True) -> ControlPlane:
    cp = ControlPlane(controllers="serviceaccount-token,garbage-collector")
    if key:
        cp.server.token_signer.install(KEY)
    return cp


def _account(cp: ControlPlane, name: str = "bot", secrets: list[str] | None = None) -> ServiceAccount:
    body: dict[str, object] = {"metadata": {"name": name, "namespace": NS}}
    if secrets:
        body["secrets"] = [{"name": s} for s in secrets]
    return cp.client.create(ServiceAccount.model_validate(body))


def _secret(cp: ControlPlane, name: str = "bot-token", account: str = "bot", *, uid: str | None = None,
            data: dict[str, str] | None = None) -> None:
    annotations = {"kubernetes.io/service-account.name": account}
    if uid is not None:
        annotations["kubernetes.io/service-account.uid"] = uid
    cp.client.create(Secret.model_validate({
        "metadata": {"name": name, "namespace": NS, "annotations": annotations},
        "type": "kubernetes.io/service-account-token", "data": data}))
    cp.run_until_idle()


def _decoded(secret: Secret) -> dict[str, str]:
    return {k: base64.b64decode(v).decode() for k, v in (secret.data or {}).items()}


def _names(cp: ControlPlane) -> list[str]:
    return sorted(s.metadata.name or "" for s in cp.client.list(Secret, NS).items)


def test_a_token_secret_of_an_existing_account_is_filled() -> None:
    cp = _plane()
    sa = _account(cp)
    _secret(cp)
    secret = cp.client.get(Secret, "bot-token", NS)
    data = _decoded(secret)
    assert sorted(data) == ["ca.crt", "namespace", "token"]
    assert data["namespace"] == NS and data["ca.crt"] == ""  # kbatch's root CA is empty (docs)
    claims = KEY.verify(data["token"])
    assert claims["iss"] == "kubernetes/serviceaccount"
    assert claims["kubernetes.io/serviceaccount/secret.name"] == "bot-token"
    assert claims["kubernetes.io/serviceaccount/service-account.uid"] == sa.metadata.uid
    assert (secret.metadata.annotations or {})["kubernetes.io/service-account.uid"] == sa.metadata.uid


def test_a_token_secret_without_its_account_is_deleted() -> None:
    """syncSecret: ``sa == nil`` deletes the token (tokens_controller_test.go "added token secret
    without serviceaccount")."""
    cp = _plane()
    _secret(cp, account="nobody")
    assert _names(cp) == []


def test_a_token_secret_of_a_recreated_account_is_deleted() -> None:
    """The uid annotation names another account ("added token secret with serviceaccount uid
    mismatch")."""
    cp = _plane()
    _account(cp)
    _secret(cp, uid="uid-of-an-older-bot")
    assert _names(cp) == []


def test_deleting_the_account_deletes_its_token_secrets_only() -> None:
    """syncServiceAccount on a deleted account: ``deleteTokens`` ("deleted serviceaccount with token
    secrets"); another account's and an Opaque Secret stay."""
    cp = _plane()
    _account(cp)
    _account(cp, "other")
    _secret(cp, "bot-token")
    _secret(cp, "bot-token-2")
    _secret(cp, "other-token", "other")
    cp.client.create(Secret.model_validate({"metadata": {"name": "plain", "namespace": NS},
                                            "stringData": {"a": "b"}}))
    cp.client.delete(ServiceAccount, "bot", NS)
    cp.run_until_idle()
    assert _names(cp) == ["other-token", "plain"]


def test_a_token_already_there_is_kept_and_only_missing_keys_are_filled() -> None:
    """``secretUpdateNeeded`` ("updated token secret without namespace data"): the token is not
    regenerated, the namespace is added."""
    cp = _plane()
    _account(cp)
    mine = base64.b64encode(b"my-own-token").decode()
    _secret(cp, data={"token": mine})
    data = _decoded(cp.client.get(Secret, "bot-token", NS))
    assert data["token"] == "my-own-token" and data["namespace"] == NS


def test_a_deleted_token_secret_leaves_its_accounts_secrets() -> None:
    """``removeSecretReference`` ("deleted token secret with serviceaccount")."""
    cp = _plane()
    _account(cp, secrets=["bot-token", "keep"])
    _secret(cp)
    cp.client.delete(Secret, "bot-token", NS)
    cp.run_until_idle()
    sa = cp.client.get(ServiceAccount, "bot", NS)
    assert [ref.name for ref in sa.secrets or []] == ["keep"]


def test_without_a_key_the_secret_waits_and_is_filled_when_a_server_installs_one() -> None:
    cp = _plane(key=False)
    _account(cp)
    _secret(cp)
    assert cp.client.get(Secret, "bot-token", NS).data is None
    cp.server.token_signer.install(KEY)
    cp.run_until_idle()
    assert "token" in _decoded(cp.client.get(Secret, "bot-token", NS))


def test_a_filled_secret_survives_a_pickled_state_and_an_edit() -> None:
    """The state image keeps the controller and its listener, not the key."""
    import pickle

    cp = _plane()
    _account(cp)
    _secret(cp)
    token = _decoded(cp.client.get(Secret, "bot-token", NS))["token"]
    secret = edit(cp.client.get(Secret, "bot-token", NS))
    secret.metadata.labels = {"touched": "yes"}
    cp.client.update(secret)
    cp.run_until_idle()
    assert _decoded(cp.client.get(Secret, "bot-token", NS))["token"] == token
    assert not pickle.loads(pickle.dumps(cp.server.token_signer)).ready


_KEYS = st.sampled_from(["token", "namespace", "ca.crt", "other"])


@given(data=st.dictionaries(_KEYS, st.sampled_from(["", "eA=="]), max_size=4),
       annotated_uid=st.sampled_from(["", "u1", "u2"]), live_uid=st.sampled_from([None, "u1"]))
def test_the_decision_converges_and_never_replaces_a_key(
        data: dict[str, str], annotated_uid: str, live_uid: str | None) -> None:
    """Property: after one FILL the decision is NOTHING; a FILL keeps every non-empty key; a
    missing account or another uid is always DELETE."""
    secret = TokenSecret("bot", annotated_uid, tuple(sorted(data.items())))
    action = decide(secret, live_uid, "")
    if live_uid is None or (annotated_uid and annotated_uid != live_uid):
        assert action is Action.DELETE
        return
    if action is Action.FILL:
        filled = filled_data(secret, NS, "tok", "")
        assert all(filled[k] == v for k, v in data.items() if v)
        after = TokenSecret("bot", live_uid, tuple(sorted(filled.items())))
        assert decide(after, live_uid, "") is Action.NOTHING


@pytest.mark.parametrize(("root_ca", "stored", "action"), [("", None, Action.NOTHING),
                                                             ("CA", None, Action.FILL),
                                                             ("CA", "Q0E=", Action.NOTHING),
                                                             ("CA", "b3RoZXI=", Action.FILL)])
def test_a_root_ca_is_written_when_it_differs(root_ca: str, stored: str | None, action: Action) -> None:
    """``secretUpdateNeeded``: ``needsCA`` only for a non-empty root CA that differs."""
    data = {"token": "eA==", "namespace": "eA==", **({"ca.crt": stored} if stored else {})}
    assert decide(TokenSecret("bot", "u1", tuple(sorted(data.items()))), "u1", root_ca) is action
