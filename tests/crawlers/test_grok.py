"""The Grok engine: built-in patterns, custom patterns, typed fields, whole-line matching."""

from __future__ import annotations

import pytest

from glueball.crawlers.classify import GrokError, compile_grok
from glueball.crawlers.classify.grok_patterns import BUILTIN_PATTERNS
from glueball.crawlers.classify.logs import BUILTIN_LOG_FORMATS, compiled_log_format

COMBINED = ('203.0.113.9 - alice [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif?x=1 HTTP/1.0" 200 2326 '
            '"http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"')


def test_every_documented_builtin_pattern_compiles() -> None:
    documented = {
        "USERNAME", "USER", "INT", "BASE10NUM", "NUMBER", "BASE16NUM", "BASE16FLOAT", "BOOLEAN", "POSINT",
        "NONNEGINT", "WORD", "NOTSPACE", "SPACE", "DATA", "GREEDYDATA", "QUOTEDSTRING", "UUID", "MAC", "CISCOMAC",
        "WINDOWSMAC", "COMMONMAC", "IPV6", "IPV4", "IP", "HOSTNAME", "HOST", "IPORHOST", "HOSTPORT", "PATH",
        "UNIXPATH", "TTY", "WINPATH", "URIPROTO", "URIHOST", "URIPATH", "URIPARAM", "URIPATHPARAM", "URI", "MONTH",
        "MONTHNUM", "MONTHNUM2", "MONTHDAY", "DAY", "YEAR", "HOUR", "MINUTE", "SECOND", "TIME", "DATE_US",
        "DATE_EU", "DATESTAMP_US", "DATESTAMP_EU", "ISO8601_TIMEZONE", "ISO8601_SECOND", "TIMESTAMP_ISO8601",
        "TZ", "DATESTAMP_RFC822", "DATESTAMP_RFC2822", "DATESTAMP_OTHER", "DATESTAMP_EVENTLOG", "CISCOTIMESTAMP",
        "SYSLOGTIMESTAMP", "PROG", "SYSLOGPROG", "SYSLOGHOST", "SYSLOGFACILITY", "HTTPDATE", "QS", "SYSLOGBASE",
        "MESSAGESLOG", "COMMONAPACHELOG", "COMBINEDAPACHELOG", "LOGLEVEL",
    }
    assert documented <= set(BUILTIN_PATTERNS)
    for name in documented:
        compile_grok(f"%{{{name}}}")


@pytest.mark.parametrize(("pattern", "good", "bad"), [
    ("INT", ["0", "-12", "+7"], ["1.5", "a", ""]),
    ("NUMBER", ["3.25", "-4", ".5"], ["1..2", "x1"]),
    ("POSINT", ["1", "42"], ["0", "-1", "07"]),
    ("WORD", ["hello_1"], ["two words", "a-b"]),
    ("NOTSPACE", ["a/b?c=d"], ["a b"]),
    ("IPV4", ["10.0.0.1", "255.255.255.255"], ["256.1.1.1", "1.2.3", "1.2.3.4.5"]),
    ("IPV6", ["::1", "fe80::1%eth0", "2001:db8::ff00:42:8329", "1:2:3:4:5:6:7:8", "::ffff:10.0.0.1"],
     ["1::2::3", "12345::", "1:2:3:4:5:6:7:8:9"]),
    ("IP", ["192.168.1.1", "::"], ["999.1.1.1"]),
    ("HOSTNAME", ["example.com", "a-b.c_d.org"], ["-bad.com", "a..b"]),
    ("IPORHOST", ["www.example.com", "10.1.2.3"], ["has space"]),
    ("HOSTPORT", ["db.local:5432"], ["db.local:"]),
    ("UUID", ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567-e89b-12d3-a456"]),
    ("QUOTEDSTRING", ['"a \\"quoted\\" word"', "'single'", '""'], ['"open', "plain"]),
    ("URIPATH", ["/a/b.html", "/"], ["a/b"]),
    ("URIPARAM", ["?a=1&b=2"], ["a=1"]),
    ("URI", ["https://user@example.com:8443/p/q?x=1", "s3://bucket/key"], ["example.com/p"]),
    ("PATH", ["/var/log/syslog", "C:\\Windows\\system32"], ["relative/path"]),
    ("MONTH", ["Jan", "September", "Sept"], ["Janu", "13"]),
    ("MONTHNUM", ["1", "09", "12"], ["13", "00"]),
    ("MONTHDAY", ["1", "09", "31"], ["32", "00"]),
    ("DAY", ["Mon", "Thursday"], ["Mo"]),
    ("YEAR", ["2026", "26"], ["202"]),
    ("TIME", ["23:59:59", "01:02:03.456"], ["24:00:00", "12:60:00", "12:00"]),
    ("DATE_US", ["06/08/2026", "6-8-26"], ["2026-06-08"]),
    ("DATE_EU", ["08.06.2026", "8/6/26"], ["2026.06.08"]),
    ("ISO8601_TIMEZONE", ["Z", "+02:00", "-0530"], ["+2"]),
    ("TIMESTAMP_ISO8601", ["2026-06-08T10:15:30Z", "2026-06-08 10:15:30.123+02:00", "2026-06-08T10:15"],
     ["2026-06-08", "08-06-2026T10:15:30"]),
    ("HTTPDATE", ["10/Oct/2000:13:55:36 -0700"], ["10/10/2000:13:55:36 -0700"]),
    ("SYSLOGTIMESTAMP", ["Jun  8 10:00:01", "Dec 31 23:59:59"], ["2026-06-08 10:00:01"]),
    ("LOGLEVEL", ["INFO", "warning", "Error", "EMERGENCY"], ["verbose"]),
    ("BOOLEAN", ["true", "FALSE"], ["yes"]),
    ("COMMONMAC", ["00:1a:2b:3c:4d:5e"], ["00:1a:2b:3c:4d"]),
])
def test_builtin_patterns_match_whole_values(pattern: str, good: list[str], bad: list[str]) -> None:
    grok = compile_grok(f"%{{{pattern}:value}}")
    for value in good:
        assert grok.match(value) == {"value": value}, f"{pattern} should match {value!r}"
    for value in bad:
        assert grok.match(value) is None, f"{pattern} should not match {value!r}"


def test_combined_apache_log_fields() -> None:
    grok = compile_grok("%{COMBINEDAPACHELOG}")
    fields = grok.match(COMBINED)
    assert fields is not None
    assert fields["clientip"] == "203.0.113.9"
    assert fields["auth"] == "alice"
    assert fields["timestamp"] == "10/Oct/2000:13:55:36 -0700"
    assert fields["verb"] == "GET"
    assert fields["request"] == "/apache_pb.gif?x=1"
    assert fields["httpversion"] == "1.0"
    assert fields["response"] == "200"
    assert fields["bytes"] == "2326"
    assert fields["referrer"] == '"http://www.example.com/start.html"'
    assert fields["agent"] == '"Mozilla/4.08 [en] (Win98; I ;Nav)"'
    assert [name for name, _ in grok.columns] == [
        "clientip", "ident", "auth", "timestamp", "verb", "request", "httpversion", "rawrequest", "response",
        "bytes", "referrer", "agent"]
    assert compile_grok("%{COMMONAPACHELOG}").match(COMBINED) is None  # anchored: trailing text fails


def test_custom_patterns_and_types_from_the_glue_docs() -> None:
    custom = "CRAWLERLOGLEVEL (BENCHMARK|ERROR|WARN|INFO|TRACE)\nMESSAGEPREFIX .*-.*-.*-.*-.*"
    grok = compile_grok(
        r"%{TIMESTAMP_ISO8601:timestamp} \[%{MESSAGEPREFIX:message_prefix}\] %{CRAWLERLOGLEVEL:loglevel} : "
        r"%{GREEDYDATA:message}", custom)
    assert grok.columns == [("timestamp", "string"), ("message_prefix", "string"), ("loglevel", "string"),
                            ("message", "string")]
    line = "2026-06-08T10:00:00Z [a-b-c-d-e] BENCHMARK : Crawler started"
    assert grok.match(line) == {"timestamp": "2026-06-08T10:00:00Z", "message_prefix": "a-b-c-d-e",
                                "loglevel": "BENCHMARK", "message": "Crawler started"}
    assert grok.match(line.replace("BENCHMARK", "DEBUG")) is None


@pytest.mark.parametrize(("suffix", "hive"), [
    ("int", "int"), ("long", "bigint"), ("short", "smallint"), ("byte", "tinyint"), ("double", "double"),
    ("float", "float"), ("boolean", "boolean"), ("string", "string"),
])
def test_field_type_suffixes(suffix: str, hive: str) -> None:
    assert compile_grok(f"%{{NUMBER:n:{suffix}}}").columns == [("n", hive)]


def test_errors() -> None:
    with pytest.raises(GrokError, match="unknown grok pattern"):
        compile_grok("%{NOPE:x}")
    with pytest.raises(GrokError, match="unsupported grok data type"):
        compile_grok("%{INT:x:decimal}")
    with pytest.raises(GrokError, match="references itself"):
        compile_grok("%{A}", "A x%{B}\nB y%{A}")
    with pytest.raises(GrokError, match="not 'NAME regex'"):
        compile_grok("%{INT}", "JUSTANAME")
    with pytest.raises(GrokError, match="not a valid regular expression"):
        compile_grok("%{BAD:x}", "BAD (unclosed")


def test_oniguruma_named_groups_and_inline_flags() -> None:
    grok = compile_grok(r"(?<level>DEBUG|INFO) %{GREEDYDATA:rest}")
    assert grok.match("INFO hello") == {"level": "INFO", "rest": "hello"}
    insensitive = compile_grok(r"%{WORD:w} (?i)done")
    assert insensitive.match("job DONE") == {"w": "job"}


def test_custom_pattern_overrides_and_reuses_builtins() -> None:
    grok = compile_grok("%{ORDER:order:int} %{WORD:state}", "ORDERID %{INT}\nORDER ORD-%{ORDERID}")
    assert grok.match("ORD-42 shipped") == {"order": "ORD-42", "state": "shipped"}
    assert grok.columns == [("order", "int"), ("state", "string")]
    assert compile_grok("%{INT:i}", "INT x+").match("xx") == {"i": "xx"}


def test_unwanted_fields_are_not_columns() -> None:
    assert compile_grok("%{USER:UNWANTED} %{INT:n}").columns == [("n", "string")]


@pytest.mark.parametrize(("classification", "line"), [
    ("combined_apache", COMBINED),
    ("apache", '192.0.2.1 - - [08/Jun/2026:10:00:00 +0000] "POST /api HTTP/1.1" 201 -'),
    ("linux_kernel", "Jun  8 10:00:01 web-1 kernel: [12345.678] eth0: link up"),
    ("microsoft_log", "2026-06-08 10:00:00 10.0.0.1 GET /index.html - 80 - 10.0.0.2 Mozilla/5.0 200 0 0 15"),
    ("ruby_logger", "I, [2026-06-08T10:00:00.123456 #4242]  INFO -- app: started"),
    ("squid", "1286536309.586    921 192.168.0.68 TCP_MISS/200 507 POST http://rcv.example.com/x - "
              "DIRECT/203.0.113.10 application/xml"),
    ("redismonlog", '1339518083.107412 [0 127.0.0.1:60866] "keys" "*"'),
    ("redislog", "4242:M 08 Jun 2026 10:00:00.123 * Ready to accept connections"),
])
def test_builtin_log_formats_recognise_their_lines(classification: str, line: str) -> None:
    matching = [f.classification for f in BUILTIN_LOG_FORMATS if compiled_log_format(f).match(line) is not None]
    assert matching and matching[0] == classification
