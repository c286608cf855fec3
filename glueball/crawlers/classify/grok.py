"""A Grok engine with Glue's semantics: named, recursively composed regular expressions.

``%{PATTERN}`` inserts a pattern; ``%{PATTERN:field}`` also captures it as the column ``field``
(type ``string``); ``%{PATTERN:field:type}`` casts the column to one of the types Glue documents
for grok classifiers: ``byte``, ``boolean``, ``double``, ``short``, ``int``, ``long`` or ``float``
(and ``string``). Custom patterns are ``NAME regex`` lines and may reference built-in ones and each
other. A grok pattern matches a whole line, one line at a time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from glueball.crawlers.classify.grok_patterns import BUILTIN_PATTERNS

# Glue grok data types → Hive column types.
GROK_TYPES = {
    "string": "string",
    "byte": "tinyint",
    "boolean": "boolean",
    "double": "double",
    "short": "smallint",
    "int": "int",
    "long": "bigint",
    "float": "float",
}

UNWANTED = "UNWANTED"  # the field name Glue's library uses for sub-patterns that are not columns
_REFERENCE = re.compile(r"%\{(?P<pattern>[A-Za-z0-9_]+)(?:[:;](?P<field>[^:;}]*))?(?:[:;](?P<type>[^}]*))?\}")
_NAMED_GROUP = re.compile(r"(?<!\\)\(\?<(?P<name>[A-Za-z_][A-Za-z0-9_-]*)>")
_INLINE_FLAGS = re.compile(r"(?<!\\)\(\?([aiLmsux]+)\)")
_MAX_DEPTH = 64


class GrokError(ValueError):
    """A grok pattern that cannot be compiled (unknown pattern, bad type, invalid regex, cycle)."""


@dataclass(frozen=True)
class GrokField:
    """A column a grok pattern captures: its name, Hive type and regex group."""

    name: str
    hive_type: str
    group: str


@dataclass(frozen=True)
class GrokPattern:
    """A compiled grok pattern.

    Attributes:
        pattern: the grok expression as given.
        regex: the expanded regular expression (matched against whole lines).
        fields: the captures in pattern order; a name captured more than once (in alternative
            branches) is one column, holding the first capture that matched.
    """

    pattern: str
    regex: re.Pattern[str]
    fields: tuple[GrokField, ...]

    @property
    def columns(self) -> list[tuple[str, str]]:
        """The ``(name, Hive type)`` columns of a table whose rows this pattern parses."""
        columns: dict[str, str] = {}
        for f in self.fields:
            columns.setdefault(f.name, f.hive_type)
        return list(columns.items())

    def match(self, line: str) -> dict[str, str | None] | None:
        """The field values of ``line`` when the whole line matches, else None."""
        found = self.regex.fullmatch(line)
        if found is None:
            return None
        values: dict[str, str | None] = {}
        for f in self.fields:
            if values.get(f.name) is None:
                values[f.name] = found.group(f.group)
        return values


def parse_custom_patterns(text: str | None) -> dict[str, str]:
    """Custom patterns of a GrokClassifier: one ``NAME regex`` per line (``#`` lines are comments).

    Raises:
        GrokError: a line is not ``NAME regex``.
    """
    patterns: dict[str, str] = {}
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or not re.fullmatch(r"[A-Za-z0-9_]+", parts[0]):
            raise GrokError(f"custom pattern line is not 'NAME regex': {raw!r}")
        patterns[parts[0]] = parts[1]
    return patterns


class _Expander:
    def __init__(self, library: Mapping[str, str]) -> None:
        self.library = library
        self.fields: list[GrokField] = []
        self.flags: set[str] = set()

    def _group(self) -> str:
        return f"_g{len(self.fields)}"

    def expand(self, text: str, stack: tuple[str, ...]) -> str:
        if len(stack) > _MAX_DEPTH:
            raise GrokError(f"grok patterns nest too deeply: {' -> '.join(stack)}")
        text = _INLINE_FLAGS.sub(self._hoist_flags, text)
        text = _NAMED_GROUP.sub(self._named_group, text)
        out: list[str] = []
        pos = 0
        for ref in _REFERENCE.finditer(text):
            out.append(text[pos:ref.start()])
            pos = ref.end()
            name = ref.group("pattern")
            if name in stack:
                raise GrokError(f"grok pattern {name} references itself: {' -> '.join((*stack, name))}")
            if name not in self.library:
                raise GrokError(f"unknown grok pattern %{{{name}}}")
            field_name = (ref.group("field") or "").strip()
            type_name = (ref.group("type") or "string").strip().lower()
            if field_name and field_name != UNWANTED:
                if type_name not in GROK_TYPES:
                    raise GrokError(f"unsupported grok data type {type_name!r} for field {field_name!r}; "
                                    f"use one of {', '.join(GROK_TYPES)}")
                group = self._group()
                self.fields.append(GrokField(field_name, GROK_TYPES[type_name], group))
                out.append(f"(?P<{group}>{self.expand(self.library[name], (*stack, name))})")
            else:
                out.append(f"(?:{self.expand(self.library[name], (*stack, name))})")
        out.append(text[pos:])
        return "".join(out)

    def _named_group(self, found: re.Match[str]) -> str:
        group = self._group()
        self.fields.append(GrokField(found.group("name"), "string", group))
        return f"(?P<{group}>"

    def _hoist_flags(self, found: re.Match[str]) -> str:
        # Oniguruma allows "(?i)" anywhere; Python only at the start, so it applies to the whole pattern.
        self.flags.update(found.group(1))
        return ""


def compile_grok(pattern: str, custom_patterns: str | None = None) -> GrokPattern:
    """Compile a grok expression with the built-in library plus ``custom_patterns``.

    Custom patterns override built-in ones of the same name.

    Raises:
        GrokError: an unknown pattern or type, a reference cycle, or an invalid regex.
    """
    library = {**BUILTIN_PATTERNS, **parse_custom_patterns(custom_patterns)}
    expander = _Expander(library)
    expanded = expander.expand(pattern, ())
    flags = "".join(sorted(expander.flags))
    try:
        regex = re.compile((f"(?{flags})" if flags else "") + expanded)
    except re.error as e:
        raise GrokError(f"grok pattern {pattern!r} is not a valid regular expression: {e}") from e
    return GrokPattern(pattern, regex, tuple(expander.fields))
