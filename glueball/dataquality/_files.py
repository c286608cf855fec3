"""The File* rules: FileFreshness, FileSize, FileMatch and FileUniqueness, on file listings (no Spark).

The files are those of the rule's path parameter (an ``s3://`` URI of the process's object store,
or a local path: the file itself, or every file below the folder, Spark's ``_SUCCESS``/``.crc``
bookkeeping excepted), or — without a path — the data's own files as the caller gives them
(``evaluate(files=...)``). Tags as AWS documents them: ``uriRegex`` keeps files whose URI matches,
``recentFiles`` the newest k, in the order ``filterOrder`` gives (default: uriRegex, then
recentFiles); ``hashAlgorithm`` (MD5, SHA-1, SHA-256; default MD5) for checksums; ``matchFileName``
for FileMatch between two paths; ``timeZone`` for times of day.

- FileFreshness: every file (or the threshold's fraction) was modified as the condition says;
  metrics ``Dataset.*.FileFreshness.Compliance`` and ``Dataset.*.FileCount``.
- FileSize: every file's size (bytes; ``2 MB`` is 2·1024² bytes) meets the condition; metrics add
  ``MaximumFileSize`` and ``MinimumFileSize``.
- FileMatch: with checksums, every file's checksum meets ``in [...]`` / ``= "..."``; with two paths,
  every file of the first has a file with the same checksum (and name, with ``matchFileName``) in
  the second.
- FileUniqueness: the fraction of files whose checksum no other file has.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from collections.abc import Sequence

from glueball.dataquality._measure_types import Measure, MetricError, Metrics
from glueball.dataquality._operands import Resolver, satisfies
from glueball.dataquality.ast import Comparison, InList, Rule, StringLiteral
from glueball.dataquality.outcomes import FileInfo, constraint_not_met
from glueball.dataquality.planner import PlanError

__all__ = ["checksum", "file_analyzer", "file_measure", "list_files"]

_HASHES = {"MD5": "md5", "SHA-1": "sha1", "SHA-256": "sha256"}


def list_files(uri: str) -> list[FileInfo]:
    """The files of ``uri`` (a file, or every file below a folder)."""
    from glueball.objects.access import walk_location

    found = [FileInfo(location, entry.size, dt.datetime.fromtimestamp(entry.mtime, dt.UTC))
             for location, entry in walk_location(uri) if not _bookkeeping(entry.name)]
    if not found:
        raise PlanError(f"No files found at {uri}")
    return found


def _bookkeeping(relative: str) -> bool:
    return any(part.startswith(("_", ".")) or part.endswith(".crc") for part in relative.split("/"))


def checksum(file: FileInfo, algorithm: str = "MD5") -> str:
    """The hex digest of the file's bytes (the given checksum when it is of that algorithm)."""
    if file.checksum and file.hash_algorithm.upper() == algorithm.upper():
        return file.checksum
    from glueball.objects.access import open_location

    digest = hashlib.new(_HASHES[algorithm.upper()])
    with open_location(file.path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _select(rule: Rule, files: list[FileInfo]) -> list[FileInfo]:
    order = rule.tags.get("filterOrder") or ("uriRegex", "recentFiles")
    for step in order if isinstance(order, tuple) else (str(order),):
        if step == "uriRegex" and "uriRegex" in rule.tags:
            pattern = re.compile(str(rule.tags["uriRegex"]))
            files = [f for f in files if pattern.search(f.path)]
        elif step == "recentFiles" and "recentFiles" in rule.tags:
            count = int(rule.tags["recentFiles"])  # type: ignore[arg-type]
            files = sorted(files, key=lambda f: f.modified, reverse=True)[:count]
    return files


def _files(rule: Rule, given: Sequence[FileInfo] | None, path: str | None) -> list[FileInfo]:
    if path is not None:
        found = list_files(path)
    elif given is not None:
        found = list(given)
    else:
        raise PlanError(f"{rule.rule_type} without a path needs the data's files, and none were given")
    found = [f if f.modified.tzinfo else FileInfo(f.path, f.size, f.modified.replace(tzinfo=dt.UTC), f.checksum,
                                                   f.hash_algorithm) for f in found]
    return _select(rule, found)


def file_measure(rule: Rule, given: Sequence[FileInfo] | None, now: dt.datetime, resolver: Resolver) -> Measure:
    """The measure of one File* rule (its files are listed now; checksums read when decided)."""
    kind = rule.rule_type
    paths = [str(p) for p in rule.parameters]
    files = _files(rule, given, paths[0] if paths else None)
    count = float(len(files))
    if kind == "FileMatch" and len(paths) == 2:
        return _match_paths(rule, files, _files(rule, None, paths[1]))
    if kind == "FileUniqueness":
        algorithm = str(rule.tags.get("hashAlgorithm", "MD5"))

        def uniqueness() -> Metrics:
            if not files:
                raise MetricError("No files to evaluate")
            sums = Counter(checksum(f, algorithm) for f in files)
            ratio = sum(1 for f in files if sums[checksum(f, algorithm)] == 1) / len(files)
            return {"Dataset.*.FileUniquenessRatio": ratio, "Dataset.*.FileCount": count}

        return Measure(uniqueness, compared="Dataset.*.FileUniquenessRatio")
    if kind == "FileMatch":
        return _match_checksums(rule, files)
    assert rule.condition is not None
    condition = rule.condition
    if kind == "FileFreshness":
        name = "Dataset.*.FileFreshness.Compliance"
        passing = [satisfies(condition, f.modified.timestamp(), resolver) for f in files]
        extra: Metrics = {}
    else:
        name = "Dataset.*.FileSize.Compliance"
        passing = [satisfies(condition, float(f.size), resolver) for f in files]
        extra = {"Dataset.*.MaximumFileSize": float(max((f.size for f in files), default=0)),
                 "Dataset.*.MinimumFileSize": float(min((f.size for f in files), default=0))}
    compliance = sum(passing) / len(files) if files else None

    def metrics() -> Metrics:
        return {name: compliance, "Dataset.*.FileCount": count, **extra}

    def decide(_: Metrics) -> str | None:
        if compliance is None:
            raise MetricError("No files to evaluate")
        ok = satisfies(rule.threshold, compliance, resolver) if rule.threshold is not None else compliance == 1.0
        return None if ok else constraint_not_met(compliance)

    return Measure(metrics, compared=name, decide=decide)


def file_analyzer(kind: str, parameters: tuple[str, ...], given: Sequence[FileInfo] | None) -> Measure:
    """A File* analyzer: the metrics its rule reports that need no condition.

    ``Dataset.*.FileCount`` for each; FileSize adds ``MaximumFileSize`` and ``MinimumFileSize``,
    FileUniqueness ``FileUniquenessRatio`` (MD5 checksums: an analyzer takes no tags).
    """
    files = _files(Rule(kind, parameters), given, parameters[0] if parameters else None)
    count = float(len(files))

    def metrics() -> Metrics:
        found: Metrics = {"Dataset.*.FileCount": count}
        if kind == "FileSize" and files:
            found["Dataset.*.MaximumFileSize"] = float(max(f.size for f in files))
            found["Dataset.*.MinimumFileSize"] = float(min(f.size for f in files))
        if kind == "FileUniqueness" and files:
            sums = Counter(checksum(f) for f in files)
            found["Dataset.*.FileUniquenessRatio"] = sum(1 for n in sums.values() if n == 1) / len(files)
        return found

    return Measure(metrics)


def _match_checksums(rule: Rule, files: list[FileInfo]) -> Measure:
    algorithm = str(rule.tags.get("hashAlgorithm", "MD5"))
    condition = rule.condition
    if isinstance(condition, Comparison) and isinstance(condition.operand, StringLiteral):
        wanted, negated = {condition.operand.value.lower()}, condition.operator == "!="
    elif isinstance(condition, InList):
        wanted = {v.value.lower() for v in condition.values if isinstance(v, StringLiteral)}
        negated = condition.negated
    else:
        raise PlanError('FileMatch compares checksums: in ["<checksum>", ...] or = "<checksum>"')

    def decide(_: Metrics) -> str | None:
        if not files:
            raise MetricError("No files to evaluate")
        misfits = [f.path for f in files if (checksum(f, algorithm).lower() in wanted) == negated]
        return None if not misfits else f"Files whose {algorithm} checksum does not match: {', '.join(misfits)}"

    return Measure(lambda: {"Dataset.*.FileCount": float(len(files))}, decide=decide)


def _match_paths(rule: Rule, files: list[FileInfo], others: list[FileInfo]) -> Measure:
    algorithm = str(rule.tags.get("hashAlgorithm", "MD5"))
    by_name = str(rule.tags.get("matchFileName", "false")) == "true"

    def decide(_: Metrics) -> str | None:
        if not files:
            raise MetricError("No files to evaluate")
        known = {(checksum(f, algorithm), _name(f) if by_name else "") for f in others}
        misfits = [f.path for f in files if (checksum(f, algorithm), _name(f) if by_name else "") not in known]
        return None if not misfits else f"Files without a match in {rule.parameters[1]}: {', '.join(misfits)}"

    return Measure(lambda: {"Dataset.*.FileCount": float(len(files))}, decide=decide)


def _name(file: FileInfo) -> str:
    return file.path.rstrip("/").rsplit("/", 1)[-1]
