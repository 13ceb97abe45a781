"""The ``test`` / ``[`` utility's expression, read as bash's ``test.c`` reads it.

XCU ``test`` fixes the meaning of up to four arguments (``posixtest``: none is false, one is
"non-empty", two a unary primary or ``! ARG``, three a binary primary, ``ARG -a ARG``, ``ARG -o ARG``,
``! A B`` or ``( ARG )``, four ``! A B C`` or ``( A B )``); with more, bash parses ``-o`` over ``-a``
over ``!`` and ``( … )`` (``expr``, ``or``, ``and``, ``term``), both sides of ``-a``/``-o`` always
evaluated. A leading ``-X`` word is a unary primary only with an operand after it (``[ a -a -n ]``
tests the string ``-n``). Its errors are :class:`TestError` with bash's words (``too many
arguments``, ``syntax error: `-eq' unexpected``, ``a: unary operator expected``, ``b: binary
operator expected``, ```)' expected``), or none for a primary that is not modelled (``-nt``, ``-v``,
``-o`` of one of bash's options; ``-o`` of no option is false); an integer operand that is none raises
:class:`~kbatch.sim.shell_eval.IntegerError`.
"""

from __future__ import annotations

from kbatch.sim.shell_cond import BINARY, UNARY
from kbatch.sim.shell_eval import FileTest, binary_status, unary_status

__all__ = ["TestError", "test_status"]

_BINARY = BINARY - {"=~"}  # ``[[``'s binary primaries but the regular expression match
_UNARY = UNARY  # the same unary primaries as ``[[``'s

_OPTIONS = frozenset({"allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
                      "histexpand", "history", "ignoreeof", "interactive-comments", "keyword", "monitor",
                      "noclobber", "noexec", "noglob", "nolog", "notify", "nounset", "onecmd", "physical",
                      "pipefail", "posix", "privileged", "verbose", "vi", "xtrace"})
"""``set -o``'s names in bash: ``test -o NAME`` of one of them is not modelled."""


class TestError(Exception):
    """A ``test`` expression bash refuses (status 2); ``words``: its message after ``[: ``, or ""
    when the expression uses what is not modelled."""

    __test__ = False  # not a pytest class

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


def test_status(args: list[str], files: FileTest | None, closing: str = "") -> int:
    """0 or 1: ``test ARGS`` (``closing``: ``]`` for ``[``, named in a missing ``)``'s message)."""
    return 0 if _Reader(args, files, closing).whole() else 1


class _Reader:
    def __init__(self, args: list[str], files: FileTest | None, closing: str) -> None:
        self.args, self.files, self.closing, self.pos = args, files, closing, 0

    def whole(self) -> bool:
        value = self._posix() if len(self.args) <= 4 else self._expr()
        if self.pos != len(self.args):  # ``test_command``'s words for what is left
            left = self.args[self.pos]
            raise TestError(f"syntax error: `{left}' unexpected" if left[:1] == "-" else "too many arguments")
        return value

    def _take(self) -> str:
        self.pos += 1
        return self.args[self.pos - 1]

    def _posix(self) -> bool:
        left = len(self.args) - self.pos
        if left == 0:
            return False
        if left == 1:
            return self._take() != ""
        if left == 2:
            return self._two()
        if left == 3:
            return self._three()
        if self.args[self.pos] == "!":
            self.pos += 1
            return not self._three()
        if self.args[self.pos] == "(" and self.args[-1] == ")":
            self.pos += 1
            value = self._two()
            self.pos += 1
            return value
        return self._expr()

    def _two(self) -> bool:
        first = self.args[self.pos]
        if first == "!":
            self.pos += 2
            return self.args[self.pos - 1] == ""
        if first in _UNARY:
            return self._unary()
        raise TestError(f"{first}: unary operator expected")

    def _three(self) -> bool:
        first, middle, last = self.args[self.pos:self.pos + 3]
        if middle in _BINARY:
            return self._binary()
        if middle in ("-a", "-o"):
            self.pos += 3
            return (first != "" and last != "") if middle == "-a" else (first != "" or last != "")
        if first == "!":
            self.pos += 1
            return not self._two()
        if first == "(" and last == ")":
            self.pos += 3
            return middle != ""
        raise TestError(f"{middle}: binary operator expected")

    def _expr(self) -> bool:
        if self.pos >= len(self.args):
            raise TestError("argument expected")
        return self._or()

    def _or(self) -> bool:
        value = self._and()
        if self.pos < len(self.args) and self.args[self.pos] == "-o":
            self.pos += 1
            other = self._or()
            return value or other
        return value

    def _and(self) -> bool:
        value = self._term()
        if self.pos < len(self.args) and self.args[self.pos] == "-a":
            self.pos += 1
            other = self._and()
            return value and other
        return value

    def _term(self) -> bool:
        if self.pos >= len(self.args):
            raise TestError("argument expected")
        word = self.args[self.pos]
        if word == "!":
            self.pos += 1
            return not self._term()
        if word == "(":
            self.pos += 1
            value = self._expr()
            if self.pos >= len(self.args) or self.args[self.pos] != ")":
                found = self.args[self.pos] if self.pos < len(self.args) else self.closing or None
                raise TestError("`)' expected" if found is None else f"`)' expected, found {found}")
            self.pos += 1
            return value
        if self.pos + 3 <= len(self.args) and self.args[self.pos + 1] in _BINARY:
            return self._binary()
        if word in _UNARY and self.pos + 1 < len(self.args):
            return self._unary()
        self.pos += 1
        return word != ""

    def _unary(self) -> bool:
        op, operand = self._take(), self._take()
        if op == "-o" and operand not in _OPTIONS:  # ``minus_o_option_value``: no such option
            return False
        status = unary_status(op, operand, self.files)
        if status == 2:
            raise TestError("")
        return status == 0

    def _binary(self) -> bool:
        left, op, right = self._take(), self._take(), self._take()
        if op in ("<", ">"):
            return left < right if op == "<" else left > right
        status = binary_status(left, op, right)
        if status == 2:
            raise TestError("")
        return status == 0
