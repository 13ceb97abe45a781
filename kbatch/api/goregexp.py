"""Go's ``regexp``, for the patterns upstream compiles with it: an OpenAPI ``pattern`` of a CRD schema
(kube-openapi's validator), the CEL regex library's ``find``/``findAll`` and JobSet's
``onJobFailureMessagePatterns`` (``regexp.MatchString``).

Go's ``regexp/syntax`` is RE2's syntax with RE2's leftmost-first, linear-time matching, so kbatch
compiles these patterns with RE2 itself (the ``google-re2`` binding) instead of Python's ``re``, whose
dialect differs where a user would notice: ``$`` there also matches before a final newline, ``\\d``
and ``\\w`` match any Unicode digit or letter (ASCII only in Go), and look-arounds and backreferences
are accepted (Go refuses them). The one construct RE2 takes and Go refuses, ``\\C``, is refused here.

A pattern that does not compile raises :class:`GoRegexpError` whose text is Go's ``err.Error()``
(``error parsing regexp: <code>: `<expr>```, regexp/syntax ``ErrorCode``); RE2's own wording of each
code is translated to Go's. Compiled patterns are cached.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import re2

__all__ = ["GoRegexp", "GoRegexpError", "compile_go"]

# RE2's RegexpErrorToString wording -> Go's regexp/syntax ErrorCode text (same codes, other words)
_GO_CODE = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "bad repetition operator": "invalid nested repetition operator",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid named capture group": "invalid named capture",
    "pattern too large - compile failed": "expression too large",
}
_TRAILING_BACKSLASH = "trailing \\"


class GoRegexpError(ValueError):
    """A pattern Go's ``regexp.Compile`` refuses; ``str()`` is Go's message."""


@dataclass(frozen=True, slots=True)
class GoRegexp:
    """One compiled pattern with Go's ``MatchString``, ``FindString`` and ``FindAllString``."""

    pattern: str
    _compiled: Any

    def match_string(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text`` (Go's ``MatchString``: unanchored)."""
        return self._compiled.search(text) is not None

    def find_string(self, text: str) -> str:
        """The leftmost match, or ``""`` when there is none (Go's ``FindString``)."""
        match = self._compiled.search(text)
        return match.group(0) if match is not None else ""

    def find_all_string(self, text: str, n: int = -1) -> list[str]:
        """Go's ``FindAllString``: successive non-overlapping matches, at most ``n`` (all when negative).

        An empty match right where the previous match ended is skipped, as Go's ``allMatches`` does;
        Python's ``finditer`` keeps it (``a*`` over ``"baaa"``: Go ``["", "aaa"]``, Python one more).
        """
        found: list[str] = []
        pos, previous_end = 0, -1
        while pos <= len(text) and (n < 0 or len(found) < n):
            match = self._compiled.search(text, pos)
            if match is None:
                break
            start, end = match.span()
            empty = end == pos
            if not (empty and start == previous_end):
                found.append(text[start:end])
            pos, previous_end = (pos + 1 if empty else end), end  # past an empty match by one rune
        return found


def compile_go(pattern: str) -> GoRegexp:
    """``regexp.Compile(pattern)``; :class:`GoRegexpError` with Go's message when it does not compile."""
    compiled = _compile(pattern)
    if isinstance(compiled, str):
        raise GoRegexpError(compiled)
    return compiled


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> GoRegexp | str:
    # the error is cached as its message: an exception object would keep its traceback alive
    unsupported = _unsupported_escape(pattern)
    if unsupported:
        return _go_error("invalid escape sequence", unsupported)
    try:
        return GoRegexp(pattern, re2.compile(pattern, _OPTIONS))
    except re2.error as err:
        return _go_message(err)


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would also log each refused pattern to stderr
    return options


_OPTIONS = _options()


def _unsupported_escape(pattern: str) -> str:
    """``\\C`` (any byte), which RE2 takes and Go's parser refuses as an invalid escape."""
    pos = pattern.find("\\")
    while pos >= 0:
        if pattern[pos + 1:pos + 2] == "C":
            return "\\C"
        pos = pattern.find("\\", pos + 2)
    return ""


def _go_message(err: Any) -> str:
    raw = err.args[0] if err.args else b""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if text == _TRAILING_BACKSLASH:
        return _go_error("trailing backslash at end of expression", "")
    code, _, expr = text.partition(": ")
    return _go_error(_GO_CODE.get(code, code), expr)


def _go_error(code: str, expr: str) -> str:
    return f"error parsing regexp: {code}: `{expr}`"
