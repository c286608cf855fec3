"""Choosing a file's classification: custom classifiers first, then Glue's built-in ones.

AWS Glue invokes the crawler's custom classifiers first, in the order the crawler lists them; the
first that returns certainty 1.0 decides. Otherwise the built-in classifiers run in the documented
order — Avro, ORC, Parquet, JSON, (binary JSON, Ion: not supported here), XML, combined Apache log,
Apache log, Linux kernel log, Microsoft log, Ruby log, Squid 3.x log, Redis monitor log, Redis log,
CSV — each returning 1.0 (match) or 0.0. The first 1.0 wins; if none, the highest certainty above
0.0 (a custom grok classifier that matched only some lines); if none at all, the file is UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from glueball.crawlers.classify.csvfile import CsvOptions, classify_csv
from glueball.crawlers.classify.formats import binary_format, classify_avro, classify_orc, classify_parquet
from glueball.crawlers.classify.grok import GrokError, compile_grok
from glueball.crawlers.classify.jsonfile import ARRAY_COLUMN, classify_json
from glueball.crawlers.classify.logs import classify_builtin_log, grok_result
from glueball.crawlers.classify.models import Classification, FileSample
from glueball.crawlers.classify.sampling import (
    JSON_MAX_PREFIX_BYTES,
    MEGABYTE,
    TEXT_PREFIX_BYTES,
    Prefix,
    complete_lines,
    decode_text,
    read_prefix,
)
from glueball.crawlers.classify.xmlfile import classify_xml

CUSTOM_CLASSIFIER_KINDS = ("GrokClassifier", "XMLClassifier", "JsonClassifier", "CsvClassifier")


@dataclass
class _TextSample:
    text: str
    prefix: Prefix

    @property
    def complete(self) -> bool:
        return self.prefix.complete

    def lines(self) -> list[str]:
        return complete_lines(self.text, self.prefix.complete)


class _Sampler:
    """Lazily read (and cache) the decompressed beginning of a file."""

    def __init__(self, sample: FileSample) -> None:
        self.sample = sample
        self._texts: dict[int, _TextSample | None] = {}

    def text(self, limit: int = TEXT_PREFIX_BYTES) -> _TextSample | None:
        if limit not in self._texts:
            with self.sample.open() as stream:
                prefix = read_prefix(stream, limit)
            decoded = None if prefix.corrupt else decode_text(prefix.data, prefix.complete)
            self._texts[limit] = _TextSample(decoded, prefix) if decoded is not None else None
        return self._texts[limit]


def _estimates(records: int, sampled_bytes: int, all_read: bool, prefix: Prefix,
               size: int) -> tuple[int | None, int | None]:
    """recordCount and averageRecordSize as a crawler estimates them from its sample."""
    if records <= 0:
        return None, None
    if all_read:
        return records, max(1, size // records)
    stored_per_byte = prefix.stored_bytes / max(1, len(prefix.data))
    average = max(1, round(sampled_bytes * stored_per_byte / records))
    return max(records, size // average), average


def _finish(result: Any, classification: str, sample: _TextSample, size: int, sampled_bytes: int,
            custom: str | None = None) -> Classification:
    parameters = {**result.parameters, "classification": classification,
                  "compressionType": sample.prefix.compression}
    records, average = _estimates(result.records, sampled_bytes, result.all_records_read, sample.prefix, size)
    return Classification(
        classification=classification,
        columns=result.columns,
        parameters=parameters,
        serde=result.serde,
        input_format=result.input_format,
        output_format=result.output_format,
        record_count=records,
        average_record_size=average,
        custom_classifier=custom,
    )


def _json(sampler: _Sampler, json_path: str | None, sample_records: int, size: int,
          custom: str | None = None) -> Classification | None:
    """JSON from 1 MB, then up to 10 MB in 1 MB steps while no valid record is found."""
    limit = TEXT_PREFIX_BYTES
    while True:
        sample = sampler.text(limit)
        if sample is None or sample.text.lstrip()[:1] not in ("{", "["):
            return None
        result = classify_json(sample.text, sample.complete, json_path, sample_records)
        if result is not None:
            sampled = len(sample.text[:result.sampled_chars].encode())
            if result.columns and result.columns[0][0] == ARRAY_COLUMN and json_path is None:
                sampled = size
            return _finish(result, "json", sample, size, sampled, custom)
        if sample.complete or limit >= JSON_MAX_PREFIX_BYTES:
            return None
        limit += MEGABYTE


def _csv(sampler: _Sampler, options: CsvOptions, sample_records: int, size: int,
         custom: str | None = None) -> Classification | None:
    sample = sampler.text()
    if sample is None:
        return None
    result = classify_csv(sample.lines(), sample.complete, options, sample_records)
    if result is None:
        return None
    return _finish(result, "csv", sample, size, result.sampled_bytes, custom)


def _xml(sampler: _Sampler, row_tag: str | None, classification: str, sample_records: int, size: int,
         custom: str | None = None) -> Classification | None:
    sample = sampler.text()
    if sample is None:
        return None
    result = classify_xml(sample.text, sample.complete, row_tag, classification, sample_records)
    if result is None:
        return None
    sampled = len(sample.text.encode()) if not result.all_records_read else size
    return _finish(result, classification, sample, size, sampled, custom)


def _sampled_lines(sample: _TextSample, sample_records: int) -> tuple[list[str], int]:
    lines = [line for line in sample.lines() if line.strip()][:sample_records]
    return lines, sum(len(line.encode()) + 1 for line in lines)


def _all_lines_sampled(sample: _TextSample, lines: list[str]) -> bool:
    return sample.complete and len(lines) == sum(1 for line in sample.lines() if line.strip())


def _custom(spec: dict[str, Any], sampler: _Sampler, sample_records: int,
            size: int) -> tuple[float, Classification | None]:
    """Run one custom classifier (a wire ``Classifier`` structure); returns its certainty and result."""
    kind = next((k for k in CUSTOM_CLASSIFIER_KINDS if spec.get(k)), None)
    if kind is None:
        raise ValueError(f"not a custom classifier structure: {sorted(spec)}")
    body = spec[kind]
    name = body.get("Name")
    if kind == "GrokClassifier":
        sample = sampler.text()
        if sample is None:
            return 0.0, None
        try:
            grok = compile_grok(body["GrokPattern"], body.get("CustomPatterns"))
        except GrokError:
            return 0.0, None
        lines, sampled = _sampled_lines(sample, sample_records)
        result = grok_result(grok, body["Classification"], body.get("CustomPatterns"), lines)
        if result is None:
            return 0.0, None
        result.all_records_read = _all_lines_sampled(sample, lines)
        return result.certainty, _finish(result, body["Classification"], sample, size, sampled, name)
    if kind == "XMLClassifier":
        classification = body.get("Classification") or "xml"
        found = _xml(sampler, body.get("RowTag") or None, classification, sample_records, size, name)
    elif kind == "JsonClassifier":
        found = _json(sampler, body["JsonPath"], sample_records, size, name)
    else:
        found = _csv(sampler, CsvOptions.from_classifier(body), sample_records, size, name)
    return (1.0, found) if found is not None else (0.0, None)


def _magic(sample: FileSample, size: int) -> tuple[bytes, bytes]:
    """The first and last bytes of the stored object (for the binary formats' magic numbers)."""
    with sample.open() as stream:
        head = stream.read(8)
        tail = b""
        if len(head) == 8 and size >= 8:
            stream.seek(-4, 2)
            tail = stream.read(4)
    return head, tail


def _builtin_binary(sample: FileSample, kind: str, size: int) -> Classification | None:
    classify_binary: Callable[[BinaryIO, int], Classification | None] = {
        "avro": classify_avro, "orc": classify_orc, "parquet": classify_parquet}[kind]
    with sample.open() as stream:
        return classify_binary(stream, size)


def _builtin_text(sampler: _Sampler, sample_records: int, size: int) -> Classification | None:
    found = _json(sampler, None, sample_records, size)
    if found is not None:
        return found
    found = _xml(sampler, None, "xml", sample_records, size)
    if found is not None:
        return found
    sample = sampler.text()
    if sample is None:
        return None
    lines, sampled = _sampled_lines(sample, sample_records)
    log = classify_builtin_log(lines)
    if log is not None:
        log.all_records_read = _all_lines_sampled(sample, lines)
        return _finish(log, log.parameters["classification"], sample, size, sampled)
    return _csv(sampler, CsvOptions(), sample_records, size)


def classify(sample: FileSample, custom: list[dict[str, Any]], sample_records: int = 1000) -> Classification | None:
    """Classify one file the way a Glue crawler does.

    Args:
        sample: the file.
        custom: the crawler's custom classifiers, as wire ``Classifier`` structures (each with one of
            ``GrokClassifier``, ``XMLClassifier``, ``JsonClassifier``, ``CsvClassifier``), in the
            crawler's order.
        sample_records: how many records of a text file to infer the schema from (Glue: 1,000).

    Returns:
        The classification, or None when the file is UNKNOWN (empty, binary or unrecognised).
        Only a bounded prefix (text formats), the header (Avro) or the footer (ORC/Parquet) is read.
    """
    size = sample.size
    head, tail = _magic(sample, size)
    if not head:
        return None
    sampler = _Sampler(sample)
    best: tuple[float, Classification] | None = None
    for spec in custom:
        certainty, found = _custom(spec, sampler, sample_records, size)
        if found is None or certainty <= 0.0:
            continue
        if certainty >= 1.0:
            return found
        if best is None or certainty > best[0]:
            best = (certainty, found)
    kind = binary_format(head, tail)
    builtin = _builtin_binary(sample, kind, size) if kind else None
    if builtin is None:
        builtin = _builtin_text(sampler, sample_records, size)
    if builtin is not None:
        return builtin
    return best[1] if best is not None else None
