"""MutatingAdmissionPolicy's CEL object types: ``Object{...}``, ``Object.spec{...}`` and
``JSONPatch{...}`` literals, as tagged maps.

Upstream (``k8s.io/apiserver/pkg/cel/mutation``: ``typeresolver.go``, ``dynamic/objects.go``,
``jsonpatch.go``) resolves any type name starting with ``Object`` to a dynamic object type whose fields
are unchecked, and ``JSONPatch`` to a struct of ``op``, ``path``, ``from`` (strings) and ``value``
(dynamic). The CEL runtime kbatch uses cannot declare type names resolved on demand, so
:func:`rewrite` turns each such literal into a map literal before compiling: the field names become
string keys and the type name is kept under :data:`TYPE_KEY`, e.g.
``Object{spec: Object.spec{replicas: 1}}`` compiles as
``{"@type": "Object", "spec": {"@type": "Object.spec", "replicas": 1}}``. :func:`plain` then checks
the tags as upstream's ``CheckTypeNamesMatchFieldPathNames`` does (a literal nested under field ``f``
of an ``Object.x`` literal must be an ``Object.x.f``) and drops them.

Differences (docs/admission-policy.md): a misspelt ``JSONPatch`` field is refused when the expression
is compiled, as upstream; an ``Object`` literal's fields are not checked against a schema (upstream
neither, for these dynamic types); the return type ``Object`` (``list(JSONPatch)``) is checked at run
time when the expression returns a map (a list) of unknown origin, since to the type checker a
tagged map is a map.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from kbatch.api.cel.selector import CompileError

__all__ = ["JSONPATCH_FIELDS", "TYPE_KEY", "LiteralTypeError", "plain", "rewrite"]

TYPE_KEY = "@type"  # no Kubernetes field or map key may contain '@'
JSONPATCH_FIELDS = ("op", "path", "from", "value")
_ROOTS = ("Object", "JSONPatch")

_TOKENS = re.compile(
    r"""(?P<string>(?:[rR][bB]?|[bB][rR]?)?(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
      |(?P<comment>//[^\n]*)
      |(?P<space>\s+)
      |(?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
      |(?P<quoted>`[^`\n]*`)
      |(?P<number>\d[0-9a-fA-FxXuU.eE]*)
      |(?P<other>.)""",
    re.VERBOSE,
)


class _Token(NamedTuple):
    kind: str
    text: str
    start: int


class LiteralTypeError(ValueError):
    """A nested ``Object`` literal whose type name does not follow its field path."""


def _tokens(expression: str) -> list[_Token]:
    return [
        _Token(m.lastgroup or "other", m.group(), m.start())
        for m in _TOKENS.finditer(expression)
        if m.lastgroup not in ("space", "comment")
    ]


def _caret(expression: str, offset: int, message: str) -> CompileError:
    """cel-go's error layout: ``ERROR: <input>:line:col: message`` and the caret lines."""
    line_start = expression.rfind("\n", 0, offset) + 1
    line_end = expression.find("\n", offset)
    line = expression[line_start : line_end if line_end >= 0 else len(expression)]
    row, col = expression.count("\n", 0, offset) + 1, offset - line_start + 1
    return CompileError(
        f"compilation failed: ERROR: <input>:{row}:{col}: {message}\n | {line}\n | {'.' * (col - 1)}^"
    )


def _type_name(tokens: list[_Token], i: int) -> tuple[str, int] | None:
    """The dotted type name starting at token ``i`` when a literal's ``{`` follows it: (name, index of
    the brace); None when the tokens there are no ``Object``/``JSONPatch`` literal."""
    if tokens[i].text not in _ROOTS or (i > 0 and tokens[i - 1].text == "."):
        return None
    parts, j = [tokens[i].text], i + 1
    while (
        tokens[i].text == "Object" and j + 1 < len(tokens) and tokens[j].text == "."
        and tokens[j + 1].kind == "ident"
    ):
        parts.append(tokens[j + 1].text)
        j += 2
    if j < len(tokens) and tokens[j].text == "{":
        return ".".join(parts), j
    return None


def _field_at(tokens: list[_Token], i: int) -> int | None:
    """The index of a field name at ``i`` (after an optional ``?``) followed by ``:``, else None."""
    j = i + 1 if i < len(tokens) and tokens[i].text == "?" else i
    if j + 1 < len(tokens) and tokens[j].kind in ("ident", "quoted") and tokens[j + 1].text == ":":
        return j
    return None


def rewrite(expression: str) -> str:
    """``expression`` with its object literals as tagged map literals (unchanged when it has none).
    :class:`CompileError` for a ``JSONPatch`` field that does not exist (cel-go: ``undefined field``)."""
    if "Object" not in expression and "JSONPatch" not in expression:
        return expression
    tokens = _tokens(expression)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in the source
    stack: list[str | None] = []  # per open bracket: the literal's type name, or None
    i = 0
    while i < len(tokens):
        token = tokens[i]
        found = _type_name(tokens, i) if token.kind == "ident" else None
        if found is not None:
            name, brace = found
            empty = brace + 1 < len(tokens) and tokens[brace + 1].text == "}"
            tag = f'{{"{TYPE_KEY}": "{name}"' + ("" if empty else ", ")
            edits.append((token.start, tokens[brace].start + 1, tag))
            stack.append(name)
            i = brace + 1
            i = _quote_field(expression, tokens, i, name, edits)
            continue
        if token.text in "([{":
            stack.append(None)
        elif token.text in ")]}" and stack:
            stack.pop()
        elif token.text == "," and stack and stack[-1] is not None:
            i = _quote_field(expression, tokens, i + 1, stack[-1], edits)
            continue
        i += 1
    out, last = [], 0
    for start, end, text in edits:
        out += [expression[last:start], text]
        last = end
    return "".join(out) + expression[last:]


def _quote_field(expression: str, tokens: list[_Token], i: int, literal: str,
                 edits: list[tuple[int, int, str]]) -> int:
    """Quote the field name at ``i`` of a ``literal`` (its type name); the index to go on from."""
    j = _field_at(tokens, i)
    if j is None:
        return i
    name = tokens[j].text.strip("`")
    if literal == "JSONPatch" and name not in JSONPATCH_FIELDS:
        raise _caret(expression, tokens[j].start, f"undefined field '{name}'")
    edits.append((tokens[j].start, tokens[j].start + len(tokens[j].text), f'"{name}"'))
    return j + 1


def _check(value: Any, path: str) -> Iterator[str]:
    """The type-name mismatches under ``value`` expected at ``path`` (upstream ``typeCheck``)."""
    if isinstance(value, dict):
        tagged = value.get(TYPE_KEY)
        if isinstance(tagged, str) and tagged.startswith("Object"):
            if tagged != path:
                yield (f'unexpected type name "{tagged}", expected "{path}", which matches field name '
                       "path from root Object type")
            for key in sorted(k for k in value if k != TYPE_KEY):
                yield from _check(value[key], f"{path}.{key}")
        else:
            for key in sorted(value):
                yield from _check(value[key], path)
    elif isinstance(value, list):
        for item in value:
            yield from _check(item, path)


def plain(value: Any, *, check_root: str | None = None) -> Any:
    """``value`` without type tags; with ``check_root`` (the root literal's type name), a nested
    literal of the wrong type raises :class:`LiteralTypeError` (``type mismatch: …``)."""
    if check_root is not None:
        errors = list(_check(value, check_root))
        if errors:
            raise LiteralTypeError("type mismatch: " + "\n".join(errors))
    return _untagged(value)


def _untagged(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untagged(v) for k, v in value.items() if k != TYPE_KEY}
    if isinstance(value, list):
        return [_untagged(v) for v in value]
    return value
