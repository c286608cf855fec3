"""Grok-based classification: Glue's built-in log classifiers and custom GrokClassifiers.

Glue's built-in classifiers recognise these log formats through grok patterns, in this order:
combined Apache (``combined_apache``), Apache (``apache``), Linux kernel/syslog (``linux_kernel``),
Microsoft IIS W3C (``microsoft_log``), Ruby Logger (``ruby_logger``), Squid 3.x native access log
(``squid``), Redis MONITOR output (``redismonlog``) and the Redis server log (``redislog``). A
built-in classifier matches (certainty 1.0) when every sampled line matches its pattern; a custom
grok classifier's certainty is the fraction of sampled lines its pattern matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from glueball.crawlers.classify.grok import GrokPattern, compile_grok
from glueball.crawlers.classify.models import TEXT_INPUT_FORMAT, TEXT_OUTPUT_FORMAT

GROK_SERDE = "com.amazonaws.glue.serde.GrokSerDe"


@dataclass(frozen=True)
class LogFormat:
    """A built-in log classifier: its classification, grok pattern and private patterns."""

    classification: str
    pattern: str
    custom_patterns: str = ""
    comment_prefix: str | None = None  # lines starting with it are directives, not records


BUILTIN_LOG_FORMATS: tuple[LogFormat, ...] = (
    LogFormat("combined_apache", "%{COMBINEDAPACHELOG}"),
    LogFormat("apache", "%{COMMONAPACHELOG}"),
    LogFormat("linux_kernel", "%{SYSLOGLINE}"),
    LogFormat(
        "microsoft_log",
        "%{IISDATE:date} %{TIME:time} %{IPORHOST:s_ip} %{WORD:cs_method} %{NOTSPACE:cs_uri_stem} "
        "%{NOTSPACE:cs_uri_query} %{INT:s_port} %{NOTSPACE:cs_username} %{IPORHOST:c_ip} "
        "%{NOTSPACE:cs_user_agent} (?:%{NOTSPACE:cs_referer} )?%{INT:sc_status} %{INT:sc_substatus} "
        "%{INT:sc_win32_status} %{INT:time_taken}",
        "IISDATE %{YEAR}-%{MONTHNUM2}-%{MONTHDAY}",
        comment_prefix="#",
    ),
    LogFormat(
        "ruby_logger",
        "%{RUBYSEVERITYCHAR:severity_id}, \\[%{TIMESTAMP_ISO8601:timestamp} #%{POSINT:pid}\\] +"
        "%{RUBYSEVERITY:loglevel} -- +%{DATA:progname}: %{GREEDYDATA:message}",
        "RUBYSEVERITYCHAR [DFEWIUA]\nRUBYSEVERITY (?:DEBUG|FATAL|ERROR|WARN|INFO|UNKNOWN|ANY)",
    ),
    LogFormat(
        "squid",
        "%{NUMBER:timestamp} +%{INT:duration} %{IPORHOST:client_address} %{NOTSPACE:cache_result}/%{INT:status_code} "
        "%{INT:bytes} %{NOTSPACE:request_method} %{NOTSPACE:url} %{NOTSPACE:user} "
        "%{NOTSPACE:hierarchy_code}/%{NOTSPACE:server} %{NOTSPACE:content_type}",
    ),
    LogFormat(
        "redismonlog",
        "%{NUMBER:timestamp} \\[%{INT:database} %{NOTSPACE:client}\\] %{GREEDYDATA:command}",
    ),
    LogFormat(
        "redislog",
        "%{POSINT:pid}:%{REDISROLE:role} %{REDISTIMESTAMP:timestamp} %{REDISLEVEL:level} %{GREEDYDATA:message}",
        "REDISROLE [XCSM]\nREDISTIMESTAMP %{MONTHDAY} %{MONTH} %{YEAR} %{TIME}\nREDISLEVEL [.*#-]",
    ),
)


@cache
def compiled_log_format(log_format: LogFormat) -> GrokPattern:
    """The compiled pattern of a built-in log classifier (compiled once per process)."""
    return compile_grok(log_format.pattern, log_format.custom_patterns or None)


@dataclass
class GrokResult:
    """The outcome of a grok classifier over the sampled lines."""

    certainty: float
    columns: list[tuple[str, str]]
    parameters: dict[str, str]
    serde: dict[str, Any]
    input_format: str
    output_format: str
    records: int
    all_records_read: bool = False


def match_lines(grok: GrokPattern, lines: list[str], comment_prefix: str | None = None,
                all_or_nothing: bool = False) -> tuple[int, int]:
    """How many of the non-empty sampled lines the pattern matches, and how many there were.

    With ``all_or_nothing`` the count stops at the first line that does not match (0 matched).
    """
    matched = total = 0
    for line in lines:
        if not line.strip() or (comment_prefix and line.startswith(comment_prefix)):
            continue
        total += 1
        if grok.match(line) is not None:
            matched += 1
        elif all_or_nothing:
            return 0, total
    return matched, total


def grok_result(grok: GrokPattern, classification: str, custom_patterns: str | None, lines: list[str],
                comment_prefix: str | None = None, all_or_nothing: bool = False) -> GrokResult | None:
    """Apply a grok pattern to the sampled lines; None when no line matches."""
    matched, total = match_lines(grok, lines, comment_prefix, all_or_nothing)
    if not matched:
        return None
    parameters = {"classification": classification, "grokPattern": grok.pattern, "typeOfData": "file"}
    serde_parameters = {"input.format": grok.pattern}
    if custom_patterns:
        parameters["grokCustomPatterns"] = custom_patterns
        serde_parameters["input.grokCustomPatterns"] = custom_patterns
    return GrokResult(
        certainty=matched / total,
        columns=grok.columns,
        parameters=parameters,
        serde={"SerializationLibrary": GROK_SERDE, "Parameters": serde_parameters},
        input_format=TEXT_INPUT_FORMAT,
        output_format=TEXT_OUTPUT_FORMAT,
        records=total,
    )


def classify_builtin_log(lines: list[str]) -> GrokResult | None:
    """The first built-in log classifier whose pattern matches every sampled line."""
    for log_format in BUILTIN_LOG_FORMATS:
        grok = compiled_log_format(log_format)
        result = grok_result(grok, log_format.classification, log_format.custom_patterns or None, lines,
                             log_format.comment_prefix, all_or_nothing=True)
        if result is not None and result.certainty == 1.0:
            return result
    return None
