"""Who asked reaches admission: ``request.userInfo`` and the ``authorizer`` of admission policies are
the caller ``kbatch serve`` authenticated (a service-account token) or impersonates (``Impersonate-*``
headers), and the local administrator without credentials or in process (k8s.io/apiserver
``pkg/endpoints/request/context.go`` ``WithUser``; ``pkg/admission/attributes.go`` ``GetUserInfo``;
``pkg/admission/plugin/cel/condition.go`` ``CreateAdmissionRequest``; ``pkg/cel/library/authz.go``).
In process, through the ASGI app, as a client sends requests; tests/server/test_kubectl_request_user.py
does the same with kubectl against ``kbatch serve --tls``."""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import StatusError
from kbatch.apiserver.requester import LOCAL_ADMIN, acting_as
from kbatch.authz.user import UserInfo
from kbatch.server.app import KbatchApp
from kbatch.server.facade import ControlPlaneBackend, new_control_plane
from tests.server.conftest import AppClient

NS = "default"
BOT = f"system:serviceaccount:{NS}:bot"
CONFIGMAPS = f"/api/v1/namespaces/{NS}/configmaps"
U = "request.userInfo"
# the whole userInfo as one line: username|uid|groups|key=values;…
SHOW_USER = (f"{U}.username + '|' + {U}.?uid.orValue('') + '|' + {U}.?groups.orValue([]).join(',') + "
             f"'|' + {U}.?extra.orValue({{}}).map(k, k + '=' + {U}.extra[k].join(',')).join(';')")


def _policy(name: str, expression: str, message: str, resources: str = "configmaps") -> list[dict[str, Any]]:
    rules = [{"apiGroups": ["", "batch"], "apiVersions": ["v1"], "operations": ["CREATE"],
              "resources": [resources]}]
    return [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": name},
         "spec": {"matchConstraints": {"resourceRules": rules},
                  "validations": [{"expression": expression, "messageExpression": message}]}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}},
    ]


PLURALS = {"ValidatingAdmissionPolicy": "validatingadmissionpolicies",
           "ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings", "Role": "roles",
           "RoleBinding": "rolebindings", "ClusterRole": "clusterroles",
           "ClusterRoleBinding": "clusterrolebindings", "ServiceAccount": "serviceaccounts"}


def _post(api: AppClient, path: str, body: dict[str, Any], **kw: Any) -> Any:
    return api.post(path, json=body, **kw)


def _create_all(api: AppClient, objs: list[dict[str, Any]]) -> None:
    for obj in objs:
        group = obj["apiVersion"]
        base = "/api/v1" if group == "v1" else f"/apis/{group}"
        plural = PLURALS[obj["kind"]]
        ns = obj["metadata"].get("namespace")
        path = f"{base}/namespaces/{ns}/{plural}" if ns else f"{base}/{plural}"
        r = _post(api, path, obj)
        assert r.status_code == 201, r.text


def _role(name: str, resource: str, verbs: list[str], group: str = "") -> list[dict[str, Any]]:
    """A Role in NS with ``verbs`` on ``resource``, bound to the bot."""
    rbac = "rbac.authorization.k8s.io/v1"
    return [
        {"apiVersion": rbac, "kind": "Role", "metadata": {"name": name, "namespace": NS},
         "rules": [{"apiGroups": [group], "resources": [resource], "verbs": verbs}]},
        {"apiVersion": rbac, "kind": "RoleBinding", "metadata": {"name": name, "namespace": NS},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
         "subjects": [{"kind": "ServiceAccount", "name": "bot", "namespace": NS}]},
    ]


def _cm(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}


@pytest.fixture
def api() -> AppClient:
    return AppClient(KbatchApp(ControlPlaneBackend(new_control_plane(controllers="garbage-collector"))))


@pytest.fixture
def bot(api: AppClient) -> dict[str, str]:
    """The bot's bearer header: a token of ``default/bot``, which may create configmaps."""
    _create_all(api, [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "bot",
                                                                                 "namespace": NS}}])
    _create_all(api, _role("cm-writer", "configmaps", ["create"]))
    r = _post(api, f"/api/v1/namespaces/{NS}/serviceaccounts/bot/token",
              {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['status']['token']}"}


NO_BOT = _policy("no-bot", f"{U}.username != '{BOT}'", f"'no configmaps by ' + {U}.username")


def test_a_policy_denies_the_bots_token_but_not_the_admin(api: AppClient, bot: dict[str, str]) -> None:
    _create_all(api, NO_BOT)
    denied = _post(api, CONFIGMAPS, _cm("by-bot"), headers=bot)
    assert denied.status_code == 422, denied.text  # the policy's Invalid, not RBAC's 403
    assert denied.json()["message"] == (
        f"configmaps \"by-bot\" is forbidden: ValidatingAdmissionPolicy 'no-bot' with binding 'no-bot' "
        f"denied request: no configmaps by {BOT}")
    assert api.get(f"{CONFIGMAPS}/by-bot").status_code == 404  # nothing written
    assert _post(api, CONFIGMAPS, _cm("by-admin")).status_code == 201


def test_impersonating_the_bot_is_the_bot(api: AppClient, bot: dict[str, str]) -> None:
    _create_all(api, NO_BOT)
    denied = _post(api, CONFIGMAPS, _cm("as-bot"), headers={"Impersonate-User": BOT})
    assert denied.status_code == 422
    assert denied.json()["message"].endswith(f"denied request: no configmaps by {BOT}")
    admin_as_jane = {"Impersonate-User": "jane", "Impersonate-Group": "system:masters"}
    assert _post(api, CONFIGMAPS, _cm("as-jane"), headers=admin_as_jane).status_code == 201


def test_user_info_has_the_tokens_uid_and_extra(api: AppClient, bot: dict[str, str]) -> None:
    """A token's user carries the account's uid and the credential id (``extra``), as whoami shows."""
    _create_all(api, _policy("show", "false", SHOW_USER))
    me = _post(api, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
               {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, headers=bot)
    info = me.json()["status"]["userInfo"]
    denied = _post(api, CONFIGMAPS, _cm("x"), headers=bot)
    assert _shown(denied) == _show(info)
    assert info["uid"] and info["extra"]


def test_the_authorizer_asks_rbac_about_the_requester(api: AppClient, bot: dict[str, str]) -> None:
    """``authorizer.group('').resource('secrets')…check('get')`` is false for the bot until a
    RoleBinding lets it read secrets; ``authorizer.requestResource`` is its own create, allowed."""
    reads = "authorizer.group('').resource('secrets').namespace(request.namespace).check('get')"
    _create_all(api, _policy("readers-only", f"{reads}.allowed() && "
                             "authorizer.requestResource.check('create').allowed()",
                             f"'requester may not read secrets: ' + {reads}.reason()"))
    denied = _post(api, CONFIGMAPS, _cm("before"), headers=bot)
    assert denied.status_code == 422
    assert denied.json()["message"].endswith("denied request: requester may not read secrets:")
    assert _post(api, CONFIGMAPS, _cm("by-admin")).status_code == 201  # system:masters: allowed
    _create_all(api, _role("secret-reader", "secrets", ["get"]))
    assert _post(api, CONFIGMAPS, _cm("after"), headers=bot).status_code == 201


def test_the_controllers_a_request_wakes_write_as_themselves() -> None:
    """The bot creates a Job; the job controller's pods are the job controller's writes — neither the
    bot's nor the local administrator's — as kube-controller-manager's controllers write with their
    own service-account credentials (``--use-service-account-credentials``)."""
    api = AppClient(KbatchApp(ControlPlaneBackend(new_control_plane(controllers="job"))))
    _create_all(api, [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "bot",
                                                                                 "namespace": NS}}])
    _create_all(api, _role("job-writer", "jobs", ["create"], group="batch"))
    controller = "system:serviceaccount:kube-system:job-controller"
    _create_all(api, _policy("controller-pods", f"{U}.username == '{controller}'",
                             f"'pods by ' + {U}.username", resources="pods"))
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "c", "image": "busybox"}]}}}}
    r = _post(api, f"/apis/batch/v1/namespaces/{NS}/jobs", job, headers={"Impersonate-User": BOT})
    assert r.status_code == 201, r.text
    pods = api.get(f"/api/v1/namespaces/{NS}/pods").json()["items"]
    assert [p["metadata"]["labels"]["job-name"] for p in pods] == ["j"]


def test_in_process_writes_are_the_local_admin_unless_acting_as_someone() -> None:
    cp = ControlPlane()
    for obj in NO_BOT:
        cp.apply(obj)
    cm = ConfigMap.model_validate({"metadata": {"name": "lib", "namespace": NS}})
    cp.server.create(cm)
    bot = UserInfo(BOT, ("system:serviceaccounts", f"system:serviceaccounts:{NS}"))
    with acting_as(bot), pytest.raises(StatusError) as caught:
        cp.server.create(ConfigMap.model_validate({"metadata": {"name": "by-bot", "namespace": NS}}))
    assert caught.value.message.endswith(f"denied request: no configmaps by {BOT}")
    assert LOCAL_ADMIN.name == "kubernetes-admin"


def _show(info: dict[str, Any]) -> str:
    """SHOW_USER's line for a userInfo dict: CEL iterates ``extra`` in key order (kbatch's
    determinism; Go's order is random)."""
    extra = info.get("extra", {})
    shown = ";".join(f"{k}={','.join(extra[k])}" for k in sorted(extra))
    return f"{info.get('username', '')}|{info.get('uid', '')}|{','.join(info.get('groups', []))}|{shown}"


def _shown(denied: Any) -> str:
    """What SHOW_USER printed in a denial."""
    return str(denied.json()["message"].split("denied request: ")[1])


_WORD = st.text(string.ascii_lowercase + string.digits + "-.", min_size=1, max_size=8)
_HEADERS = st.tuples(
    st.one_of(_WORD, _WORD.map(lambda w: f"system:serviceaccount:{NS}:{w}"), st.just("system:anonymous")),
    st.lists(_WORD.map(lambda w: f"g-{w}"), max_size=3, unique=True),
    st.one_of(st.just(""), _WORD),
    st.dictionaries(_WORD.map(lambda w: f"x-{w}"), st.lists(_WORD, min_size=1, max_size=2), max_size=2),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(wanted=_HEADERS)
def test_user_info_is_who_the_request_acts_as(api: AppClient, wanted: tuple[Any, ...]) -> None:
    """For any impersonation headers the admin sends, a policy's ``request.userInfo`` is the user a
    SelfSubjectReview with the same headers names."""
    if api.get("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/show").status_code == 404:
        _create_all(api, _policy("show", "false", SHOW_USER))
        _create_all(api, [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                           "metadata": {"name": "cm-creator"},
                           "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]},
                                     {"apiGroups": ["authentication.k8s.io"],
                                      "resources": ["selfsubjectreviews"], "verbs": ["create"]}]},
                          {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                           "metadata": {"name": "cm-creator"},
                           "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                       "name": "cm-creator"},
                           "subjects": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io",
                                         "name": g} for g in ("system:authenticated",
                                                              "system:unauthenticated")]}])
    user, groups, uid, extra = wanted
    headers = [("Impersonate-User", user), *(("Impersonate-Group", g) for g in groups)]
    headers += [("Impersonate-Uid", uid)] if uid else []
    headers += [(f"Impersonate-Extra-{k}", v) for k, vs in extra.items() for v in vs]
    me = _post(api, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
               {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, headers=headers)
    assert me.status_code == 201, me.text
    info = me.json()["status"]["userInfo"]
    assert info["username"] == user
    denied = _post(api, CONFIGMAPS, _cm("probe"), headers=headers)
    assert denied.status_code == 422, denied.text  # the policy's Invalid, not RBAC's 403
    assert _shown(denied) == _show(info)


def test_upstream_user_info_expressions_hold_for_that_user() -> None:
    """compile_test.go's ``request.userInfo`` expressions, evaluated for the user they describe."""
    cp = ControlPlane()
    expressions = ["request.userInfo.username == 'admin'",
                   "request.userInfo.uid == '014fbff9a07c'",
                   "request.userInfo.groups == ['system:authenticated', 'my-admin-group']",
                   "request.userInfo.extra == {'some-key': ['some-value1', 'some-value2']}"]
    policy, binding = _policy("upstream", "true", "'x'")
    policy["spec"]["validations"] = [{"expression": e} for e in expressions]
    cp.apply(policy)
    cp.apply(binding)
    admin = UserInfo("admin", ("system:authenticated", "my-admin-group"), "014fbff9a07c",
                     (("some-key", ("some-value1", "some-value2")),))
    with acting_as(admin):
        cp.server.create(ConfigMap.model_validate({"metadata": {"name": "ok", "namespace": NS}}))
    with pytest.raises(StatusError) as caught:  # the local admin is someone else
        cp.server.create(ConfigMap.model_validate({"metadata": {"name": "no", "namespace": NS}}))
    assert "failed expression: request.userInfo.username == 'admin'" in caught.value.message
