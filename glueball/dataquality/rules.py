"""The registry of DQDL rule types: what each takes, allows and reports.

One :class:`RuleTypeSpec` per rule type AWS Glue Data Quality documents, carrying
its parameters (by arity, as Glue resolves overloads such as ``FileMatch`` with
zero, one or two paths), whether it takes a condition (boolean rules such as
``IsComplete`` do not), the kind of value its condition compares, whether
``where`` and ``with threshold`` are allowed, whether dynamic rules (``last(k)``)
apply, whether it yields per-row outcomes, and the metric names Glue reports in
``EvaluatedMetrics`` (``Column.<c>.Completeness``, ``Dataset.*.RowCount``...).
The evaluator plans from this table; :mod:`glueball.dataquality._checks` checks
rulesets against it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from glueball.dataquality.ast import Analyzer, Between, FrozenMap, InList, Parameter, Rule

__all__ = [
    "ANOMALY_RULE_TYPES",
    "COLUMN_DATA_TYPES",
    "RULE_TYPES",
    "DECIMAL_TYPE",
    "SUPPORTED_TAGS",
    "ConditionUse",
    "ParamKind",
    "RuleTypeSpec",
    "Signature",
    "ValueKind",
    "is_row_level",
    "length_compliance",
    "metric_names",
    "rule_type",
    "unsupported_tags",
]


class ParamKind(enum.Enum):
    """What a rule parameter is; the value is how error messages name it."""

    COLUMN = "a column name"
    COLUMN_LIST = 'comma-separated column names such as "city,state"'
    REFERENCE_COLUMNS = 'reference columns such as "reference.zipcode" or "reference.{city,state}"'
    ALIAS = "a reference data source alias"
    KEY_MAPPINGS = 'column mappings such as "ID" or "ID_1->ID_ref1,ID_2->ID_ref2"'
    AGGREGATE = 'an aggregation such as "sum(amount)" or "avg(reference.rating)"'
    PATTERN = "a regular expression"
    SQL = "a SQL statement"
    PATH = "a file or folder path"
    RULE_NAME = "the name of the rule to watch for anomalies"


class ConditionUse(enum.Enum):
    """Whether a rule type takes a condition (``> 10``, ``in [...]``...)."""

    REQUIRED = "required"
    FORBIDDEN = "forbidden"
    OPTIONAL = "optional"


class ValueKind(enum.Enum):
    """What a rule type's condition compares."""

    NUMBER = "number"  # a metric: ratios, counts, means
    COLUMN_VALUES = "column values"  # each value of a column: numbers, strings, dates, NULL...
    DATA_TYPE = "data type"  # ColumnDataType's type name
    DURATION = "duration"  # DataFreshness: age in minutes/hours/days
    DATE = "date"  # FileFreshness: a date, a time of day or now() arithmetic
    SIZE = "size"  # FileSize: 2 MB, or bytes
    CHECKSUMS = "checksums"  # FileMatch against a list of checksums


#: what ``ValueKind`` looks like in "needs a condition such as ..." messages
CONDITION_EXAMPLES = {
    ValueKind.NUMBER: "'> 10' or 'between 0.9 and 1.0'",
    ValueKind.COLUMN_VALUES: "'> 10', 'in [\"a\", \"b\"]' or 'matches \"[a-z]+\"'",
    ValueKind.DATA_TYPE: "'= \"INTEGER\"'",
    ValueKind.DURATION: "'<= 24 hours'",
    ValueKind.DATE: "'> (now() - 1 days)'",
    ValueKind.SIZE: "'> 2 MB'",
    ValueKind.CHECKSUMS: "'in [\"<checksum>\"]'",
}

#: ColumnDataType's expected types (matched case-insensitively); ``DECIMAL(p,s)`` besides
COLUMN_DATA_TYPES = ("Boolean", "Date", "Timestamp", "Integer", "Double", "Float", "Long", "Short", "Byte",
                     "Decimal", "String")
#: ``DECIMAL(precision, scale)`` as a ColumnDataType type name
DECIMAL_TYPE = re.compile(r"decimal\s*\(\s*([0-9]+)\s*,\s*([0-9]+)\s*\)", re.I)

#: the rule types DetectAnomalies can watch (AWS spells CustomSql "CustomSQL" there)
ANOMALY_RULE_TYPES = (
    "RowCount",
    "Completeness",
    "Uniqueness",
    "Mean",
    "Sum",
    "StandardDeviation",
    "Entropy",
    "DistinctValuesCount",
    "UniqueValueRatio",
    "ColumnLength",
    "ColumnValues",
    "ColumnCorrelation",
    "CustomSQL",
    "ColumnCount",
)


@dataclass(frozen=True)
class Signature:
    """One accepted parameter list: fixed ``parameters`` then, when ``repeat`` is set, any
    number (at least ``min_repeat``) of further parameters of that kind."""

    parameters: tuple[ParamKind, ...]
    condition: ConditionUse = ConditionUse.REQUIRED
    repeat: ParamKind | None = None
    min_repeat: int = 0

    def accepts(self, count: int) -> bool:
        fixed = len(self.parameters)
        if self.repeat is None:
            return count == fixed
        return count >= fixed + self.min_repeat

    def kinds(self, count: int) -> tuple[ParamKind, ...]:
        extra = count - len(self.parameters)
        return self.parameters + ((self.repeat,) * extra if self.repeat else ())


MetricNames = Callable[[tuple[Parameter, ...], Rule | Analyzer | None], tuple[str, ...]]


@dataclass(frozen=True)
class RuleTypeSpec:
    """Everything the parser, checker and evaluator need to know about one rule type."""

    name: str
    description: str
    signatures: tuple[Signature, ...]
    value_kind: ValueKind
    metrics: MetricNames
    where: bool = False
    threshold: bool = False
    dynamic: bool = False
    row_level: bool = False
    in_rules: bool = True
    in_analyzers: bool = False
    numeric_columns: bool = False
    parameters_text: str | None = None

    def signature(self, count: int) -> Signature | None:
        """The signature Glue picks for ``count`` parameters, if any."""
        return next((s for s in self.signatures if s.accepts(count)), None)

    def arity(self) -> str:
        """``"1 parameter (a column name)"``, ``"0 or 1 parameters"``... for messages."""
        if self.parameters_text:
            return self.parameters_text
        if len(self.signatures) == 1:
            sig = self.signatures[0]
            count = len(sig.parameters)
            if sig.repeat is not None:
                noun = sig.repeat.value.removeprefix("a ").removeprefix("an ")
                return f"one or more {noun}s"
            if count == 0:
                return "no parameters"
            kinds = ", ".join(k.value for k in sig.parameters)
            return f"{count} parameter{'s' if count > 1 else ''} ({kinds})"
        counts = sorted({len(s.parameters) for s in self.signatures})
        return " or ".join(str(c) for c in counts) + " parameters"


# ---------------------------------------------------------------- metric names


def _column(metric: str) -> MetricNames:
    return lambda params, _: (f"Column.{params[0]}.{metric}",)


def _dataset(*metrics: str) -> MetricNames:
    return lambda params, _: tuple(f"Dataset.*.{m}" for m in metrics)


def _alias(entity: str, metric: str) -> MetricNames:
    return lambda params, _: (f"{entity}.{params[0]}.{metric}",)


def _uniqueness(params: tuple[Parameter, ...], _: object) -> tuple[str, ...]:
    if len(params) == 1:
        return (f"Column.{params[0]}.Uniqueness",)
    return (f"Multicolumn.{','.join(str(p) for p in params)}.Uniqueness",)


def _primary_key(params: tuple[Parameter, ...], node: object) -> tuple[str, ...]:
    return tuple(f"Column.{p}.Completeness" for p in params) + _uniqueness(params, node)


def length_compliance(rule: Rule) -> bool:
    """Whether a ColumnLength rule reports ``LengthCompliance``: for ``in``, ``not in`` and ``not between``,
    the conditions the reference evaluator checks row by row rather than by the shortest and longest."""
    condition = rule.condition
    return isinstance(condition, InList) or (isinstance(condition, Between) and condition.negated)


def _column_length(params: tuple[Parameter, ...], node: object) -> tuple[str, ...]:
    names = [f"Column.{params[0]}.MinimumLength", f"Column.{params[0]}.MaximumLength"]
    if isinstance(node, Rule) and length_compliance(node):
        names.append(f"Column.{params[0]}.LengthCompliance")
    return tuple(names)


def _correlation(params: tuple[Parameter, ...], _: object) -> tuple[str, ...]:
    return (f"Multicolumn.{params[0]},{params[1]}.ColumnCorrelation",)


def _referential(params: tuple[Parameter, ...], _: object) -> tuple[str, ...]:
    alias = str(params[1]).split(".", 1)[0]
    return (f"Column.{alias}.ReferentialIntegrity",)


def _aggregate_column(expression: Parameter) -> str:
    inner = str(expression).strip()
    inner = inner[inner.find("(") + 1 : inner.rfind(")")].strip()
    return inner.rsplit(".", 1)[-1]


def _aggregate_match(params: tuple[Parameter, ...], _: object) -> tuple[str, ...]:
    first, second = _aggregate_column(params[0]), _aggregate_column(params[1])
    return (f"Column.{first if first == second else f'{first},{second}'}.AggregateMatch",)


def _anomalies(params: tuple[Parameter, ...], node: object) -> tuple[str, ...]:
    watched = "CustomSql" if params and params[0] == "CustomSQL" else str(params[0]) if params else ""
    spec = RULE_TYPES.get(watched)
    return spec.metrics(params[1:], None) if spec else ()


def _custom_sql(params: tuple[Parameter, ...], node: object) -> tuple[str, ...]:
    if isinstance(node, Rule) and node.condition is None:
        return ("Dataset.*.CustomSQL.Compliance",)
    return ("Dataset.*.CustomSQL",)


def _all_statistics(params: tuple[Parameter, ...], _: object) -> tuple[str, ...]:
    column = params[0]  # AllColumns: the data's columns are not known here; the history of RowCount is read
    if column == "AllColumns":
        return ("Dataset.*.RowCount",)
    return ("Dataset.*.RowCount", f"Column.{column}.Completeness", f"Column.{column}.Uniqueness")


# ---------------------------------------------------------------- the table

_C = ParamKind.COLUMN
_NONE = ConditionUse.FORBIDDEN
_OPTIONAL = ConditionUse.OPTIONAL


def _one_column(name: str, description: str, row_level: bool = False, numeric: bool = False) -> RuleTypeSpec:
    """A numeric rule over one column: ``<Name> "col" <condition>``."""
    return RuleTypeSpec(
        name,
        description,
        (Signature((_C,)),),
        ValueKind.NUMBER,
        _column(name),
        where=True,
        dynamic=True,
        row_level=row_level,
        in_analyzers=True,
        numeric_columns=numeric,
    )


_SPECS = (
    RuleTypeSpec("RowCount", "Checks the number of rows.", (Signature(()),), ValueKind.NUMBER,
                 _dataset("RowCount"), where=True, dynamic=True, in_analyzers=True),
    RuleTypeSpec("RowCountMatch", "Checks the row count as a ratio of a reference dataset's.",
                 (Signature((ParamKind.ALIAS,)),), ValueKind.NUMBER, _alias("Dataset", "RowCountMatch"),
                 dynamic=True, in_analyzers=True),
    RuleTypeSpec("ColumnCount", "Checks the number of columns.", (Signature(()),), ValueKind.NUMBER,
                 _dataset("ColumnCount"), dynamic=True, in_analyzers=True),
    RuleTypeSpec("ColumnExists", "Checks that a column exists.", (Signature((_C,), _NONE),),
                 ValueKind.NUMBER, lambda params, _: (f"Dataset.{params[0]}.ColumnExists",)),
    RuleTypeSpec("ColumnNamesMatchPattern", "Checks that every column name matches a regex.",
                 (Signature((ParamKind.PATTERN,), _NONE),), ValueKind.NUMBER,
                 _dataset("ColumnNamesPatternMatchRatio")),
    RuleTypeSpec("ColumnDataType", "Checks that a column's values can be cast to a type.",
                 (Signature((_C,)),), ValueKind.DATA_TYPE, _column("ColumnDataType.Compliance"),
                 where=True, threshold=True, row_level=True, in_analyzers=True),
    RuleTypeSpec("ColumnValues", "Checks each value of a column against a condition.", (Signature((_C,)),),
                 ValueKind.COLUMN_VALUES, _column("ColumnValues.Compliance"), where=True, threshold=True,
                 row_level=True, in_analyzers=True),
    RuleTypeSpec("ColumnLength", "Checks the length of each value of a column.", (Signature((_C,)),),
                 ValueKind.NUMBER, _column_length, where=True, row_level=True,
                 in_analyzers=True),
    _one_column("Completeness", "Checks the fraction of non-null values.", row_level=True),
    RuleTypeSpec("IsComplete", "Checks that no value of a column is null.", (Signature((_C,), _NONE),),
                 ValueKind.NUMBER, _column("Completeness"), where=True, row_level=True),
    RuleTypeSpec("Uniqueness", "Checks the fraction of values that occur exactly once.",
                 (Signature((_C,), repeat=_C),), ValueKind.NUMBER, _uniqueness, where=True, dynamic=True,
                 row_level=True, in_analyzers=True),
    RuleTypeSpec("IsUnique", "Checks that every value (or combination of values) is unique.",
                 (Signature((_C,), _NONE, repeat=_C),), ValueKind.NUMBER, _uniqueness, where=True,
                 row_level=True),
    RuleTypeSpec("IsPrimaryKey", "Checks that columns are complete and unique together.",
                 (Signature((_C,), _NONE, repeat=_C),), ValueKind.NUMBER, _primary_key, where=True,
                 row_level=True),
    _one_column("UniqueValueRatio", "Checks unique values divided by distinct values."),
    _one_column("DistinctValuesCount", "Checks the number of distinct values."),
    _one_column("Entropy", "Checks the entropy of a column's values."),
    _one_column("Mean", "Checks the mean of a numeric column.", numeric=True),
    _one_column("Sum", "Checks the sum of a numeric column.", numeric=True),
    _one_column("StandardDeviation", "Checks the standard deviation of a numeric column.", numeric=True),
    _one_column("Variance", "Checks the (population) variance of a numeric column.", numeric=True),
    RuleTypeSpec("ColumnCorrelation", "Checks the Pearson correlation of two numeric columns.",
                 (Signature((_C, _C)),), ValueKind.NUMBER, _correlation, where=True, dynamic=True,
                 in_analyzers=True, numeric_columns=True),
    RuleTypeSpec("CustomSql", "Checks the single value of a SQL statement, or (without a condition) "
                 "the rows it returns.", (Signature((ParamKind.SQL,), _OPTIONAL),), ValueKind.NUMBER,
                 _custom_sql, threshold=True, dynamic=True, row_level=True, in_analyzers=True),
    RuleTypeSpec("DataFreshness", "Checks the age of a date column's values.", (Signature((_C,)),),
                 ValueKind.DURATION, _column("DataFreshness.Compliance"), where=True, row_level=True,
                 in_analyzers=True),
    RuleTypeSpec("ReferentialIntegrity", "Checks that primary column values exist in a reference dataset.",
                 (Signature((ParamKind.COLUMN_LIST, ParamKind.REFERENCE_COLUMNS)),), ValueKind.NUMBER,
                 _referential, dynamic=True, row_level=True, in_analyzers=True),
    RuleTypeSpec("DatasetMatch", "Checks how much of the primary dataset matches a reference dataset.",
                 (Signature((ParamKind.ALIAS, ParamKind.KEY_MAPPINGS)),
                  Signature((ParamKind.ALIAS, ParamKind.KEY_MAPPINGS, ParamKind.KEY_MAPPINGS))),
                 ValueKind.NUMBER, _alias("Dataset", "DatasetMatch"), dynamic=True, in_analyzers=True),
    RuleTypeSpec("SchemaMatch", "Checks how much of the schema matches a reference dataset's.",
                 (Signature((ParamKind.ALIAS,)),), ValueKind.NUMBER, _alias("Dataset", "SchemaMatch"),
                 dynamic=True, in_analyzers=True),
    RuleTypeSpec("AggregateMatch", "Checks the ratio of two aggregations (sum or avg).",
                 (Signature((ParamKind.AGGREGATE, ParamKind.AGGREGATE)),), ValueKind.NUMBER, _aggregate_match,
                 dynamic=True, in_analyzers=True),
    RuleTypeSpec("DetectAnomalies", "Fails when a metric departs from its history.",
                 (Signature((ParamKind.RULE_NAME,), _NONE, repeat=_C),), ValueKind.NUMBER, _anomalies,
                 parameters_text='the name of a rule such as "RowCount", then that rule\'s parameters'),
    RuleTypeSpec("FileFreshness", "Checks the last-modified time of files.",
                 (Signature(()), Signature((ParamKind.PATH,))), ValueKind.DATE,
                 _dataset("FileFreshness.Compliance", "FileCount"), threshold=True, in_analyzers=True),
    RuleTypeSpec("FileSize", "Checks the size of files.", (Signature(()), Signature((ParamKind.PATH,))),
                 ValueKind.SIZE,
                 _dataset("FileSize.Compliance", "FileCount", "MaximumFileSize", "MinimumFileSize"),
                 threshold=True, in_analyzers=True),
    RuleTypeSpec("FileMatch", "Compares files with checksums, or two paths with each other.",
                 (Signature(()), Signature((ParamKind.PATH,)), Signature((ParamKind.PATH, ParamKind.PATH), _NONE)),
                 ValueKind.CHECKSUMS, _dataset("FileCount"), in_analyzers=True),
    RuleTypeSpec("FileUniqueness", "Checks the fraction of files that are not duplicates.",
                 (Signature(()), Signature((ParamKind.PATH,))), ValueKind.NUMBER,
                 _dataset("FileUniquenessRatio", "FileCount"), in_analyzers=True),
    RuleTypeSpec("AllStatistics", "Analyzer only: a column's statistics.", (Signature((_C,)),),
                 ValueKind.NUMBER, _all_statistics, in_rules=False, in_analyzers=True),
)

#: every rule type, by its case-sensitive name
RULE_TYPES: Mapping[str, RuleTypeSpec] = FrozenMap((spec.name, spec) for spec in _SPECS)

_FILE_FILTER_TAGS = ("uriRegex", "recentFiles", "filterOrder")
#: the ``with <tag> = value`` tags each rule type honours (``threshold`` aside). The reference grammar
#: takes any tag name; a rule carrying one its type does not honour fails with Error when evaluated,
#: rather than being evaluated as if the tag were not there.
SUPPORTED_TAGS: Mapping[str, tuple[str, ...]] = FrozenMap({
    "ColumnValues": ("ignoreCase", "timeZone"),
    "ColumnDataType": ("format",),
    "DataFreshness": ("timeZone",),
    "FileFreshness": ("timeZone", *_FILE_FILTER_TAGS),
    "FileSize": _FILE_FILTER_TAGS,
    "FileMatch": ("hashAlgorithm", "matchFileName", *_FILE_FILTER_TAGS),
    "FileUniqueness": ("hashAlgorithm", *_FILE_FILTER_TAGS),
})


def unsupported_tags(rule: Rule) -> list[str]:
    """The tags of ``rule`` that its rule type does not honour."""
    known = SUPPORTED_TAGS.get(rule.rule_type, ())
    return [key for key in rule.tags if key not in known]


def rule_type(name: str) -> RuleTypeSpec:
    """The spec of a rule type; ``KeyError`` for an unknown name."""
    return RULE_TYPES[name]


def metric_names(node: Rule | Analyzer) -> tuple[str, ...]:
    """The metric names Glue reports in ``EvaluatedMetrics`` for a rule or analyzer."""
    name = node.rule_type if isinstance(node, Rule) else node.analyzer_type
    return RULE_TYPES[name].metrics(node.parameters, node)


def is_row_level(rule: Rule) -> bool:
    """Whether ``rule`` yields an outcome per row (CustomSql only in its condition-less form)."""
    spec = RULE_TYPES[rule.rule_type]
    if rule.rule_type == "CustomSql":
        return rule.condition is None
    return spec.row_level
