"""A simulated command's standard input, and the here-documents that feed it.

:class:`Input` is a stream read from the front: ``read`` takes a line, ``cat`` the rest, so a loop
whose input is redirected (``while read l; do …; done < f``) reads one line per iteration. A
container's own standard input is empty (no ``stdin: true`` is modelled).

Here-documents (POSIX "Shell Command Language" 2.7.4): ``<<WORD`` (``<<-WORD``: leading tabs removed
from the body and the delimiter line) takes the lines after the one it is on, up to a line that is
exactly the delimiter, as the command's input. A delimiter with any quoting (``'EOF'``, ``"EOF"``,
``\\EOF``) keeps the body as written; otherwise the body undergoes parameter, command and arithmetic
expansion, and a backslash quotes only ``$``, `````, ``\\`` and a newline. :func:`lift_heredocs`
takes the bodies out of a script before it is split into lists (their lines are not commands) and
leaves each in its command as one opaque word, :data:`HEREDOC` + a mode letter + the body's hex
(no ``$``, quote or blank, so expansion and word splitting pass it through); :func:`heredoc_body`
reads it back.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.sim.shell_scan import FREE, scan

__all__ = ["HEREDOC", "Input", "heredoc_body", "lift_heredocs"]

HEREDOC = "<<#"
_EXPAND, _LITERAL = "e", "q"
_WORD_END = frozenset(" \t\n;&|<>()")


@dataclass(slots=True)
class Input:
    """What is left to read of a standard input."""

    text: str = ""
    pos: int = 0

    def read_line(self) -> tuple[str, bool] | None:
        """The next line without its newline, and whether it had one; None at end of input."""
        if self.pos >= len(self.text):
            return None
        end = self.text.find("\n", self.pos)
        if end < 0:
            line, self.pos = self.text[self.pos:], len(self.text)
            return line, False
        line, self.pos = self.text[self.pos:end], end + 1
        return line, True

    def read_char(self) -> str | None:
        """The next character; None at end of input."""
        if self.pos >= len(self.text):
            return None
        self.pos += 1
        return self.text[self.pos - 1]

    def read_all(self) -> str:
        rest, self.pos = self.text[self.pos:], len(self.text)
        return rest


def heredoc_body(word: str) -> tuple[str, bool] | None:
    """A lifted here-document's body and whether it is to be expanded; None for another word."""
    if not word.startswith(HEREDOC) or len(word) < len(HEREDOC) + 1:
        return None
    mode, encoded = word[len(HEREDOC)], word[len(HEREDOC) + 1:]
    try:
        return bytes.fromhex(encoded).decode(), mode == _EXPAND
    except ValueError:
        return None


def lift_heredocs(script: str) -> str:
    """``script`` with each here-document's body taken into its ``<<`` word (see above). The
    operators of one line are found (:func:`_line_operators`), their bodies lifted from the lines
    after it, and the script read again from the start for the next line holding one: a lifted
    word (``<<#…``) is no operator, and the bodies are no longer there to be read as script."""
    if "<<" not in script:
        return script
    while (found := _line_operators(script)) is not None:
        operators, line_end = found
        script = _lift(script, operators, line_end)
    return script


_Operator = tuple[int, int, str, bool, bool]
"""``(start, end, delimiter, strip_tabs, quoted)``: a ``<<`` / ``<<-`` operator and its word."""


def _lift(script: str, operators: list[_Operator], line_end: int) -> str:
    """The bodies after the line ending at ``line_end``, taken in order into their operators."""
    lines = script[line_end + 1:].split("\n") if line_end < len(script) else []
    index = 0
    tokens: list[tuple[int, int, str]] = []
    for start, end, delimiter, strip_tabs, quoted in operators:
        body: list[str] = []
        while index < len(lines):
            text = lines[index].lstrip("\t") if strip_tabs else lines[index]
            index += 1
            if text == delimiter:
                break
            body.append(text + "\n")
        mode = _LITERAL if quoted else _EXPAND
        tokens.append((start, end, HEREDOC + mode + "".join(body).encode().hex()))
    head = script[:line_end]
    for start, end, token in reversed(tokens):  # the last first: the others keep their places
        head = head[:start] + token + head[end:]
    blank = "\n" * (index + 1)  # the body's lines stay as empty ones: the lines after keep their numbers
    return head if line_end == len(script) else head + blank + "\n".join(lines[index:])


def _line_operators(script: str) -> tuple[list[_Operator], int] | None:
    """The ``<<`` operators of the first line that has any, and where that line ends (its first
    newline that is syntax, at any depth: a body inside ``$( … )`` follows the line too), read by
    :func:`~kbatch.sim.shell_scan.scan`: not inside quotes, a comment, arithmetic (``$(( ))``,
    ``(( ))``: ``<<`` is a shift), a ``${ }``, nor a here-string's ``<<<``; a lifted word is none."""
    found: list[_Operator] = []
    regions: list[tuple[str, int]] = []  # the open regions: opener kind, first position inside
    skip = -1
    for pos, ch, depth, kind in scan(script, comments=True):
        while len(regions) > depth:
            regions.pop()
        if depth > len(regions):
            regions.append(_region(script, pos, regions))
        if pos < skip or kind != FREE:
            continue
        if ch == "\n" and found:
            return found, pos
        if ch != "<" or not script.startswith("<<", pos):
            continue
        skip = pos + 3
        if script.startswith(("<<<", HEREDOC), pos) or any(k in _NO_HEREDOC for k, _ in regions):
            continue
        operator = _operator(script, pos)
        if operator is not None:
            found.append(operator)
            skip = operator[1]
    return (found, len(script)) if found else None


_NO_HEREDOC = frozenset({"((", "${", "{"})


def _region(script: str, inside: int, regions: list[tuple[str, int]]) -> tuple[str, int]:
    """The kind of the region whose first character is at ``inside``: ``$(``, ``(``, ``${``,
    ``{``, a backquote, or ``((`` for arithmetic (a ``(`` opening right inside another ``(``)."""
    opener = script[inside - 1]
    if opener == "(" and regions and regions[-1][1] == inside - 1 and regions[-1][0] in ("$(", "("):
        regions[-1] = ("((", regions[-1][1])
        return "((", inside
    if opener in "({" and script[inside - 2:inside - 1] == "$":
        return "$" + opener, inside
    return opener, inside


def _operator(script: str, pos: int) -> _Operator | None:
    """The ``<<`` / ``<<-`` at ``pos`` and its delimiter word, or None when no word follows."""
    start = pos
    pos += 2
    strip_tabs = script.startswith("-", pos)
    pos += strip_tabs
    while pos < len(script) and script[pos] in " \t":
        pos += 1
    end = next((at for at, ch, _, kind in scan(script, pos, nest=False)
                if kind == FREE and ch in _WORD_END), len(script))
    raw = script[pos:end]
    if not raw:
        return None
    delimiter = raw.replace("'", "").replace('"', "").replace("\\", "")
    return start, end, delimiter, strip_tabs, delimiter != raw
