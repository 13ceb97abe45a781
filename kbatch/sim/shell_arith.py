"""Shell arithmetic: the expression inside ``$(( … ))`` and the operands of bash/ash ``let``.

POSIX "Shell Command Language" 2.6.4 (Arithmetic Expansion) takes the C language's signed integer
arithmetic; dash, busybox ash and bash compute in 64 bits (``intmax_t``). Modelled:

* operands: decimal, octal (``010``), hexadecimal (``0x1f``) constants, and variable names with or
  without ``$`` (``i+1``: an unset or empty variable is 0; a variable holding a number is read as
  one; a value that is not a number is an error, as dash says "Illegal number");
* operators, by C precedence: ``( )``; unary ``+ - ! ~``; ``* / %``; ``+ -``; ``<< >>``;
  ``< <= > >=``; ``== !=``; ``&``; ``^``; ``|``; ``&&``; ``||``; ``?:``; assignment ``= *= /= %=
  += -= <<= >>= &= ^= |=`` (which also sets the variable, as in dash);
* division truncates toward zero and ``%`` takes the dividend's sign (C99); division by zero is an
  error; results wrap to 64-bit two's complement.

An error (:class:`ArithError`) makes a non-interactive sh exit with status 2 (dash prints
"arithmetic expression: …"); the interpreter does so. ``++``/``--`` (bash only, not POSIX) are
not operators in dash (``--x`` is ``-(-x)``). With ``bash=True`` (a ``bash -c`` script, its ``(( ))``
and ``let``; bash(1) "ARITHMETIC EVALUATION") they are, before and after a variable
(``i++`` is ``i``'s value before it is incremented), and so are ``**`` (exponentiation, right
associative, above ``* / %`` and below the unary operators; a negative exponent is an error),
``,`` (both sides evaluated, the value the right one's) and array elements as variables
(``(( seen[$k]++ ))``: an associative array's key a string, an indexed one's arithmetic).
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping

from kbatch.sim.shell_positional import is_bash
from kbatch.sim.shell_vars import ReadonlyError, assign, lookup, plain

__all__ = ["ArithError", "evaluate", "truncating_div", "truncating_mod", "wrap64"]

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|\$?([A-Za-z_][A-Za-z0-9_]*)|"
                    r"(<<=|>>=|\*\*|&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%&^|]=|[-+*/%<>=!~&^|?:()]))")
_BASH_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|\$?([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)|"
                         r"(<<=|>>=|\*\*=|\*\*|\+\+|--|&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%&^|]=|"
                         r"[-+*/%<>=!~&^|?:(),]))")
_BINARY: list[frozenset[str]] = [  # loosest first; ``?:`` and assignment are handled apart
    frozenset({"||"}), frozenset({"&&"}), frozenset({"|"}), frozenset({"^"}), frozenset({"&"}),
    frozenset({"==", "!="}), frozenset({"<", "<=", ">", ">="}), frozenset({"<<", ">>"}),
    frozenset({"+", "-"}), frozenset({"*", "/", "%"}),
]
_ASSIGN = frozenset({"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="})


class ArithError(ValueError):
    """The expression cannot be evaluated (syntax, division by zero, a non-numeric variable).
    ``bash_text``: bash's own words for it, when known (:func:`evaluate`)."""

    bash_text = ""


def wrap64(value: int) -> int:
    """``value`` as a signed 64-bit integer (two's complement wrap-around)."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def truncating_div(left: int, right: int) -> int:
    """C division: the quotient truncated toward zero."""
    if right == 0:
        raise ArithError("division by zero")
    quotient = abs(left) // abs(right)
    return quotient if (left < 0) == (right < 0) else -quotient


def truncating_mod(left: int, right: int) -> int:
    """C remainder: ``left - (left / right) * right``, the sign of the dividend."""
    return left - truncating_div(left, right) * right


def _shift(left: int, right: int, leftward: bool) -> int:
    right &= 63  # the shells mask the count as the hardware does
    return left << right if leftward else left >> right


_OPS: dict[str, Callable[[int, int], int]] = {
    "*": lambda a, b: a * b, "/": truncating_div, "%": truncating_mod,
    "+": lambda a, b: a + b, "-": lambda a, b: a - b,
    "<<": lambda a, b: _shift(a, b, True), ">>": lambda a, b: _shift(a, b, False),
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&": lambda a, b: a & b, "^": lambda a, b: a ^ b, "|": lambda a, b: a | b,
}


def _tokens(text: str, bash: bool = False) -> list[tuple[str, str]]:
    """``(kind, text)`` pairs: kind ``n`` (number), ``v`` (variable) or ``o`` (operator)."""
    out: list[tuple[str, str]] = []
    pos, text = 0, text.rstrip()
    token = _BASH_TOKEN if bash else _TOKEN
    while pos < len(text):
        found = token.match(text, pos)
        if found is None or found.end() == pos:
            raise ArithError(f"syntax error: {text[pos:].strip()!r}")
        number, name, op = found.groups()
        out.append(("n", number) if number else ("v", name) if name else ("o", op))
        pos = found.end()
    return out


def _number(text: str) -> int:
    try:
        if text[:2].lower() == "0x":
            return int(text[2:], 16)
        if len(text) > 1 and text[0] == "0":
            return int(text[1:], 8)
        return int(text)
    except ValueError:
        raise ArithError(f"Illegal number: {text}") from None


class _Parser:
    """Precedence climbing over the tokens; evaluates as it parses. ``live`` False skips the
    effects (assignments, division errors) of an operand C would not evaluate (``0 && x=1``)."""

    def __init__(self, tokens: list[tuple[str, str]], scope: MutableMapping[str, str],
                 bash: bool = False) -> None:
        self.tokens, self.pos, self.scope, self.bash = tokens, 0, scope, bash

    def peek(self) -> str:
        at_operator = self.pos < len(self.tokens) and self.tokens[self.pos][0] == "o"
        return self.tokens[self.pos][1] if at_operator else ""

    def take(self, op: str) -> None:
        if self.peek() != op:
            raise ArithError(f"expecting {op!r}")
        self.pos += 1

    def variable(self, name: str) -> int:
        scope = self.scope
        raw = (scope.get(name, "") if plain(scope, name) else lookup(scope, name) or "").strip()
        if not raw:
            return 0
        body = raw[1:] if raw[0] in "+-" else raw
        value = wrap64(_number(body if body else raw))
        return -value if raw[0] == "-" else value

    def store(self, name: str, value: int) -> None:
        """``name`` (bash: perhaps an array element, ``seen[$k]``) becomes ``value``."""
        if plain(self.scope, name):
            self.scope[name] = str(value)
            return
        try:
            assign(self.scope, name, str(value))
        except ReadonlyError as error:
            raise ArithError(f"{error}: readonly variable") from None

    def comma(self, live: bool) -> int:
        """bash's ``a, b``: both evaluated, the value ``b``'s."""
        value = self.expression(live)
        while self.peek() == ",":
            self.pos += 1
            value = self.expression(live)
        return value

    def expression(self, live: bool) -> int:
        if self.pos + 1 < len(self.tokens) and self.tokens[self.pos][0] == "v" and \
                self.tokens[self.pos + 1][0] == "o" and self.tokens[self.pos + 1][1] in _ASSIGN:
            name, op = self.tokens[self.pos][1], self.tokens[self.pos + 1][1]
            self.pos += 2
            # ``b += b += 1``: bash reads ``b`` before the right side assigns it (expr.c ``exp0``
            # fetches the left value first), dash after
            before = self.variable(name) if live and op != "=" and self.bash else None
            value = self.expression(live)
            if op != "=":
                left = before if before is not None else self.variable(name) if live else 0
                value = _operate(op[:-1], left, value) if live else 0
            value = wrap64(value)
            if live:
                self.store(name, value)
            return value
        value = self.conditional(live)
        if self.peek() in _ASSIGN:  # ``1 += 2``, ``a++ = 1``: before anything is assigned (bash)
            raise ArithError("attempted assignment to non-variable")
        return value

    def conditional(self, live: bool) -> int:
        test = self.binary(0, live)
        if self.peek() != "?":
            return test
        self.take("?")
        then = self.expression(live and test != 0)
        self.take(":")
        orelse = self.conditional(live and test == 0)
        return then if test != 0 else orelse

    def binary(self, level: int, live: bool) -> int:
        if level == len(_BINARY):
            return self.power(live) if self.bash else self.unary(live)
        left = self.binary(level + 1, live)
        while self.peek() in _BINARY[level]:
            op = self.peek()
            self.pos += 1
            if op in ("&&", "||"):
                short = (left == 0) if op == "&&" else (left != 0)
                right = self.binary(level + 1, live and not short)
                left = int(left != 0 and right != 0) if op == "&&" else int(left != 0 or right != 0)
                continue
            right = self.binary(level + 1, live)
            left = wrap64(_operate(op, left, right)) if live or op not in ("/", "%") else 0
        return left

    def power(self, live: bool) -> int:
        """bash's ``a ** b``, right associative."""
        base = self.unary(live)
        if self.peek() != "**":
            return base
        self.pos += 1
        exponent = self.power(live)
        if exponent < 0:  # bash checks it even where it does not evaluate (``0 && 2**-1``)
            raise ArithError("exponent less than 0")
        return _operate("**", base, exponent) if live else 0

    def step(self, name: str, op: str, after: bool, live: bool) -> int:
        """bash's ``++``/``--`` on ``name``: its value after (``++i``) or before (``i++``) the step."""
        before = self.variable(name)
        value = wrap64(before + (1 if op == "++" else -1))
        if live:
            self.store(name, value)
        return before if after else value

    def unary(self, live: bool) -> int:
        op = self.peek()
        if op in ("++", "--"):
            self.pos += 1
            if self.pos >= len(self.tokens) or self.tokens[self.pos][0] != "v":
                raise ArithError(f"syntax error: operand expected (error token is {op!r})")
            self.pos += 1
            return self.step(self.tokens[self.pos - 1][1], op, False, live)
        if op in ("+", "-", "!", "~"):
            self.pos += 1
            value = self.unary(live)
            return {"+": value, "-": wrap64(-value), "!": int(value == 0), "~": ~value}[op]
        if op == "(":
            self.take("(")
            value = self.expression(live)
            self.take(")")
            return value
        if self.pos >= len(self.tokens) or self.tokens[self.pos][0] == "o":
            raise ArithError(f"syntax error: unexpected {op or 'end of expression'!r}")
        kind, text = self.tokens[self.pos]
        self.pos += 1
        if kind == "v" and self.peek() in ("++", "--"):
            self.pos += 1
            return self.step(text, self.tokens[self.pos - 1][1], True, live)
        return wrap64(_number(text)) if kind == "n" else self.variable(text)


def _operate(op: str, left: int, right: int) -> int:
    if op != "**":
        return _OPS[op](left, right)
    if right < 0:
        raise ArithError("exponent less than 0")
    return wrap64(pow(left, right, 1 << 64))


def evaluate(text: str, scope: MutableMapping[str, str], bash: bool | None = None) -> int:
    """The value of the arithmetic expression ``text``; assignments in it update ``scope``.
    An empty expression is 0 (dash: ``$(( ))`` is ``0``). ``bash``: with bash's operators (see
    above); None: as the script's shell is (:func:`kbatch.sim.shell_positional.is_bash`)."""
    bash = is_bash(scope) if bash is None else bash
    tokens = _tokens(text, bash)
    if not tokens:
        return 0
    parser = _Parser(tokens, scope, bash)
    try:
        value = parser.comma(True) if bash else parser.expression(True)
        if parser.pos != len(tokens):
            raise ArithError(f"syntax error: {tokens[parser.pos][1]!r}")
    except ArithError as error:
        if bash:
            error.bash_text = _bash_text(text, str(error), parser.pos)
        raise
    return value


def _bash_text(text: str, message: str, pos: int) -> str:
    """bash's message (expr.c ``evalerror``): ``EXPR: WHAT (error token is "REST")``, REST the
    expression from the token it stopped at (the divisor; the first word too many). Known for
    those two errors only; empty for the others."""
    if message == "division by zero":
        what, pos = "division by 0", pos - 1
    elif message.startswith("syntax error: '"):
        what = "syntax error in expression"
    else:
        return ""
    starts, at, text = [], 0, text.rstrip()
    while at < len(text) and (found := _BASH_TOKEN.match(text, at)) is not None and found.end() > at:
        starts.append(found.start() + len(found.group(0)) - len(found.group(0).lstrip()))
        at = found.end()
    rest = text[starts[pos]:] if 0 <= pos < len(starts) else ""
    return f'{text.strip()}: {what} (error token is "{rest}")'
