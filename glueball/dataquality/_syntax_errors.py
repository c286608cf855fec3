"""Syntax errors of DQDL text, said the way a DQDL author would read them.

:func:`syntax_error` turns lark's ``UnexpectedInput`` into a :class:`~glueball.dataquality.ast.DqdlError`
naming the line and column, what was found and — in words, most telling first — what the parser
would have accepted there (``a comparison such as '> 10'``, ``where "<Spark SQL condition>"``...),
with the sections' names and order when a section is misplaced, given twice or misspelled.
"""

from __future__ import annotations

import difflib
import re

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from glueball.dataquality.ast import DqdlError

__all__ = ["syntax_error"]

_OPERAND_START = {"NUMBER", "STRING", "CONST_REF", "NULL", "EMPTY", "WHITESPACES_ONLY"}
_CONDITION_START = {"COMPARATOR", "not", "NOT", "between", "BETWEEN", "in", "IN", "matches"}
_ARITHMETIC = {"+", "-", "*", "/"}
_UNITS = {"minutes", "hours", "days", "B", "KB", "MB", "GB", "TB"}
_SECTIONS = ("Metadata", "DataSources", "DefaultLabels", "Rules", "Analyzers")
_TOKEN_PHRASES = {
    "=": "'='",
    ",": "','",
    "]": "']'",
    ")": "')'",
    "}": "'}'",
    "[": "'['",
    "{": "'{'",
    "(": "'('",
    ":": "':'",
    "where": 'where "<Spark SQL condition>"',
    "with": "with threshold ... or with <tag> = ...",
    "labels": 'labels = ["key" = "value"]',
    "and": "'and'",
    "AND": "'and'",
    "or": "'or'",
    "$END": "the end of the ruleset",
}
_STATEMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*=")


def _spelling(parser: Lark, name: str) -> str:
    """What a terminal looks like: its literal text, or its name for a pattern."""
    if name == "$END":
        return name
    pattern = parser.get_terminal(name).pattern
    return str(pattern.value) if pattern.type == "str" else name


def _describe(spelled: set[str]) -> list[str]:
    """The tokens a parser state accepts, said the way a DQDL author would, most telling first."""
    phrases: list[str] = []
    among_parameters = bool(spelled & _CONDITION_START) and "NAME" in spelled
    if spelled & _CONDITION_START:
        phrases.append("a comparison such as '> 10'")
    if "NAME" in spelled and "(" in spelled and "NUMBER" not in spelled:
        phrases.append("a rule type such as RowCount")
    if spelled & _OPERAND_START and not among_parameters:
        phrases.append('a value such as 10, "text", NULL or avg(last(3))')
    sections = [name for name in _SECTIONS if name in spelled]
    if sections:
        phrases.append(" or ".join(f"{name} = ..." for name in sections))
    if "threshold" in spelled:
        phrases.append("threshold or a tag name")
    if "STRING" in spelled and not spelled & _OPERAND_START:
        phrases.append('a string in double quotes such as "name"')
    for spelling, phrase in _TOKEN_PHRASES.items():
        if spelling == "=" and "COMPARATOR" in spelled:
            continue
        if spelling in spelled and phrase not in phrases:
            phrases.append(phrase)
    if spelled & _ARITHMETIC and not spelled & _OPERAND_START:
        phrases.append("an operator such as + or *")
    if spelled & _UNITS:
        phrases.append("a unit such as hours or MB")
    if among_parameters:
        phrases.append('another parameter such as "column"')
    return phrases or sorted(spelled)


def _scan(text: str, pos: int) -> tuple[int, int]:
    """Where the entry (rule, pair...) and the top-level statement containing ``pos`` begin."""
    depth, entry, statement, i = 0, 0, 0, 0
    while i < pos:
        char = text[i]
        if char == '"':
            i += 1
            while i < pos and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif char == "#":
            while i < pos and text[i] != "\n":
                i += 1
        elif char in "[{":
            depth += 1
            if depth == 1:
                entry = i + 1
        elif char in "]}":
            depth = max(depth - 1, 0)
            if depth == 0:
                entry = statement = i + 1
        elif char == "," and depth == 1:
            entry = i + 1
        i += 1
    return entry, statement


def _position_of(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _accepted(parser: Lark, text: str, error: UnexpectedInput, pos: int) -> set[str]:
    """The terminals really acceptable at the error (LALR's own lists merge contexts)."""
    try:
        if isinstance(error, UnexpectedToken) and error.interactive_parser is not None:
            return set(error.interactive_parser.accepts())
        interactive = parser.parse_interactive(text[:pos])
        interactive.exhaust_lexer()
        return set(interactive.accepts())
    except UnexpectedInput:  # pragma: no cover - the prefix before an error parses
        return set(getattr(error, "expected", None) or getattr(error, "allowed", None) or ())


def syntax_error(parser: Lark, text: str, error: UnexpectedInput) -> DqdlError:
    """The :class:`DqdlError` for lark's ``error`` in ``text``: where, what was found, what would do, in words."""
    if isinstance(error, UnexpectedCharacters):
        pos = error.pos_in_stream or 0
        found = f"'{text[pos]}'"
    elif isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            pos, found = len(text.rstrip()), "the end of the ruleset"
        else:
            pos, found = token.start_pos or 0, f"'{token}'"
    else:  # pragma: no cover - LALR reports the end as a $END token
        pos, found = len(text.rstrip()), "the end of the ruleset"
    line, column = _position_of(text, pos)
    section = found.strip("'")
    if section in _SECTIONS and re.match(rf"{section}\s*=", text[pos:]):
        if re.search(rf"(^|\n)\s*{section}\s*=", text[:pos]):
            return DqdlError(f"the {section} section is given twice", line, column)
        order = "Metadata, DataSources, constants, DefaultLabels, Rules, Analyzers"
        return DqdlError(f"the {section} section is out of order; sections go in the order {order}", line, column)
    spelled = {_spelling(parser, name) for name in _accepted(parser, text, error, pos)}
    if "$END" in spelled:  # at the document's end a ']' is only a stray bracket, tolerated, never wanted
        spelled.discard("]")
    phrases = _describe(spelled)
    entry, statement = _scan(text, pos)
    head = _STATEMENT.match(text, statement)
    if head and head[1] not in _SECTIONS and not text[head.end() :].lstrip().startswith('"'):
        close = difflib.get_close_matches(head[1], _SECTIONS, 1)
        if close:
            line, column = _position_of(text, head.start(1))
            return DqdlError(f"unknown section '{head[1]}'; did you mean {close[0]}?", line, column, phrases)
    before = " ".join(text[entry:pos].split())
    before = before if len(before) <= 60 else "..." + before[-57:]
    after = f" after {before}" if before else ""
    shown = phrases[:4]
    wanted = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    detail = f"expected {wanted}{after}, found {found}"
    return DqdlError(detail, line, column, phrases)
