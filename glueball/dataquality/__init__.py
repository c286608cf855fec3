"""AWS Glue Data Quality's DQDL: parse, check and print rulesets.

``parse(text)`` turns a DQDL document into a :class:`Ruleset` (raising
:class:`DqdlError` with line, column and what was expected), ``check(ruleset,
schema)`` adds column checks against the data's schema, and
``ruleset.to_dqdl()`` prints the canonical text back. :data:`RULE_TYPES` is the
registry of every rule type the evaluator plans from.
"""

from glueball.dataquality.ast import (
    Aggregate,
    Analyzer,
    Between,
    BinaryOp,
    Comparison,
    CompositeRule,
    DateArithmetic,
    DateLiteral,
    DqdlError,
    Duration,
    Expression,
    FrozenMap,
    FunctionCall,
    IndexOf,
    InList,
    Keyword,
    LastK,
    Matches,
    Negative,
    Now,
    NumberLiteral,
    Operand,
    Rule,
    RuleNode,
    Ruleset,
    Size,
    StringLiteral,
    TimeLiteral,
)
from glueball.dataquality.parser import check, parse
from glueball.dataquality.rules import RULE_TYPES, RuleTypeSpec, is_row_level, metric_names, rule_type

__all__ = [
    "RULE_TYPES",
    "Aggregate",
    "Analyzer",
    "Between",
    "BinaryOp",
    "Comparison",
    "CompositeRule",
    "DateArithmetic",
    "DateLiteral",
    "DqdlError",
    "Duration",
    "Expression",
    "FrozenMap",
    "FunctionCall",
    "InList",
    "IndexOf",
    "Keyword",
    "LastK",
    "Matches",
    "Negative",
    "Now",
    "NumberLiteral",
    "Operand",
    "Rule",
    "RuleNode",
    "RuleTypeSpec",
    "Ruleset",
    "Size",
    "StringLiteral",
    "TimeLiteral",
    "check",
    "is_row_level",
    "metric_names",
    "parse",
    "rule_type",
]
