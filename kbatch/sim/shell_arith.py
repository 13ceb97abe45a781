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
(``(( seen[$k]++ ))``: an associative array's key a string, an indexed one's arithmetic). bash
reads its tokens and words its errors as :mod:`kbatch.sim.shell_arith_bash` does (``BASE#N``
numbers; ``ArithError.bash_text``: ``1/0: division by 0 (error token is "0")``), and a variable's
value is an expression of its own (``expr.c`` ``expr_streval``: ``x=1+2; $((x*2))`` is 6), nested
at most 1024 deep (``expression recursion level exceeded``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping, Sequence

from kbatch.sim.shell_arith_bash import Lexed, bash_number, lex, message, worded
from kbatch.sim.shell_positional import is_bash
from kbatch.sim.shell_vars import ReadonlyError, assign, lookup, plain

__all__ = ["ArithError", "evaluate", "truncating_div", "truncating_mod", "wrap64"]

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)|\$?([A-Za-z_][A-Za-z0-9_]*)|"
                    r"(<<=|>>=|\*\*|&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%&^|]=|[-+*/%<>=!~&^|?:()]))")
_DECIMAL = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?")
_MAX_DEPTH = 1024  # ``MAX_EXPR_RECURSION_LEVEL``
_BASH_WORDS = {"division by zero": "division by 0", "expecting ')'": "missing `)'",
               "expecting ':'": "`:' expected for conditional expression"}
_BINARY: list[frozenset[str]] = [  # loosest first; ``?:`` and assignment are handled apart
    frozenset({"||"}), frozenset({"&&"}), frozenset({"|"}), frozenset({"^"}), frozenset({"&"}),
    frozenset({"==", "!="}), frozenset({"<", "<=", ">", ">="}), frozenset({"<<", ">>"}),
    frozenset({"+", "-"}), frozenset({"*", "/", "%"}),
]
_ASSIGN = frozenset({"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="})


class ArithError(ValueError):
    """The expression cannot be evaluated (syntax, division by zero, a non-numeric variable).
    ``bash_text``: bash's own words for it (:func:`evaluate` under bash); ``token``: the index of
    the token bash names, when not the last it read (a divisor)."""

    bash_text = ""
    token: int | None = None
    subscript = False  # an array subscript's: bash abandons the command line (``shell_vars.evaluate``)


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


def _tokens(text: str) -> list[tuple[str, str]]:
    """dash's ``(kind, text)`` pairs: kind ``n`` (number), ``v`` (variable) or ``o`` (operator)."""
    out: list[tuple[str, str]] = []
    pos, text = 0, text.rstrip()
    while pos < len(text):
        found = _TOKEN.match(text, pos)
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

    def __init__(self, tokens: Sequence[tuple[str, str]], scope: MutableMapping[str, str],
                 bash: bool = False, depth: int = 1) -> None:
        self.tokens, self.scope, self.bash = tokens, scope, bash
        self.pos = 0  # the next token's index: the one bash has read ahead (``curtok``)
        self.depth = depth  # bash: how deep in variables' values (``expr_depth``)
        self.text, self.named = "", 0  # bash: the expression, the variable token read last
        self.spans: Sequence[tuple[int, int]] = ()  # bash: where each token is in ``text``

    def peek(self) -> str:
        at_operator = self.pos < len(self.tokens) and self.tokens[self.pos][0] == "o"
        return self.tokens[self.pos][1] if at_operator else ""

    def take(self, op: str) -> None:
        if self.peek() != op:
            raise ArithError(f"expecting {op!r}")
        self.pos += 1

    def raw(self, name: str) -> str:
        scope = self.scope
        return scope.get(name, "") if plain(scope, name) else lookup(scope, name) or ""

    def variable(self, name: str) -> int:
        if self.bash:
            return self.nested(self.raw(name))
        raw = self.raw(name).strip()
        if not raw:
            return 0
        body = raw[1:] if raw[0] in "+-" else raw
        value = wrap64(_number(body if body else raw))
        return -value if raw[0] == "-" else value

    def nested(self, value: str) -> int:
        """bash: a variable's value evaluated as an expression one level deeper (``expr_streval``),
        a chain of names (``x=y``, ``y=x``) followed without recursing; past ``_MAX_DEPTH`` levels
        an error naming the expression at the last level and its variable."""
        expression, start, depth = self.text, self.spans[self.named][0], self.depth
        while True:
            stripped = value.strip()
            if not stripped:
                return 0
            if _DECIMAL.fullmatch(stripped):
                return wrap64(int(stripped))
            if depth >= _MAX_DEPTH:
                error = ArithError("expression recursion level exceeded")
                error.bash_text = worded(expression, start, "expression recursion level exceeded")
                raise error
            if not _NAME.fullmatch(stripped):
                return evaluate(value, self.scope, True, depth + 1)
            expression, start, depth = value, value.index(stripped[0]), depth + 1
            value = self.raw(stripped)

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
        if self.bash and (self.pos >= len(self.tokens) or self.peek() == ":"):
            raise ArithError("expression expected")  # ``expcond``
        then = self.comma(live and test != 0) if self.bash else self.expression(live and test != 0)
        self.take(":")
        if self.bash and self.pos >= len(self.tokens):
            raise ArithError("expression expected")
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
            at = self.pos
            right = self.binary(level + 1, live)
            if live and right == 0 and op in ("/", "%") and self.bash:
                error = ArithError("division by zero")
                error.token = at  # bash names the divisor (``expmuldiv``)
                raise error
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
        before = self.variable(name) if live or not self.bash else 0
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
            value = self.comma(live) if self.bash else self.expression(live)  # bash: ``EXP_LOWEST``
            self.take(")")
            return value
        if self.pos >= len(self.tokens) or self.tokens[self.pos][0] == "o":
            raise ArithError(f"syntax error: unexpected {op or 'end of expression'!r}")
        kind, text = self.tokens[self.pos]
        if kind == "x":  # a token bash refused (:func:`_bash_text` words it)
            raise ArithError(f"syntax error: {text!r}")
        self.named = self.pos
        self.pos += 1
        if kind == "v" and self.peek() in ("++", "--"):  # ``x++``: stored before bash reads on (``x++@``)
            value = self.step(text, self.tokens[self.pos][1], True, live)
            self.pos += 1
            return value
        if kind == "n":
            return bash_number(text) if self.bash else wrap64(_number(text))
        if self.bash and (self.peek() == "=" or not live):  # ``y/a=1``: bash does not read a variable
            return 0  # before ``=``, nor one it does not evaluate (``expr_streval``: ``noeval`` is 0)
        return self.variable(text)


class _Refusing(_Parser):
    """bash's parser over tokens ending with one it refuses (:func:`kbatch.sim.shell_arith_bash.lex`):
    reading it (moving to it) is the error, before the token before it acts (``++x@`` leaves ``x``),
    as bash reads one token ahead."""

    def __init__(self, tokens: Sequence[tuple[str, str]], scope: MutableMapping[str, str], depth: int,
                 refused: int) -> None:
        self.refused = refused
        super().__init__(tokens, scope, True, depth)

    @property
    def pos(self) -> int:
        return self._pos

    @pos.setter
    def pos(self, value: int) -> None:
        self._pos = value
        if value >= self.refused:
            raise ArithError(f"syntax error: {self.tokens[self.refused][1]!r}")


def _operate(op: str, left: int, right: int) -> int:
    if op != "**":
        return _OPS[op](left, right)
    if right < 0:
        raise ArithError("exponent less than 0")
    return wrap64(pow(left, right, 1 << 64))


def evaluate(text: str, scope: MutableMapping[str, str], bash: bool | None = None, depth: int = 1) -> int:
    """The value of the arithmetic expression ``text``; assignments in it update ``scope``.
    An empty expression is 0 (dash: ``$(( ))`` is ``0``). ``bash``: with bash's operators and
    words (see above; ``depth``: how deep in variables' values); None: as the script's shell is
    (:func:`kbatch.sim.shell_positional.is_bash`)."""
    bash = is_bash(scope) if bash is None else bash
    lexed = lex(text) if bash else None
    tokens = lexed.tokens if lexed is not None else _tokens(text)
    if not tokens:
        return 0
    bad = lexed.bad if lexed is not None else None
    # bash reads a refused token ahead, before acting on the one before, but ``++x++``'s second
    # ``++`` only once ``x`` is incremented (``exp0`` reads on after the assignment)
    eager = bad is not None and not bad[1].endswith("requires lvalue")
    parser: _Parser | None = None
    try:  # (a refused first token is read at once)
        parser = _Refusing(tokens, scope, depth, bad[0]) if bad is not None and eager else \
            _Parser(tokens, scope, bash, depth)
        if lexed is not None:
            parser.text, parser.spans = text, lexed.spans
        value = parser.comma(True) if bash else parser.expression(True)
        if parser.pos != len(tokens):
            raise ArithError(f"syntax error: {tokens[parser.pos][1]!r}")
    except ArithError as error:
        if lexed is not None and not error.bash_text:
            error.bash_text = _bash_text(text, lexed, error, parser.pos if parser is not None else 0)
        raise
    return value


def _bash_text(text: str, lexed: Lexed, error: ArithError, pos: int) -> str:
    """bash's line for ``error`` (:func:`kbatch.sim.shell_arith_bash.message`), the parser having
    stopped at token ``pos``: a token bash refused once it had read it (bash reads one token
    ahead, the one at ``pos``), else the error's own words, naming the token bash read last."""
    said = str(error)
    if said.endswith(": readonly variable"):
        return said  # not ``evalerror``'s: the assignment's own
    if lexed.bad is not None and lexed.bad[0] <= pos:
        return message(text, lexed, lexed.bad[0], lexed.bad[1])
    if said.startswith("syntax error: unexpected") or said.startswith("syntax error: operand expected"):
        what = "syntax error: operand expected"
    elif said.startswith("syntax error: '"):
        what = "syntax error in expression"
    else:
        what = _BASH_WORDS.get(said, said)
    index = error.token if error.token is not None else min(pos, len(lexed.tokens) - 1)
    return message(text, lexed, index, what)
