"""A YAML syntax error in go-yaml's words, as kubectl prints it (``error converting YAML to JSON:
yaml: line N: <problem>``).

kubectl reads manifests with sigs.k8s.io/yaml, which parses with go-yaml v2 (a port of libyaml);
kbatch parses with ruamel.yaml (a port of PyYAML). Both find the same errors at the same marks but
word them differently, and go-yaml numbers the line its own way (``decode.go`` ``parser.fail``): a
problem mark's 0-based line as is for a parser error and plus one for a scanner error, else the
context mark's 0-based line, else no ``line N:`` at all; its stream end sits on a line of its own
when the text does not end in a newline. The problems are libyaml's
(``parser.c``/``scannerc.go``), e.g. ``did not find expected key`` where PyYAML says ``expected
<block end>, but found '<block mapping start>'`` while parsing a block mapping. A problem without a
known counterpart keeps ruamel's words.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["go_yaml_problem"]

# (context prefix or "", problem pattern, libyaml's problem)
_PARSER = (
    ("while parsing a block mapping", r"expected <block end>, but found", "did not find expected key"),
    ("while parsing a block collection", r"expected <block end>, but found",
     "did not find expected '-' indicator"),
    ("", r"expected ',' or '\]', but got", "did not find expected ',' or ']'"),
    ("", r"expected ',' or '\}', but got", "did not find expected ',' or '}'"),
    ("", r"expected the node content, but found", "did not find expected node content"),
    ("", r"expected '<document start>', but found", "did not find expected <document start>"),
)
_SCANNER = (
    (r"mapping values are not allowed here", "mapping values are not allowed in this context"),
    (r"found character .* that cannot start any token", "found character that cannot start any token"),
)


def _line(mark: Any) -> int:
    return int(getattr(mark, "line", 0) or 0) if mark is not None else 0


def _words(problem: str, context: str, scanner: bool) -> str:
    if scanner:
        return next((ours for pat, ours in _SCANNER if re.match(pat, problem)), problem)
    for where, pat, ours in _PARSER:
        if re.match(pat, problem) and context.startswith(where):
            return ours
    return problem


def _undefined_alias(problem: str) -> str | None:
    """go-yaml v2 ``decode.go`` ``parser.alias``: ``failf("unknown anchor '%s' referenced")``, which
    carries no line (``failf`` is not ``parser.fail``)."""
    found = re.fullmatch(r"found undefined alias '(.*)'", problem)
    return f"unknown anchor '{found.group(1)}' referenced" if found else None


def _tab_in_plain_scalar(text: str, mark: Any) -> bool:
    """Whether libyaml met the tab while scanning the blanks after a plain scalar's line break:
    ``scannerc.go`` ``yaml_parser_scan_plain_scalar`` fails there with ``found a tab character that
    violates indentation`` (a tab before the block's indentation), where PyYAML's plain scalar stops
    at the break and its next token fails on the tab. So: the tokens before the error end with a
    plain scalar on an earlier line, only blanks precede the tab on its own line, and the tab stands
    left of the block's indentation plus one (``indent``). A tab further right is blank to libyaml,
    which then fails on what follows (not modelled: kbatch keeps the tab error there)."""
    from ruamel.yaml import YAML

    lines = text.splitlines()
    line, column = _line(mark), int(getattr(mark, "column", 0) or 0)
    if line >= len(lines) or lines[line][column:column + 1] != "\t" or lines[line][:column].strip(" \t"):
        return False
    last: Any = None
    indent = -1  # the block's indentation: the column of its last key (libyaml's parser.indent)
    try:
        for token in YAML(typ="safe", pure=True).scan(text):
            if type(token).__name__ == "KeyToken":
                indent = int(token.start_mark.column)
            last = token
    except Exception:  # the same error, where the tokens stop
        pass
    start = getattr(last, "start_mark", None)
    plain = bool(getattr(last, "plain", False)) and start is not None and _line(start) < line
    return plain and column < indent + 1


def go_yaml_problem(err: Any, text: str | None = None) -> str | None:
    """``line N: <problem>`` (or ``<problem>``) for a ruamel ``MarkedYAMLError`` raised reading
    ``text``; ``None`` when ``err`` carries no problem."""
    from ruamel.yaml.scanner import ScannerError

    problem = getattr(err, "problem", None)
    if not problem:
        return None
    alias = _undefined_alias(str(problem))
    if alias is not None:
        return alias
    scanner = isinstance(err, ScannerError)
    words = _words(str(problem), str(getattr(err, "context", "") or ""), scanner)
    if scanner and text is not None and "'\\t' that cannot start" in str(problem) \
            and _tab_in_plain_scalar(text, getattr(err, "problem_mark", None)):
        words = "found a tab character that violates indentation"
    mark: Any = getattr(err, "problem_mark", None)
    problem_line, context_line = _line(mark), _line(getattr(err, "context_mark", None))
    if "<stream end>" in str(problem) and mark is not None and mark.column:
        problem_line += 1  # libyaml forces a new line before the stream end (fetch_stream_end)
    line = problem_line + (1 if scanner else 0) if problem_line else context_line
    return f"line {line}: {words}" if line else words
