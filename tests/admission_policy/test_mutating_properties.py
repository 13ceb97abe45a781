"""Properties of MutatingAdmissionPolicy (hypothesis):

* a policy whose match does not select the request never changes it;
* a failing mutation under ``failurePolicy: Fail`` refuses with upstream's message and writes nothing;
* reinvocation is bounded: IfNeeded policies that keep changing each other's input run at most twice;
* an ``Object{...}`` literal built from any tree of fields evaluates to that tree (the literal rewrite
  loses and invents nothing).
"""

from __future__ import annotations

import functools
import itertools
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.admissionregistration_v1 import MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding
from kbatch.api.cel.admission import compile_expression
from kbatch.api.cel.object_literals import plain
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound, StatusError

PODS = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_names = itertools.count()


def _policy(name: str, expression: str, **spec: Any) -> MutatingAdmissionPolicy:
    body = {
        "matchConstraints": {"resourceRules": PODS},
        "reinvocationPolicy": "Never",
        "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}],
        **spec,
    }
    return MutatingAdmissionPolicy.model_validate({"metadata": {"name": name}, "spec": body})


def _binding(name: str, **spec: Any) -> MutatingAdmissionPolicyBinding:
    return MutatingAdmissionPolicyBinding.model_validate(
        {"metadata": {"name": name}, "spec": {"policyName": name, **spec}}
    )


def _pod(labels: dict[str, str]) -> Pod:
    return Pod.model_validate(
        {
            "metadata": {"name": f"p{next(_names)}", "namespace": "default", "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }
    )


@functools.cache
def _selective() -> ControlPlane:
    """One policy adding ``mutated: yes``, bound to pods labelled ``tier=web`` only."""
    cp = ControlPlane()
    cp.server.create(_policy("mark", "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}"))
    cp.server.create(_binding("mark", matchResources={"objectSelector": {"matchLabels": {"tier": "web"}}}))
    return cp


_LABELS = st.dictionaries(
    st.sampled_from(["tier", "app", "team"]), st.sampled_from(["web", "db", "x"]), max_size=3
)


@SETTINGS
@given(_LABELS)
def test_a_policy_that_does_not_select_the_request_never_changes_it(labels: dict[str, str]) -> None:
    cp = _selective()
    obj = _pod(labels)
    created = json.loads(cp.server.create(obj).to_json())
    if labels.get("tier") == "web":
        assert created["metadata"]["labels"] == {**labels, "mutated": "yes"}
    else:
        assert created["metadata"].get("labels", {}) == labels
        assert created["spec"]["containers"][0]["image"] == "busybox"


@functools.cache
def _failing() -> ControlPlane:
    cp = ControlPlane()
    cp.server.create(
        _policy(
            "broken",
            "Object{metadata: Object.metadata{labels: {'x': object.metadata.labels[object.metadata.name]}}}",
        )
    )
    cp.server.create(_binding("broken"))
    return cp


@SETTINGS
@given(_LABELS)
def test_a_failing_mutation_under_fail_refuses_and_writes_nothing(labels: dict[str, str]) -> None:
    cp = _failing()
    obj = _pod(labels)
    try:
        cp.server.create(obj)
    except StatusError as err:
        assert (err.code, err.reason) == (403, "Invalid")
        assert err.message.startswith("policy 'broken' with binding 'broken' denied request: expression ")
        assert "resulted in error: " in err.message
    else:
        raise AssertionError("the failing mutation was admitted")
    try:
        cp.server.get(Pod, obj.metadata.name, "default")
    except NotFound:
        return
    raise AssertionError("a refused pod was written")


BUMP = (
    "Object{{metadata: Object.metadata{{labels: {{'{k}': "
    "string(int(object.metadata.?labels['{k}'].orValue('0')) + 1)}}}}}}"
)


@functools.cache
def _bumping(count: int, policies: tuple[str, ...]) -> ControlPlane:
    cp = ControlPlane()
    for i in range(count):
        name = f"bump-{i}"
        cp.server.create(_policy(name, BUMP.format(k=name), reinvocationPolicy=policies[i]))
        cp.server.create(_binding(name))
    return cp


@SETTINGS
@given(
    st.integers(1, 3).flatmap(
        lambda n: st.tuples(
            st.just(n), st.tuples(*[st.sampled_from(["IfNeeded", "Never"]) for _ in range(n)])
        )
    )
)
def test_reinvocation_is_bounded(case: tuple[int, tuple[str, ...]]) -> None:
    count, policies = case
    labels = json.loads(_bumping(count, policies).server.create(_pod({})).to_json())["metadata"]["labels"]
    for i, reinvocation in enumerate(policies):
        runs = int(labels[f"bump-{i}"])
        assert 1 <= runs <= 2
        if reinvocation == "Never":
            assert runs == 1
        elif i < count - 1:  # a later policy changed the object after it: it ran again, once
            assert runs == 2


_IDENT = st.from_regex(r"[a-z][a-zA-Z0-9]{0,6}", fullmatch=True).filter(
    lambda s: (
        s
        not in {
            "in",
            "as",
            "if",
            "for",
            "let",
            "var",
            "null",
            "true",
            "false",
            "loop",
            "void",
            "while",
            "else",
            "break",
            "const",
            "import",
            "return",
            "package",
            "function",
            "continue",
            "namespace",
        }
    )
)
_SCALAR = st.one_of(st.integers(-1000, 1000), st.booleans(), st.text("abc xyz/~.-", max_size=8))
_TREE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_IDENT, inner, max_size=3)),
    max_leaves=12,
)


def _literal(value: Any, type_name: str) -> str:
    """``value`` written as CEL: a dict as an ``Object...`` literal of ``type_name``."""
    if isinstance(value, dict):
        fields = ", ".join(f"{k}: {_literal(v, f'{type_name}.{k}')}" for k, v in value.items())
        return f"{type_name}{{{fields}}}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, type_name) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_IDENT, _TREE, max_size=4))
def test_object_literals_evaluate_to_their_tree(tree: dict[str, Any]) -> None:
    expression = _literal(tree, "Object")
    value = compile_expression(expression, False, "Object", True).evaluate_plain({})
    assert plain(value, check_root="Object") == tree
