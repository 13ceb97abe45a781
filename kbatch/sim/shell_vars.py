"""A simulated script's variables with their attributes: integer, indexed and associative arrays,
exported, read-only, lower and upper case (bash(1) "PARAMETERS", "Arrays", ``declare``; POSIX
"Shell Command Language" 2.5, XCU ``export``, ``readonly``, ``unset``).

Everything lives in the one mapping of variables, so that a subshell's copy has it and a loop that
changes it changes its state (:meth:`kbatch.sim.shell_run.Shell.fingerprint`), under keys no
variable name can take: ``=@NAME`` the attribute letters as ``declare`` writes them (``i``, ``a``,
``A``, ``n``, ``x``, ``r``, ``l``, ``u``; :data:`DECLARED` for a name declared and not assigned since:
``declare x``, ``declare -a a``), ``=[NAME`` an associative array's keys in the order they were
added, ``NAME[SUB]`` an element (``NAME`` is also element 0 / key ``0``, as bash's ``$NAME`` is
``${NAME[0]}``).

:func:`assign` is the assignment of a word (``NAME=V``, ``NAME+=V``, ``NAME[SUB]=V``): an integer
variable's value is arithmetic (``declare -i n; n=2+3`` is 5; ``+=`` adds), a read-only one
refuses (:class:`ReadonlyError`), ``+=`` appends to a string or to element 0. A name reference
(``declare -n r=x``, attribute ``n``) stands for the variable its value names: :func:`deref` is the
name reads and assignments use (bash(1) "PARAMETERS"; ``variables.c`` ``find_variable_nameref``:
a chain longer than ``NAMEREF_MAX``, 8, is a circular one, :class:`CircularReference`). An associative
array's subscript is a string; an indexed one's arithmetic. :func:`subscripts` lists an array's
subscripts in bash's order: an indexed array's by index, an associative array's as bash 5.2's hash
table holds them (``hashlib.c``: FNV-1 of the key over 1024 buckets, a new key first in its bucket,
the table four times larger once it holds two keys a bucket), which is the order ``${!m[@]}``,
``${m[@]}`` and ``declare -p`` give.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping

__all__ = ["ARRAY_KEY", "DECLARATIONS", "DECLARED", "WARNINGS", "CircularReference", "ReadonlyError",
           "assign", "attributes", "deref", "drop", "is_assoc", "lookup", "plain", "set_attributes",
           "snapshot", "subscripts", "unset_element"]

ARRAY_KEY = "{}[{}]"
DECLARATIONS = frozenset({"export", "readonly", "local", "declare", "typeset"})
"""The declaration utilities: their ``NAME=V`` operands are assignments, neither split nor globbed
(XCU 2.9.1 "declaration utility"; dash 0.5.12 and bash alike)."""
DECLARED = "."
_ATTRS, _ORDER = "=@", "=["
WARNINGS = "=~"
"""The key of the warnings an expansion left for the shell to print (a circular name reference's)."""
_NAMEREF_MAX = 8
_SEP = "\x1f"
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ELEMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]$", re.DOTALL)


def evaluate(text: str, scope: MutableMapping[str, str], bash: bool = True) -> int:
    """bash's arithmetic of a subscript (:func:`kbatch.sim.shell_arith.evaluate`, which reads
    elements here); its error is marked ``subscript``: bash abandons the command line for it, even
    inside ``(( ))`` or ``let`` (arrayfunc.c ``array_expand_index``: ``jump_to_top_level``)."""
    from kbatch.sim.shell_arith import ArithError
    from kbatch.sim.shell_arith import evaluate as arithmetic  # each module uses the other
    try:
        return arithmetic(text, scope, bash)
    except ArithError as error:
        error.subscript = True
        raise


class CircularReference(Exception):
    """A name reference whose chain comes back to itself (``warn``: bash warns) or is longer than
    bash follows (it fails silently)."""

    def __init__(self, name: str, warn: bool) -> None:
        super().__init__(name)
        self.warn = warn


def deref(scope: MutableMapping[str, str], name: str, reading: bool = True) -> str:
    """The name ``name`` stands for: itself, or the end of its chain of name references (which may be
    ``NAME[SUB]``; a reference with no value yet is itself). A chain that comes back to ``name``
    or to the reference before (bash warns) or passes more than ``NAMEREF_MAX`` references: when
    ``reading``, the warning left under :data:`WARNINGS` and a name no variable has (the value is
    empty); else :class:`CircularReference`. ``NAME[SUB]``: ``NAME``'s reference with that
    subscript."""
    element = _ELEMENT.match(name) if "[" in name else None
    if element is not None:
        base = deref(scope, element.group(1), reading)
        return base if "[" in base else ARRAY_KEY.format(base, element.group(2))
    first, level = name, 0
    while _ATTRS + name in scope and "n" in scope[_ATTRS + name] and scope.get(name):
        level += 1
        warn = scope[name] in (first, name)
        if warn or level > _NAMEREF_MAX:
            if not reading:
                raise CircularReference(first, warn)
            if warn:
                scope[WARNINGS] = scope.get(WARNINGS, "") + f"warning: {first}: circular name reference\n"
            return "=~" + first  # no variable's key
        name = scope[name]
    return name


def lookup(scope: MutableMapping[str, str], target: str) -> str | None:
    """The value of ``NAME[SUB]`` (an element) or ``NAME``; None when unset."""
    target = deref(scope, target)
    element = _ELEMENT.match(target)
    if element is None:
        return scope.get(target)
    name, subscript = element.groups()
    if not is_assoc(scope, name):
        subscript = str(evaluate(subscript, scope))
    value = scope.get(ARRAY_KEY.format(name, subscript))
    return scope.get(name) if value is None and subscript == "0" else value


class ReadonlyError(Exception):
    """An assignment to (or ``unset`` of) a read-only variable; the message names it."""


def attributes(scope: Mapping[str, str], name: str) -> str:
    return scope.get(_ATTRS + name, "")


def plain(scope: Mapping[str, str], name: str) -> bool:
    """Is ``name`` a variable name with no attribute and no elements (``name=v`` just stores ``v``)?"""
    return (_ATTRS + name) not in scope and (name + "[0]") not in scope and _PLAIN.fullmatch(name) is not None


def is_assoc(scope: Mapping[str, str], name: str) -> bool:
    return "A" in scope.get(_ATTRS + name, "")


def set_attributes(scope: MutableMapping[str, str], name: str, add: str = "", remove: str = "") -> None:
    """Give ``name`` the attribute letters ``add`` and take ``remove`` away (``-l``/``-u`` exclude
    each other, as bash's do)."""
    letters = attributes(scope, name)
    if "l" in add:
        remove += "u"
    if "u" in add:
        remove += "l"
    kept = [ch for ch in letters if ch not in remove] + [ch for ch in add if ch not in letters]
    if kept:
        scope[_ATTRS + name] = "".join(kept)
    else:
        scope.pop(_ATTRS + name, None)


def _keys_of(scope: Mapping[str, str], name: str) -> list[str]:
    """Every key that holds a part of ``name``: its value, elements, attributes, key order."""
    start = name + "["
    own = (name, _ATTRS + name, _ORDER + name)
    return [key for key in scope if key in own or key.startswith(start)]


def snapshot(scope: Mapping[str, str], name: str) -> dict[str, str]:
    """All of ``name`` (for a function's ``local`` to put back when the call returns)."""
    return {key: scope[key] for key in _keys_of(scope, name)}


def drop(scope: MutableMapping[str, str], name: str, attributes_too: bool = True) -> None:
    """``name`` unset, with its elements (and attributes)."""
    for key in _keys_of(scope, name):
        if attributes_too or key != _ATTRS + name:
            del scope[key]


def _value(scope: MutableMapping[str, str], name: str, value: str, append: str | None) -> str:
    """The value an assignment stores, by the variable's attributes (``append``: the old value of
    a ``+=``)."""
    letters = attributes(scope, name)
    if "i" in letters:
        number = evaluate(value, scope, bash=True)
        return str(number + evaluate(append or "0", scope, bash=True) if append is not None else number)
    value = (append or "") + value
    return value.lower() if "l" in letters else value.upper() if "u" in letters else value


def assign(scope: MutableMapping[str, str], target: str, value: str, append: bool = False) -> None:
    """``target=value`` (``target+=value`` when ``append``); ``target`` a name or ``NAME[SUB]``.
    Raises :class:`ReadonlyError` and, for an integer variable's value or an index,
    :class:`~kbatch.sim.shell_arith.ArithError`, :class:`CircularReference`."""
    target = deref(scope, target, reading=False)
    element = _ELEMENT.match(target)
    name = element.group(1) if element else target
    letters = attributes(scope, name)
    if "r" in letters:
        raise ReadonlyError(name)
    if DECLARED in letters:
        set_attributes(scope, name, remove=DECLARED)
    if element is not None and "a" not in letters and "A" not in letters:
        set_attributes(scope, name, "a")  # ``s[1]=t``: ``s`` is an indexed array from now on
    if element is None:
        assoc = is_assoc(scope, name)
        key = ARRAY_KEY.format(name, 0) if assoc or "a" in attributes(scope, name) else name
        old = scope.get(key if not assoc else name) if append else None
        _store(scope, name, "0", _value(scope, name, value, old))
        return
    subscript = element.group(2)
    if not is_assoc(scope, name):
        subscript = str(evaluate(subscript, scope, bash=True))
    old = scope.get(ARRAY_KEY.format(name, subscript)) if append else None
    if old is None and append and subscript == "0":
        old = scope.get(name)
    _store(scope, name, subscript, _value(scope, name, value, old))


def _store(scope: MutableMapping[str, str], name: str, subscript: str, value: str) -> None:
    """Element ``subscript`` of ``name`` (``0`` is ``name`` itself too) becomes ``value``; a plain
    variable's ``0`` is its value alone."""
    key = ARRAY_KEY.format(name, subscript)
    first = ARRAY_KEY.format(name, 0)
    array = any(ch in attributes(scope, name) for ch in "aA") or key in scope
    if subscript != "0" and name in scope and first not in scope and not is_assoc(scope, name):
        scope[first] = scope[name]  # ``s=str; s[1]=t``: the string is element 0 of the array
    if is_assoc(scope, name) and key not in scope:
        order = scope.get(_ORDER + name)
        scope[_ORDER + name] = subscript if not order else order + _SEP + subscript
    if array or subscript != "0":
        scope[key] = value
    if subscript == "0":
        scope[name] = value


def unset_element(scope: MutableMapping[str, str], name: str, subscript: str) -> None:
    """``unset 'NAME[SUB]'``: the element gone (``0`` takes ``$NAME`` with it); nothing at all, the
    subscript not even evaluated, when there is no ``NAME`` (bash ``unset_builtin`` finds no
    variable)."""
    if not _keys_of(scope, name):
        return
    if "r" in attributes(scope, name):
        raise ReadonlyError(name)
    if not is_assoc(scope, name):
        subscript = str(evaluate(subscript, scope, bash=True))
    elif scope.get(_ORDER + name):
        keys = [key for key in scope[_ORDER + name].split(_SEP) if key != subscript]
        scope[_ORDER + name] = _SEP.join(keys)
    scope.pop(ARRAY_KEY.format(name, subscript), None)
    if subscript == "0":
        scope.pop(name, None)


def subscripts(scope: Mapping[str, str], name: str) -> list[str]:
    """The subscripts of array ``name`` in bash's order (see above); ``["0"]`` for a plain set
    variable, none for an unset one."""
    if is_assoc(scope, name):
        order = scope.get(_ORDER + name, "")
        return _hash_order([key for key in order.split(_SEP) if ARRAY_KEY.format(name, key) in scope]
                           if order else [])
    start = name + "["
    found = sorted(int(key[len(start):-1]) for key in scope
                   if key.startswith(start) and key[len(start):-1].lstrip("-").isdigit())
    if not found and name in scope:
        return ["0"]
    return [str(index) for index in found]


def _fnv1(key: str) -> int:
    value = 2166136261
    for byte in key.encode():
        value = (value * 16777619) & 0xFFFFFFFF
        value ^= byte
    return value


def _hash_order(keys: list[str]) -> list[str]:
    """``keys`` (in the order they were added) as bash's hash table lists them."""
    size = 1024
    buckets: list[list[str]] = [[] for _ in range(size)]
    for count, key in enumerate(keys):
        if count >= size * 2:  # HASH_SHOULDGROW, then hash_rehash by four
            old, size = buckets, size * 4
            buckets = [[] for _ in range(size)]
            for chain in old:
                for moved in chain:
                    buckets[_fnv1(moved) & (size - 1)].insert(0, moved)
        buckets[_fnv1(key) & (size - 1)].insert(0, key)
    return [key for chain in buckets for key in chain]
