"""The Kubernetes CEL libraries DRA selectors use, as declarations for the CEL type checker with
Python implementations (upstream ``k8s.io/apiserver/pkg/cel/library``: ``quantity.go``,
``semverlib.go``, ``lists.go``; cel-go's ``ext.Strings``, ``ext.Math``, optional types come from the
runtime's own extensions).

* quantity: ``quantity(string)``, ``isQuantity(string)``, ``<q>.sign()``, ``isInteger()``,
  ``asInteger()``, ``asApproximateFloat()``, ``add``/``sub`` (a quantity or an int),
  ``isLessThan``, ``isGreaterThan``, ``compareTo``;
* semver: ``semver(string)``, ``semver(string, bool)`` (normalize: a leading ``v`` and missing minor or
  patch are accepted), ``isSemver(string[, bool])``, ``<v>.major()``, ``minor()``, ``patch()``,
  ``isLessThan``, ``isGreaterThan``, ``compareTo``;
* lists: ``<list>.isSorted()``, ``sum()``, ``min()``, ``max()`` (upstream's list ``indexOf`` and
  ``lastIndexOf`` are not declared: the runtime's strings extension owns those names);
* regex (``find``, ``findAll``) and IP / CIDR: :mod:`.regex`, :mod:`.network`.

An implementation signals a CEL error by raising ``ValueError`` with upstream's message.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from kbatch.api.cel import network, regex
from kbatch.api.cel.budget import spend
from kbatch.api.cel.iteration import ORDER_FUNCTION, SPEND_FUNCTION, order
from kbatch.api.cel.values import make_quantity, make_semver, parse_semver, quantity_of, semver_of
from kbatch.api.quantity import Quantity, QuantityError

__all__ = ["declarer", "function_declarations"]

_INT64 = (-(2**63), 2**63 - 1)


def _quantity(text: str) -> Any:
    try:
        return make_quantity(Quantity.parse(text).as_fraction())
    except QuantityError as err:
        raise ValueError(str(err)) from None


def _is_quantity(text: str) -> bool:
    try:
        Quantity.parse(text)
    except QuantityError:
        return False
    return True


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def _as_integer(q: Any) -> int:
    value = quantity_of(q)
    if value.denominator != 1 or not _INT64[0] <= value <= _INT64[1]:
        raise ValueError("cannot convert value to integer")
    return int(value)


def _q_add(a: Any, b: Any) -> Any:
    other = Fraction(b) if isinstance(b, int) else quantity_of(b)
    return make_quantity(quantity_of(a) + other)


def _q_sub(a: Any, b: Any) -> Any:
    other = Fraction(b) if isinstance(b, int) else quantity_of(b)
    return make_quantity(quantity_of(a) - other)


def _normalized(text: str) -> str:
    text = text[1:] if text.startswith("v") else text
    core, plus, build = text.partition("+")
    core, dash, pre = core.partition("-")
    parts = core.split(".")
    if 0 < len(parts) < 3:
        parts += ["0"] * (3 - len(parts))
    parts = [p.lstrip("0") or "0" if p.isdigit() else p for p in parts]
    return ".".join(parts) + (dash + pre) + (plus + build)


def _semver(text: str, normalize: bool = False) -> Any:
    candidate = _normalized(text) if normalize else text
    if parse_semver(candidate) is None:
        raise ValueError(f"string is not a valid SemVer: {text}")
    return make_semver(candidate)


def _is_semver(text: str, normalize: bool = False) -> bool:
    return parse_semver(_normalized(text) if normalize else text) is not None


def _semver_key(v: Any) -> tuple[Any, ...]:
    major, minor, patch, pre = semver_of(v.value)
    # a prerelease sorts before the release; numeric identifiers before alphanumeric ones
    ids = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in pre)
    return (major, minor, patch, 0 if pre else 1, ids)


def _compare(a: Any, b: Any) -> int:
    """compareTo of two quantities or two semvers (one runtime implementation for both types)."""
    if a.DESCRIPTOR.name == "Semver":
        return _cmp(_semver_key(a), _semver_key(b))
    return _cmp(quantity_of(a), quantity_of(b))


def _sorted(values: list[Any]) -> bool:
    return all(values[i] <= values[i + 1] for i in range(len(values) - 1))


def _sum(values: list[Any]) -> Any:
    return sum(values) if values else 0


def _min(values: list[Any]) -> Any:
    if not values:
        raise ValueError("min called on empty list")
    return min(values)


def _max(values: list[Any]) -> Any:
    if not values:
        raise ValueError("max called on empty list")
    return max(values)


def _checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Python errors other than the deliberate ``ValueError`` become CEL errors too."""

    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except (TypeError, ArithmeticError) as err:
            raise ValueError(str(err)) from None

    call.__name__ = getattr(fn, "__name__", "fn")
    return call


def declarer(cel: Any) -> Callable[..., Any]:
    """``decl(name, *(overload id, result type, parameter types, member?, implementation))``: a
    ``cel.FunctionDecl``. Overloads with ``None`` as implementation share the first one's at run time:
    the runtime dispatches on runtime kinds, and the Kubernetes types are all messages there."""

    def decl(name: str, *overloads: tuple[str, Any, list[Any], bool, Callable[..., Any] | None]) -> Any:
        return cel.FunctionDecl(
            name,
            [
                cel.Overload(oid, ret, params, is_member=member, impl=_checked(fn))
                if fn is not None
                else cel.Overload(oid, ret, params, is_member=member)
                for oid, ret, params, member, fn in overloads
            ],
        )

    return decl


def iteration_declarations(decl: Callable[..., Any], T: Any) -> list[Any]:
    """The functions :mod:`.iteration`'s rewrite calls (names no expression can spell)."""
    return [
        decl(ORDER_FUNCTION, ("kbatch_order_list", T.List(T.INT), [T.List(T.DYN)], False, order)),
        decl(SPEND_FUNCTION, ("kbatch_spend_int_int", T.BOOL, [T.INT, T.INT], False, spend)),
    ]


def function_declarations(cel: Any) -> list[Any]:
    """The library's ``cel.FunctionDecl`` list for ``cel.NewEnv``."""
    T = cel.Type
    Q, S = T("kubernetes.Quantity"), T("kubernetes.Semver")
    dyn_list = T.List(T.DYN)
    decl = declarer(cel)

    return [
        *iteration_declarations(decl, T),
        *regex.declarations(decl, T),
        *network.declarations(decl, T),
        decl("quantity", ("string_to_quantity", Q, [T.STRING], False, _quantity)),
        decl("isQuantity", ("is_quantity_string", T.BOOL, [T.STRING], False, _is_quantity)),
        decl("sign", ("quantity_sign", T.INT, [Q], True, lambda q: _cmp(quantity_of(q), 0))),
        decl(
            "isInteger", ("quantity_is_integer", T.BOOL, [Q], True, lambda q: quantity_of(q).denominator == 1)
        ),
        decl("asInteger", ("quantity_as_integer", T.INT, [Q], True, _as_integer)),
        decl(
            "asApproximateFloat", ("quantity_as_float", T.DOUBLE, [Q], True, lambda q: float(quantity_of(q)))
        ),
        decl(
            "add",
            ("quantity_add", Q, [Q, Q], True, _q_add),
            ("quantity_add_int", Q, [Q, T.INT], True, _q_add),
        ),
        decl(
            "sub",
            ("quantity_sub", Q, [Q, Q], True, _q_sub),
            ("quantity_sub_int", Q, [Q, T.INT], True, _q_sub),
        ),
        decl(
            "isLessThan",
            ("quantity_is_less_than", T.BOOL, [Q, Q], True, lambda a, b: _compare(a, b) < 0),
            ("semver_is_less_than", T.BOOL, [S, S], True, None),
        ),
        decl(
            "isGreaterThan",
            ("quantity_is_greater_than", T.BOOL, [Q, Q], True, lambda a, b: _compare(a, b) > 0),
            ("semver_is_greater_than", T.BOOL, [S, S], True, None),
        ),
        decl(
            "compareTo",
            ("quantity_compare_to", T.INT, [Q, Q], True, _compare),
            ("semver_compare_to", T.INT, [S, S], True, None),
        ),
        decl(
            "semver",
            ("string_to_semver", S, [T.STRING], False, _semver),
            ("string_bool_to_semver", S, [T.STRING, T.BOOL], False, _semver),
        ),
        decl(
            "isSemver",
            ("is_semver_string", T.BOOL, [T.STRING], False, _is_semver),
            ("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], False, _is_semver),
        ),
        decl("major", ("semver_major", T.INT, [S], True, lambda v: semver_of(v.value)[0])),
        decl("minor", ("semver_minor", T.INT, [S], True, lambda v: semver_of(v.value)[1])),
        decl("patch", ("semver_patch", T.INT, [S], True, lambda v: semver_of(v.value)[2])),
        decl("isSorted", ("list_is_sorted", T.BOOL, [dyn_list], True, _sorted)),
        decl("sum", ("list_sum", T.DYN, [dyn_list], True, _sum)),
        decl("min", ("list_min", T.DYN, [dyn_list], True, _min)),
        decl("max", ("list_max", T.DYN, [dyn_list], True, _max)),
    ]
