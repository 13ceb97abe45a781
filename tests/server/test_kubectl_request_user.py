"""Who asked reaches admission, with the real kubectl against ``kbatch serve --tls``: a
ValidatingAdmissionPolicy denies what ``system:serviceaccount:<ns>:bot`` creates, whether kubectl
sends its token (``--token``) or the admin impersonates it (``--as``), and lets the admin's own write
through; ``--as-group`` and ``--as-uid`` reach ``request.userInfo``; an ``authorizer``
check about the requester is RBAC's (k8s.io/apiserver ``pkg/admission/attributes.go`` ``GetUserInfo``,
``pkg/admission/plugin/cel/condition.go``, ``pkg/cel/library/authz.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
NS = "who"
BOT = f"system:serviceaccount:{NS}:bot"
POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: %(name)s}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %(ns)s}}
  validations:
  - expression: %(expression)s
    messageExpression: %(message)s
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: %(name)s}
spec: {policyName: %(name)s, validationActions: [Deny]}
"""


@pytest.fixture(scope="module")
def served(served_tls: ServeProcess) -> ServeProcess:
    return served_tls


def _namespace_with_bot(served: Any, ns: str) -> str:
    """``ns`` with service account ``bot`` that may create configmaps there; the bot's token."""
    kubectl(served, "create", "namespace", ns)
    kubectl(served, "create", "serviceaccount", "bot", "-n", ns)
    kubectl(served, "create", "role", "cm-writer", "--verb=create", "--resource=configmaps", "-n", ns)
    kubectl(served, "create", "rolebinding", "bot-writes", "--role=cm-writer", f"--serviceaccount={ns}:bot",
            "-n", ns)
    return kubectl(served, "create", "token", "bot", "-n", ns).stdout.strip()


def _policy(served: Any, name: str, ns: str, expression: str, message: str) -> None:
    text = POLICY % {"name": name, "ns": ns, "expression": _quoted(expression), "message": _quoted(message)}
    kubectl(served, "apply", "-f", "-", input_=text)


def _quoted(cel: str) -> str:
    """A CEL expression as a YAML double-quoted scalar."""
    return '"' + cel.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_a_policy_denies_the_bot_by_token_and_by_as_but_not_the_admin(served: Any) -> None:
    token = _namespace_with_bot(served, NS)
    _policy(served, "no-bot", NS, f"request.userInfo.username != '{BOT}'",
            "'no configmaps by ' + request.userInfo.username")
    denial = (f"error: failed to create configmap: configmaps \"{{}}\" is forbidden: "
              "ValidatingAdmissionPolicy 'no-bot' with binding 'no-bot' denied request: "
              f"no configmaps by {BOT}\n")
    by_token = kubectl(served, "create", "configmap", "t", "-n", NS, f"--token={token}", check=False)
    assert (by_token.returncode, by_token.stderr) == (1, denial.format("t"))
    as_bot = kubectl(served, "create", "configmap", "a", "-n", NS, f"--as={BOT}", check=False)
    assert (as_bot.returncode, as_bot.stderr) == (1, denial.format("a"))
    assert kubectl(served, "create", "configmap", "admin", "-n", NS).stdout == "configmap/admin created\n"
    names = kubectl(served, "get", "configmaps", "-n", NS, "-o", "name").stdout.split()
    assert "configmap/t" not in names and "configmap/a" not in names


def test_impersonated_groups_and_uid_reach_user_info(served: Any) -> None:
    ns = "who-as"
    kubectl(served, "create", "namespace", ns)
    u = "request.userInfo"
    _policy(served, "show", ns, "false",
            f"{u}.username + ' ' + {u}.uid + ' ' + {u}.groups.join(',')")
    out = kubectl(served, "create", "configmap", "x", "-n", ns, "--as=jane", "--as-group=system:masters",
                  "--as-group=devs", "--as-uid=1234", check=False)
    assert out.returncode == 1
    assert out.stderr.endswith("denied request: jane 1234 system:masters,devs,system:authenticated\n")


def test_the_authorizer_asks_rbac_about_the_bot(served: Any) -> None:
    ns = "who-authz"
    token = _namespace_with_bot(served, ns)
    reads = "authorizer.group('').resource('secrets').namespace(request.namespace).check('get')"
    _policy(served, "readers", ns, f"{reads}.allowed()", "'only secret readers create configmaps'")
    before = kubectl(served, "create", "configmap", "b", "-n", ns, f"--token={token}", check=False)
    assert before.returncode == 1
    assert before.stderr.endswith("denied request: only secret readers create configmaps\n")
    kubectl(served, "create", "role", "secret-reader", "--verb=get", "--resource=secrets", "-n", ns)
    kubectl(served, "create", "rolebinding", "bot-reads", "--role=secret-reader",
            f"--serviceaccount={ns}:bot", "-n", ns)
    after = kubectl(served, "create", "configmap", "a", "-n", ns, f"--token={token}")
    assert after.stdout == "configmap/a created\n"


def test_whoami_is_unchanged(served: Any) -> None:
    assert "kubernetes-admin" in kubectl(served, "auth", "whoami").stdout
    assert BOT in kubectl(served, "auth", "whoami", f"--as={BOT}").stdout
