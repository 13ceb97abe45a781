"""``kbatch explain`` on a state directory (kubectl's ``plaintext`` template, k8s.io/kubectl v0.37.0-beta.0
``pkg/explain/v2/templates/plaintext.tmpl``); tests/server/test_kubectl_explain.py compares it with
the real kubectl against ``kbatch serve``."""

from __future__ import annotations

import pytest

from kbatch.cli.errors import UserError
from kbatch.cli.explain import explain_text
from tests.cli.conftest import Kbatch

GVK = {"group": "example.com", "version": "v1", "kind": "Thing"}
DOC = {"components": {"schemas": {
    "example.com.v1.Thing": {"type": "object", "x-kubernetes-group-version-kind": [GVK],
                             "required": ["spec"],
                             "properties": {"spec": {"$ref": "#/components/schemas/Spec"},
                                            "tags": {"type": "object",
                                                     "additionalProperties": {"type": "string"}}}},
    "Spec": {"type": "object", "properties": {
        "mode": {"type": "string", "enum": ["", "A", "B", "C", "D"]},
        "next": {"$ref": "#/components/schemas/Spec"},
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Spec"}}}},
}}}


def test_a_field_list_as_kubectls_template_prints_it() -> None:
    assert explain_text(DOC, GVK, [], 0) == (
        "GROUP:      example.com\nKIND:       Thing\nVERSION:    v1\n\nDESCRIPTION:\n    <empty>\nFIELDS:\n"
        "  spec\t<Spec> -required-\n    <no description>\n\n"
        "  tags\t<map[string]string>\n    <no description>\n\n\n")


def test_a_field_with_an_enum_and_recursion_stops_at_a_cycle() -> None:
    assert explain_text(DOC, GVK, ["spec"], -1) == (
        "GROUP:      example.com\nKIND:       Thing\nVERSION:    v1\n\nFIELD: spec <Spec>\n\n\n"
        "DESCRIPTION:\n    <empty>\nFIELDS:\n"
        # the page's own Spec was entered resolved, so the template's history first holds it one
        # level down: each self-reference prints Spec's fields once more, then stops
        "  items\t<[]Spec>\n"
        "    items\t<[]Spec>\n    mode\t<string>\n    enum: \"\", A, B, C, ....\n    next\t<Spec>\n"
        "  mode\t<string>\n  enum: \"\", A, B, C, ....\n"
        "  next\t<Spec>\n"
        "    items\t<[]Spec>\n    mode\t<string>\n    enum: \"\", A, B, C, ....\n    next\t<Spec>\n\n")
    assert explain_text(DOC, GVK, ["spec", "mode"], 0).endswith(
        'FIELD: mode <string>\nENUM:\n    ""\n    A\n    B\n    C\n    D\n\nDESCRIPTION:\n    <empty>\n\n')
    with pytest.raises(UserError, match='field "nope" does not exist'):
        explain_text(DOC, GVK, ["spec", "nope"], 0)


def test_explain_on_a_state_directory(kb: Kbatch) -> None:
    out = kb.ok("explain", "jobs.spec.completionMode")
    assert out == ("GROUP:      batch\nKIND:       Job\nVERSION:    v1\n\n"
                   "FIELD: completionMode <string>\n\n\nDESCRIPTION:\n    <empty>\n\n")
    recursive = kb.ok("explain", "jobs.spec", "--recursive")
    assert "\n    <no description>" not in recursive and "\n      " in recursive  # names only, nested
    res = kb("explain", "jobs", "--max-depth", "1")
    assert (res.code, res.err) == (1, "error: --max-depth requires --recursive\n")
    res = kb("explain", "jobs.spec.nope")
    assert (res.code, res.out, res.err) == (1, "GROUP:      batch\nKIND:       Job\nVERSION:    v1\n\n",
                                            'error: field "nope" does not exist\n')
    two = kb.ok("explain", "jobs", "--recursive", "--max-depth", "2")
    assert "\n      " not in two and "\n    " in two  # two levels of fields: indents 2 and 4
