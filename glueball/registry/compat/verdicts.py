"""What a compatibility check answers, and the refusal of a definition that does not parse."""

from __future__ import annotations

from dataclasses import dataclass


class InvalidSchemaDefinition(Exception):
    """A schema definition its format's parser refuses; ``str(e)`` is the parser's message naming what is wrong."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a new definition against earlier ones under a compatibility mode.

    ``reasons`` is empty when ``compatible``; otherwise each entry names one change that breaks the
    mode, with the earlier definition it breaks against and where in the schema.
    """

    compatible: bool
    reasons: tuple[str, ...]
