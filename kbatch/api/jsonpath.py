"""kubectl's JSONPath templates (``-o jsonpath=…``, custom columns, ``--sort-by``, ``wait --for=jsonpath``).

The dialect is client-go ``util/jsonpath`` (kubectl.docs "JSONPath Support"): text outside braces is
printed as written; ``{EXPR}`` prints what the expression matches, several matches separated by a
space, maps and lists as compact JSON, strings as they are; ``{"\\n"}`` is a string literal;
``{range EXPR}…{end}`` repeats its body once per match with that match as the current object
(``@``); missing keys print nothing (kubectl's ``--allow-missing-template-keys=true``).
Expressions may start with ``.`` or ``@`` or ``$``; a key with dots in it escapes them
(``{.metadata.labels.app\\.kubernetes\\.io/name}``).

The expressions themselves (``[*]``, slices, ``..``, filters ``[?(@.status.phase=="Running")]``)
are evaluated by the ``python-jsonpath`` library (RFC 9535), after each kubectl name segment is
turned into RFC bracket notation; this module owns the template layer and the printing rules.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kbatch.api.go_fmt import go_value
from kbatch.api.go_marshal import go_marshal

__all__ = ["TemplateError", "checked_expression", "compile_template", "evaluate", "evaluate_as_json", "find",
           "go_value", "relaxed_expression", "split_wait_input"]


class TemplateError(ValueError):
    """The template or one of its expressions cannot be parsed."""


@dataclass
class _Range:
    expr: str
    body: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class _Expr:
    expr: str


def _actions(template: str) -> list[tuple[bool, str]]:
    """``(is_action, text)`` pieces: text outside braces, and what is inside each ``{…}``."""
    out: list[tuple[bool, str]] = []
    pos = 0
    while (start := template.find("{", pos)) != -1:
        if start > pos:
            out.append((False, template[pos:start]))
        end, quote = start + 1, ""
        while end < len(template) and (quote or template[end] != "}"):
            char = template[end]
            if char == "\\" and quote:
                end += 1
            elif char in "\"'" and (not quote or quote == char):
                quote = "" if quote else char
            end += 1
        if end >= len(template):
            raise TemplateError(f"unclosed action in {template!r}")
        out.append((True, template[start + 1:end].strip()))
        pos = end + 1
    if pos < len(template):
        out.append((False, template[pos:]))
    return out


def compile_template(template: str) -> list[Any]:
    """The template as nodes: ``str`` (printed as is), expressions and ranges."""
    root: list[Any] = []
    stack = [root]
    for is_action, text in _actions(template):
        if not is_action:
            stack[-1].append(text)
        elif re.match(r"range(\s|[.\[@$]|$)", text):  # client-go's parser takes ``{range.items[*]}`` too
            node = _Range(_path(text[len("range"):].strip()))
            stack[-1].append(node)
            stack.append(node.body)
        elif text == "end":
            if len(stack) == 1:
                raise TemplateError("not in range, nothing to end")
            stack.pop()
        elif text[:1] in "\"'" and len(text) > 1 and text[-1] == text[0]:
            stack[-1].append(_literal(text))
        else:
            stack[-1].append(_Expr(_path(text)))
    if len(stack) > 1:
        raise TemplateError("unclosed range: {range} without {end}")
    return root


def _literal(text: str) -> str:
    try:
        inner = text[1:-1] if text[0] == '"' else text[1:-1].replace("\\'", "'").replace('"', '\\"')
        return json.loads(f'"{inner}"', strict=False)  # Go's strconv.Unquote for the usual escapes
    except ValueError:
        raise TemplateError(f"invalid string literal {text}") from None


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*|\*")


_QUOTED = re.compile(r"""\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*(,|$)""")
UNION = "\x00"  # separates the alternative queries of a union (see :func:`find`)


def _quoted_members(content: str) -> list[str] | None:
    """The members of a bracket that holds only quoted strings (``['a.b', 'c']``), else ``None``."""
    members, pos = [], 0
    while pos < len(content):
        match = _QUOTED.match(content, pos)
        if match is None or match.end() == pos:
            return None
        members.append(_literal(match.group(1)))
        pos = match.end()
    return members or None


def _member_path(member: str) -> str:
    """A quoted bracket member as client-go reads it: a relative path whose dots separate fields
    (``['status.capacity']`` is ``.status.capacity``; ``['kubernetes.io/os']`` matches nothing)."""
    return "".join(f"[{json.dumps(part)}]" for part in member.split("."))


def _path(expr: str) -> str:
    """A kubectl expression as an RFC 9535 query: ``$`` root, bracketed names (dots may be escaped).
    A union of quoted names, ``['metadata.name', 'status.capacity']``, is client-go's union of paths:
    one query per member, joined by :data:`UNION`, whose matches :func:`find` concatenates."""
    if not expr:
        raise TemplateError("empty expression")
    if expr[0] in "@$":
        head, rest = "$", expr[1:]
    else:
        head, rest = "$", expr if expr[0] in ".[" else "." + expr
    outs, i = [[head]], 0
    while i < len(rest):
        char = rest[i]
        if char == "[":
            end = _bracket_end(rest, i)
            members = _quoted_members(rest[i + 1:end - 1])
            if members is None:
                for alternative in outs:
                    alternative.append(rest[i:end])
            else:
                outs = [[*alternative, _member_path(m)] for alternative in outs for m in members]
            i = end
        elif char == "." and rest[i + 1:i + 2] == ".":
            for alternative in outs:
                alternative.append("..")
            i += 2
            name, i = _name(rest, i)
            if name:
                for alternative in outs:
                    alternative.append(name if _PLAIN.fullmatch(name) else f"[{json.dumps(name)}]")
        elif char == ".":
            name, i = _name(rest, i + 1)
            if name:
                for alternative in outs:
                    alternative.append("." + name if _PLAIN.fullmatch(name) else f"[{json.dumps(name)}]")
        else:
            raise TemplateError(f"unrecognized character {char!r} in {expr!r}")
    return UNION.join("".join(alternative) for alternative in outs)


def _name(text: str, i: int) -> tuple[str, int]:
    name = []
    while i < len(text) and text[i] not in ".[":
        if text[i] == "\\" and text[i + 1:i + 2] == ".":
            name.append(".")
            i += 2
            continue
        name.append(text[i])
        i += 1
    return "".join(name), i


def _bracket_end(text: str, i: int) -> int:
    depth, quote = 0, ""
    for j in range(i, len(text)):
        char = text[j]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return j + 1
    raise TemplateError(f"unclosed array expect ]: {text!r}")


@cache
def _query(path: str) -> Any:
    import jsonpath  # python-jsonpath: loaded only by the commands that print with templates

    try:
        return jsonpath.compile(path)
    except jsonpath.JSONPathError as err:
        raise TemplateError(str(err).splitlines()[0]) from None


def find(path: str, data: Any) -> list[Any]:
    """Every value ``path`` (RFC 9535 queries made by :func:`_path`) matches in ``data``: a union's
    members one after the other, as client-go evaluates a union (all matches of the first, then...)."""
    return [value for query in path.split(UNION) for value in _query(query).findall(data)]


def relaxed_expression(expr: str) -> str:
    """kubectl's ``RelaxedJSONPathExpression`` (custom columns, ``--sort-by``): ``{.a.b}``, ``.a.b``,
    ``a.b`` and ``{a.b}`` are the same field; returns the RFC 9535 query."""
    text = expr.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if not text or "{" in text or "}" in text:
        raise TemplateError(f"unexpected path string, expected a 'name1.name2' or '.name1.name2' or "
                            f"'{{name1.name2}}' or '{{.name1.name2}}': {expr}")
    return _path(text)


def checked_expression(expr: str) -> str:
    """:func:`relaxed_expression`, its query compiled now (a malformed one is a :class:`TemplateError`
    before any object is read, as kubectl's ``newJSONPathParser``)."""
    path = relaxed_expression(expr)
    find(path, {})
    return path


def evaluate(nodes: list[Any], data: Any) -> str:
    """The template's output for ``data`` (no newline is added)."""
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Expr):
            out.append(" ".join(_text(v) for v in find(node.expr, data)))
        else:
            out.extend(evaluate(node.body, item) for item in find(node.expr, data))
    return "".join(out)


def evaluate_as_json(nodes: list[Any], data: Any) -> str:
    """``-o jsonpath-as-json``: client-go's JSON output mode, as kubectl prints it: each text, literal
    and expression the template executes (a range's body once per match) prints its results as an
    indented JSON array (a text as a one-string array, no match as ``[]``), each on its own lines."""
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(go_marshal([node], indent=4) + "\n")
        elif isinstance(node, _Expr):
            out.append(go_marshal(find(node.expr, data), indent=4) + "\n")
        else:
            out.extend(evaluate_as_json(node.body, item) for item in find(node.expr, data))
    return "".join(out)


def _text(value: Any) -> str:
    """client-go ``JSONPath.PrintResults``: maps and lists as JSON (Go's ``json.Marshal``), others as text."""
    if isinstance(value, dict | list):
        return go_marshal(value)
    return go_value(value)


def split_wait_input(text: str) -> list[str]:
    """``kubectl wait --for=jsonpath=…``'s input split at each single ``=`` (a ``==`` stays in its
    part: a filter's comparison), as kubectl's ``splitJSONPathInput`` (``pkg/cmd/wait/wait.go``)."""
    parts, part, i = [], [], 0
    while i < len(text):
        if text[i] == "=":
            if text[i + 1:i + 2] == "=":
                part.append("==")
                i += 2
                continue
            parts.append("".join(part))
            part = []
        else:
            part.append(text[i])
        i += 1
    return [*parts, "".join(part)]
