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

__all__ = ["HEREDOC", "Input", "heredoc_body", "lift_heredocs"]

HEREDOC = "<<#"
_EXPAND, _LITERAL = "e", "q"
_WORD_END = frozenset(" \t;&|<>()")


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
    """``script`` with each here-document's body taken into its ``<<`` word (see above)."""
    if "<<" not in script:
        return script
    lines = script.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        tokens: list[tuple[int, int, str]] = []
        for start, end, delimiter, strip_tabs, quoted in _operators(line):  # bodies in order
            body: list[str] = []
            while index < len(lines):
                text = lines[index].lstrip("\t") if strip_tabs else lines[index]
                index += 1
                if text == delimiter:
                    break
                body.append(text + "\n")
            mode = _LITERAL if quoted else _EXPAND
            tokens.append((start, end, HEREDOC + mode + "".join(body).encode().hex()))
        for start, end, token in reversed(tokens):  # the last first: the others keep their places
            line = line[:start] + token + line[end:]
        out.append(line)
    return "\n".join(out)


def _operators(line: str) -> list[tuple[int, int, str, bool, bool]]:
    """The ``<<`` operators on ``line``, in order: (start, end, delimiter, ``<<-``, quoted). Not
    inside quotes, ``$(( ))`` or ``<<<``."""
    found: list[tuple[int, int, str, bool, bool]] = []
    quote, arith, pos = "", 0, 0
    while pos < len(line):
        ch = line[pos]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif line.startswith("$((", pos):
            arith += 1
            pos += 3
            continue
        elif arith and line.startswith("))", pos):
            arith -= 1
            pos += 2
            continue
        elif line.startswith("<<<", pos):  # a here-string (bash, busybox ash): no body to lift
            pos += 3
            continue
        elif not arith and line.startswith("<<", pos):
            start = pos
            pos += 2
            strip_tabs = line.startswith("-", pos)
            pos += 1 if strip_tabs else 0
            while pos < len(line) and line[pos] in " \t":
                pos += 1
            word_start = pos
            word_quote = ""
            while pos < len(line) and (word_quote or line[pos] not in _WORD_END):
                if word_quote:
                    word_quote = "" if line[pos] == word_quote else word_quote
                elif line[pos] in "'\"":
                    word_quote = line[pos]
                pos += 1
            raw = line[word_start:pos]
            if raw:
                delimiter = raw.replace("'", "").replace('"', "").replace("\\", "")
                found.append((start, pos, delimiter, strip_tabs, delimiter != raw))
            continue
        pos += 1
    return found
