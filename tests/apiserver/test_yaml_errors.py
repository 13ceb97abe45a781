"""YAML syntax errors in go-yaml's words and line numbers (kbatch/apiserver/yaml_errors.py).

Each expected line is what kubectl 1.32 printed for the same file (``kubectl apply -f F`` against
``kbatch serve``: ``error: error parsing F: error converting YAML to JSON: yaml: …``); go-yaml v2's
``decode.go`` ``parser.fail`` numbers the line, libyaml's ``parser.c``/scanner name the problem."""

from __future__ import annotations

import pytest

from kbatch.apiserver.manifests import ManifestError, load_manifests

CASES = {
    "block mapping, bad indent": ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: x\n spec: {}\n",
                                  "line 4: did not find expected key"),
    "mapping value inside a plain scalar": ("apiVersion: v1\nkind: Pod\nmetadata: name: x\n",
                                            "line 3: mapping values are not allowed in this context"),
    "sequence item key under-indented": (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n   image: b\n",
        "line 5: did not find expected key"),
    "flow mapping unclosed": ("apiVersion: v1\nkind: Pod\nmetadata: {name: x\n",
                              "line 3: did not find expected ',' or '}'"),
    "quoted scalar unclosed": ('apiVersion: v1\nkind: "Pod\n', "line 3: found unexpected end of stream"),
    "mapping key after a sequence item": ("apiVersion: v1\nkind: List\nitems:\n- a: 1\n b: 2\n",
                                          "line 4: did not find expected key"),
    "flow sequence unclosed": ("apiVersion: v1\nkind: List\nitems: [1, 2\nfoo: bar\n",
                               "line 3: did not find expected ',' or ']'"),
    "block sequence, then a key": ("a:\n  - 1\n  b: 2\n", "line 2: did not find expected '-' indicator"),
    "unclosed at the end of an unterminated first line": (
        "kind: [unclosed", "line 1: did not find expected ',' or ']'"),
    "unclosed at the end of an unterminated second line": (
        "apiVersion: v1\nkind: [unclosed", "line 2: did not find expected ',' or ']'"),
    # a tab indenting the line after a plain scalar: libyaml's plain scalar scanner (scannerc.go
    # yaml_parser_scan_plain_scalar) fails on it; a tab opening a block fails as any token does
    "tab after a plain scalar": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n\tnamespace: b\n",
                                 "line 5: found a tab character that violates indentation"),
    "spaces then a tab after a plain scalar": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n \tnamespace: b\n",
        "line 5: found a tab character that violates indentation"),
    "tab after a list item's plain scalar": (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n\timage: b\n",
        "line 6: found a tab character that violates indentation"),
    "tab after a blank line after a plain scalar": (
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n\n\tc: d\n",
        "line 6: found a tab character that violates indentation"),
    "tab after a quoted scalar": ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a"\n\tnamespace: b\n',
                                  "line 5: found character that cannot start any token"),
    "tab opening a block": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: a\n",
                            "line 4: found character that cannot start any token"),
    "an @ opening a value": ("apiVersion: v1\nkind: ConfigMap\ndata:\n  k: @x\n",
                           "line 4: found character that cannot start any token"),
    # go-yaml v2 decode.go parser.alias: failf, no line
    "undefined alias": ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: *x\n",
                        "unknown anchor 'x' referenced"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_yaml_errors_read_as_kubectl_prints_them(case: str) -> None:
    text, problem = CASES[case]
    with pytest.raises(ManifestError) as err:
        load_manifests(text, "f.yaml")
    assert err.value.message == f"error parsing f.yaml: error converting YAML to JSON: yaml: {problem}"
