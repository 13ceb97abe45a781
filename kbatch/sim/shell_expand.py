"""Word expansion in a simulated script: parameters, arithmetic and command substitution.

POSIX "Shell Command Language" 2.6 expands, left to right in one pass and not inside single
quotes: ``$NAME`` and ``${NAME}`` (2.6.2; unset is empty; the ``${NAME<op>word}`` operators are
:mod:`kbatch.sim.shell_params`'s), ``$?`` (the last status, 2.5.2),
``$(( EXPR ))`` (2.6.4, :mod:`kbatch.sim.shell_arith`: ``$VAR`` inside is expanded first, names
without ``$`` are read as variables) and ``$( LIST )`` (2.6.3: the list's standard output, trailing
newlines removed). The caller runs a substitution (``substitute``); one it cannot model answers
``None`` and stays as written, as before this module (the word is then taken literally).
Field splitting and quote removal are left to :func:`kbatch.sim.shell_syntax.words`, which reads the
expanded text again as shell words. What an expansion produced must not be read as syntax there:
quote removal (2.6.7) applies only to the quotes of the original word, and field splitting (2.6.5)
only to unquoted expansions outside an assignment (2.9.1: ``Y=$X`` is one word). With
``fields=True`` each produced value is escaped for that second reading (:func:`protect`): inside
double quotes its backslashes and double quotes, outside them its quotes, backslashes and
redirection characters, and its blanks too when it is the value of an assignment word of the
command's prefix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping

from kbatch.sim.shell_arith import evaluate
from kbatch.sim.shell_backquote import dollar_form
from kbatch.sim.shell_params import Mode, ParamError, braced_end, expand_braced
from kbatch.sim.shell_positional import positional, special
from kbatch.sim.shell_scan import region_end
from kbatch.sim.shell_transform import OPERATORS, transform, transform_all
from kbatch.sim.shell_vars import ARRAY_KEY, DECLARATIONS, deref, is_assoc, lookup, subscripts

__all__ = ["ARRAY_KEY", "array_keys", "dequote", "expand", "protect", "split_fields"]

_NAME = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|([?#0-9$!-])")
_ALL = re.compile(r"[@*]|\{[@*]\}")  # ``$@``, ``$*``, ``${@}``, ``${*}``
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")  # ``x=``, ``a[k]+=``
_BLANKS = " \t\n"
_DATA = "\\\"'<>"  # what the second reading as words would take as syntax outside double quotes
Substitute = Callable[[str], "str | None"]
_ARRAY = re.compile(r"\{(#?)([A-Za-z_][A-Za-z0-9_]*)\[([^\]]+)\](?:@([A-Za-z]))?\}")  # ``${a[i]@Q}`` too
_SUBSCRIPTS = re.compile(r"\{!([A-Za-z_][A-Za-z0-9_]*)\[([@*])\]\}")  # ``${!a[@]}``
_PREFIXED = re.compile(r"\{!([A-Za-z_][A-Za-z0-9_]*)([@*])\}")  # ``${!prefix@}``
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def array_keys(scope: MutableMapping[str, str], name: str) -> list[str]:
    """The keys of array ``name``'s elements, in order (:func:`kbatch.sim.shell_vars.subscripts`)."""
    return [key for key in (ARRAY_KEY.format(name, sub) for sub in subscripts(scope, name)) if key in scope]


def _element(scope: MutableMapping[str, str], name: str, subscript: str) -> str:
    return scope.get(ARRAY_KEY.format(name, subscript), scope.get(name, "") if subscript == "0" else "")


def _array(found: re.Match[str], scope: MutableMapping[str, str], status: int, double: bool,
           fields: bool) -> str | None:
    """bash's ``${NAME[i]}`` (an indexed array's index arithmetic, an associative array's key a
    word), ``${NAME[@]}`` / ``${NAME[*]}`` (every element; ``"${NAME[@]}"`` a field each) and
    ``${#NAME[@]}`` (how many); with ``@OP`` transformed (:mod:`kbatch.sim.shell_transform`). None:
    ``"${NAME[@]}"`` of no element, which is no field."""
    count, name, index, op = found.groups()
    if op is not None and (count or op not in OPERATORS):
        raise ParamError("Bad substitution")
    name = deref(scope, name)
    if index in ("@", "*"):
        values = [_element(scope, name, sub) for sub in subscripts(scope, name)]
        if op is not None:
            values = _transform_all(name, values, op, scope, status, double and index == "@")
        if not values and index == "@" and not count and double and fields:
            return None
        return str(len(values)) if count else _every(values, index == "*", double, fields, scope.get("IFS"))
    if is_assoc(scope, name):
        subscript = dequote(expand(index, scope, status, fields=True))
    else:
        subscript = str(evaluate(expand(index, scope, status), scope))
    value = _element(scope, name, subscript)
    if count:
        return str(len(value))
    if op is not None:
        known = ARRAY_KEY.format(name, subscript) in scope or (subscript == "0" and name in scope)
        value = transform(name, value if known else None, op, scope, _prompt_expander(scope, status))
    return protect(value, double, ifs=scope.get("IFS")) if fields else value


def _transform_all(name: str, values: list[str], op: str, scope: MutableMapping[str, str],
                   status: int, fields: bool) -> list[str]:
    """``${NAME[@]@OP}``'s values (:func:`kbatch.sim.shell_transform.transform_all`); ``fields``:
    ``"${a[@]@A}"``, whose ``declare`` is split by ``IFS`` (by a space when ``IFS`` is empty, as
    bash separates ``"$@"``'s words then)."""
    elements = list(zip(subscripts(scope, name), values, strict=True))
    ifs = scope.get("IFS", _BLANKS) or " "
    return transform_all(name, elements, op, scope, _prompt_expander(scope, status),
                         (lambda text: split_fields(text, ifs)) if fields else None)


def _prompt_expander(scope: MutableMapping[str, str], status: int) -> Callable[[str], str]:
    return lambda text: dequote(expand(text, scope, status, fields=True))


def _names(found: re.Match[str], scope: MutableMapping[str, str], double: bool, fields: bool) -> str:
    """bash's ``${!a[@]}`` (an array's subscripts) and ``${!prefix@}`` (the names of the variables
    that start with ``prefix``, sorted), as ``$@`` / ``$*`` expand (bash(1) "Parameter Expansion")."""
    name, which = found.groups()
    if found.re is _SUBSCRIPTS:
        values = subscripts(scope, deref(scope, name))
    else:
        values = sorted(key for key in scope if key.startswith(name) and _VARIABLE.fullmatch(key))
    return _every(values, which == "*", double, fields, scope.get("IFS"))


def _every(values: list[str], star: bool, double: bool, fields: bool, ifs: str | None) -> str:
    """``$@`` / ``$*`` (2.5.2), and bash's ``${a[@]}`` / ``${a[*]}``: unquoted, each value split
    into fields by ``IFS``; ``"$@"`` a field each (none when there is no value); ``"$*"`` one
    field, the values joined by the first character of ``IFS`` (a space when it is unset)."""
    joined = (" " if ifs is None else ifs[:1]).join(values)
    if not fields:
        return joined
    if not double:
        return " ".join(piece for piece in (protect(value, False, ifs=ifs) for value in values) if piece)
    if star:
        return protect(joined, True)
    return '" "'.join(protect(value, True) for value in values)


def protect(value: str, double: bool, assignment: bool = False, ifs: str | None = None) -> str:
    """``value`` escaped so that :func:`shlex.split` gives its characters back as data: inside double
    quotes only ``\\`` and ``"`` are special; outside, every quote and backslash, ``<`` and ``>``
    (an expanded ``>f`` is no redirection), and the blanks of an assignment's value (not split into
    fields). An unquoted value outside an assignment is split into fields by ``ifs`` (``IFS``;
    ``None`` when unset: blanks), each field's own blanks escaped (:func:`split_fields`)."""
    if double:
        return _escape(value, '\\"')
    if assignment or ifs is None or ifs == _BLANKS:
        return _escape(value, _DATA + _BLANKS if assignment else _DATA)
    if not any(ch in ifs for ch in value):
        return _escape(value, _DATA + _BLANKS)
    parts = split_fields(value, ifs)
    lead = " " if value[0] in ifs and parts[:1] != [""] else ""
    trail = " " if value[-1] in ifs else ""
    return lead + " ".join(_escape(part, _DATA + _BLANKS) or "''" for part in parts) + trail


def split_fields(value: str, ifs: str) -> list[str]:
    """POSIX 2.6.5: ``value`` split by ``ifs``: its whitespace at either end ignored, a run of it
    delimiting a field, a non-whitespace ``ifs`` character with the whitespace around it delimiting
    one (``a,,b`` has an empty field; a final delimiter opens none). An empty ``ifs``: one field."""
    if not ifs:
        return [value] if value else []
    white = "".join(ch for ch in ifs if ch in _BLANKS)
    stripped = value.strip(white) if white else value
    if not stripped:
        return []
    ws = f"[{re.escape(white)}]*" if white else ""
    hard = "".join(ch for ch in ifs if ch not in _BLANKS)
    pattern = "|".join(p for p in (f"{ws}[{re.escape(hard)}]{ws}" if hard else "",
                                   f"[{re.escape(white)}]+" if white else "") if p)
    parts = re.split(pattern, stripped)
    return parts[:-1] if hard and stripped[-1] in hard else parts


def _escape(value: str, special: str) -> str:
    if not any(ch in special for ch in value):
        return value
    return "".join("\\" + ch if ch in special else ch for ch in value)


def expand(text: str, scope: MutableMapping[str, str], status: int,
           substitute: Substitute | None = None, quotes: bool = True, fields: bool = False,
           nounset: bool = False, assigning: bool | None = None) -> str:
    """``text`` with its expansions done; raises :class:`~kbatch.sim.shell_arith.ArithError`.
    ``quotes=False``: quote characters are plain ones (a here-document's body, 2.7.4).
    ``fields=True``: the answer is read again as words, so produced values are :func:`protect`-ed.
    ``assigning``: None, the words of a command's prefix that look like ``NAME=`` are assignments
    (their values not split); True, ``text`` is one assignment's key or value (a compound
    assignment's ``[K]=V``: not split); False, no word is an assignment (the plain words of a
    compound assignment, ``a=(x=$v)``, are split as a command's arguments are).
    ``nounset`` (``set -u``): an unset parameter raises :class:`ParamError`. A backquoted
    substitution is read as its ``$( )`` (:mod:`kbatch.sim.shell_backquote`)."""
    if "`" in text:
        text = dollar_form(text, quotes)
    if "$" not in text and not (quotes and '"' in text and "\\" in text):
        return text
    out: list[str] = []
    pos, single, double = 0, False, False
    word, prefix = 0, True  # where the current word starts in ``text``; still in the assignments?
    declaring = False  # after ``export``, ``local``…, whose ``NAME=V`` operands are assignments
    if assigning is not None:
        prefix = assigning
    while pos < len(text):
        ch = text[pos]
        if ch == "'" and not double and quotes:
            single = not single
        elif ch == '"' and not single and quotes:
            double = not double
        elif ch == "\\" and not single and quotes:  # an escaped character is data: no quote, no $
            # inside "…" an escaped ``$`` or ````` is the character (2.2.3), which the words' reader keeps
            out.append(text[pos + 1] if double and text[pos + 1:pos + 2] in ("$", "`") else text[pos:pos + 2])
            pos += 2
            continue
        elif ch in _BLANKS and not (single or double):
            if pos > word and prefix and _ASSIGNMENT.match(text, word) is None:  # the command's name
                prefix, declaring = False, assigning is None and text[word:pos] in DECLARATIONS
            word = pos + 1
            if assigning is not None:
                prefix = assigning
        elif ch == "$" and not single and (array := _ARRAY.match(text, pos + 1)) is not None:
            piece = _array(array, scope, status, double, fields)
            pos = array.end()
            if piece is None and out[-1:] == ['"'] and text[pos:pos + 1] == '"':
                out.pop()  # ``"${a[@]}"`` with no element: no field at all, as ``"$@"``
                double, pos = False, pos + 1
                continue
            out.append(piece or "")
            continue
        elif ch == "$" and not single and text.startswith("{!", pos + 1) and (
                listed := _SUBSCRIPTS.match(text, pos + 1) or _PREFIXED.match(text, pos + 1)) is not None:
            out.append(_names(listed, scope, double, fields))
            pos = listed.end()
            continue
        elif ch == "$" and not single and (every := _ALL.match(text, pos + 1)) is not None:
            # ``x=$@``: one field
            assigned = (prefix or declaring) and (assigning or _ASSIGNMENT.match(text, word) is not None)
            values = positional(scope)
            pos = every.end()
            empty = not values and "@" in every.group()
            if fields and double and empty and out[-1:] == ['"'] and text[pos:pos + 1] == '"':
                out.pop()  # ``"$@"`` with no parameters: no field at all (2.5.2)
                double, pos = False, pos + 1
                continue
            out.append(protect(" ".join(values), double, True) if assigned and fields else
                       _every(values, "*" in every.group(), double, fields, scope.get("IFS")))
            continue
        elif ch == "$" and not single:
            if text.startswith("${", pos) and (end := braced_end(text, pos + 2)) > 0:
                inner = text[pos + 2:end - 1]
                piece, words = _braced(inner, scope, status, substitute, fields and not double, nounset)
            else:
                (piece, end), words = _dollar(text, pos, scope, status, substitute, nounset), False
            if fields and not words and piece != text[pos:end]:  # produced, not left as written
                assigned = (prefix or declaring) and (assigning or _ASSIGNMENT.match(text, word) is not None)
                piece = protect(piece, double, assigned, scope.get("IFS"))
            out.append(piece)
            pos = end
            continue
        out.append(ch)
        pos += 1
    return "".join(out)


def _dollar(text: str, pos: int, scope: MutableMapping[str, str], status: int,
            substitute: Substitute | None, nounset: bool = False) -> tuple[str, int]:
    """The expansion of the ``$`` form at ``pos`` and where the text goes on."""
    if text.startswith("$((", pos):
        end = region_end(text, pos + 2, ")")
        if end > 0 and text[end - 2] == ")":
            inner = expand(text[pos + 3:end - 2], scope, status, substitute, nounset=nounset)
            return str(evaluate(inner, scope)), end
    if text.startswith("$(", pos):
        end = region_end(text, pos + 2, ")")
        if end > 0 and substitute is not None:
            value = substitute(text[pos + 2:end - 1])
            if value is not None:
                return value.rstrip("\n"), end
        return text[pos:end if end > 0 else len(text)], end if end > 0 else len(text)
    if text.startswith("${", pos) and (end := braced_end(text, pos + 2)) > 0:
        return _braced(text[pos + 2:end - 1], scope, status, substitute, False, nounset)[0], end
    found = _NAME.match(text, pos + 1)
    if found is None:
        return "$", pos + 1
    name = found.group(3) or found.group(1) or found.group(2)
    value = special(name, scope, status) if found.group(3) else lookup(scope, name)
    if value is None and nounset:
        raise ParamError(f"{name}: parameter not set")
    return value or "", found.end()


def _braced(inner: str, scope: MutableMapping[str, str], status: int, substitute: Substitute | None,
            words: bool, nounset: bool = False) -> tuple[str, bool]:
    """``${inner}`` (:mod:`kbatch.sim.shell_params`) and whether it is already in the form read again
    as words: ``words`` (an unquoted expansion to be read so) lets the word of ``${P-w}`` / ``${P+w}``
    stand as written and expanded, so its quoted parts are not split into fields (2.6.2, 2.6.5)."""
    produced = False

    def word(text: str, mode: Mode) -> str:
        nonlocal produced
        expanded = expand(text, scope, status, substitute, fields=True, nounset=nounset)
        if mode == "words" and words:
            produced = True
            return expanded
        return dequote(expanded, mode == "pattern")

    value = expand_braced(inner, scope, status, word, nounset)
    return value, produced


def dequote(text: str, as_pattern: bool = False, escape: bool = False) -> str:
    """Quote removal (2.6.7) of one word expanded with ``fields=True``: its quotes and escaping
    backslashes go. ``as_pattern``: the quoted or escaped characters of a ``case`` pattern match
    literally (2.13.1), so a quoted ``*``, ``?`` or ``[`` becomes a bracket expression.
    ``escape``: each quoted or escaped character backslashed instead (bash's trace of a ``[[``
    pattern, ``quote_string_for_globbing``)."""
    out: list[str] = []
    pos, quote = 0, ""
    while pos < len(text):
        ch = text[pos]
        if (quote == "'" and ch != "'") or (quote == '"' and ch not in '"\\'):
            out.append(_literal(ch, as_pattern, escape))
        elif ch in "'\"" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif ch == "\\" and pos + 1 < len(text):
            pos += 1
            kept = quote == '"' and text[pos] not in '"\\$`'  # inside "…" a backslash escapes only these
            out.append(("\\" if kept else "") + _literal(text[pos], as_pattern, escape))
        else:
            out.append(ch)
        pos += 1
    return "".join(out)


def _literal(ch: str, as_pattern: bool, escape: bool = False) -> str:
    if escape:
        return "\\" + ch
    return f"[{ch}]" if as_pattern and ch in "*?[" else ch
