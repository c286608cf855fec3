"""Crawler targets: Glue exclude globs, object-store listings, folder grouping, JDBC metadata."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from glueball.crawlers.grouping import Grouper, Unit, group_at_level, partition_keys, sanitize_name
from glueball.crawlers.targets import (
    Exclusions,
    TargetError,
    hive_type,
    list_jdbc_tables,
    list_s3_target,
    parse_jdbc_url,
)
from tools import services


@pytest.mark.parametrize(("pattern", "path", "matches"), [
    ("*.tmp", "a.tmp", True),
    ("*.tmp", "dir/a.tmp", False),          # * stays inside one folder
    ("**.tmp", "dir/sub/a.tmp", True),      # ** crosses folders
    ("**/_temporary/**", "year=1/_temporary/0/part", True),
    ("**/_temporary/**", "_temporary/0/part", True),
    ("**/_temporary/**", "year=1/temporary/part", False),
    ("departments/**", "departments/hr/a.csv", True),
    ("departments/**", "finance/a.csv", False),
    ("file?.csv", "file1.csv", True),
    ("file?.csv", "file10.csv", False),
    ("[ab]*.json", "b1.json", True),
    ("[!ab]*.json", "b1.json", False),
    ("[!ab]*.json", "c1.json", True),
    ("*.{csv,avro}", "x.avro", True),
    ("*.{csv,avro}", "x.json", False),
    ("2015/0[1-3]/**", "2015/02/x", True),
    ("2015/0[1-3]/**", "2015/04/x", False),
    ("a\\*b", "a*b", True),
    ("a\\*b", "axb", False),
])
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert Exclusions([pattern]).excludes(path) is matches


def _write(root: Path, relative: str, text: str = "x") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GLUEBALL_HOME", str(tmp_path))
    return tmp_path


def test_listing_skips_hidden_excluded_and_known_folders(home: Path) -> None:
    root = home / "s3" / "bkt" / "data"
    for relative in ["a.json", "_SUCCESS", ".part.crc", "x_$folder$", "junk.tmp", "d=1/b.json", "d=2/c.json",
                     "d=2/_temporary/0/t.json", "d=3/e.json"]:
        _write(root, relative)
    listing = list_s3_target("s3://bkt/data/", Exclusions(["**/_temporary/**", "*.tmp"]), {"d=3"})
    found = {f.relative: [e.name for e in f.files] for f in listing.folders}
    assert found == {"": ["a.json"], "d=1": ["b.json"], "d=2": ["c.json"]}
    assert listing.hidden == 3 and listing.excluded == 2 and listing.skipped_known == 1
    entry = listing.folders[1].files[0]
    assert entry.uri == "s3://bkt/data/d=1/b.json" and entry.size == 1


def test_listing_a_single_object_and_a_missing_prefix(home: Path) -> None:
    _write(home / "s3" / "bkt", "one/file.csv", "a,b\n")
    single = list_s3_target("s3://bkt/one/file.csv", Exclusions(None))
    assert single.single_file and single.folders[0].files[0].uri == "s3://bkt/one/file.csv"
    assert list_s3_target("s3://bkt/nothing/", Exclusions(None)).folders == []
    with pytest.raises(TargetError):
        list_s3_target("/not/s3", Exclusions(None))


@pytest.mark.parametrize("uri", ["s3://../../../../tmp/x/", "s3://bkt/../../etc/", "s3://bkt/a/./b/",
                                 "s3://bkt/a\\b/", "s3:///nobucket/"])
def test_a_target_that_would_leave_the_object_store_is_refused_naming_it(home: Path, uri: str) -> None:
    outside = home.parent / "outside.csv"
    outside.write_text("a,b\n")
    with pytest.raises(TargetError, match="refused") as raised:
        list_s3_target(uri, Exclusions(None))
    assert repr(uri) in str(raised.value)


# ---------------------------------------------------------------------------------------- grouping


def _merge(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    """A stand-in for the classifiers' merge: similar when 70% of all distinct names are shared."""
    names_a, names_b = {n for n, _ in a}, {n for n, _ in b}
    union = names_a | names_b
    if union and len(names_a & names_b) / len(union) < 0.7:
        return None
    return a + [c for c in b if c[0] not in names_a]


def _unit(folder: str, *columns: str, fmt: str = "json", file_level: bool = False) -> Unit:
    return Unit(folder, (fmt,), [(c, "string") for c in columns], name=f"{fmt}.{fmt}", file_level=file_level)


def test_sibling_folders_of_similar_schemas_are_partitions() -> None:
    units = [_unit(f"year={y}/month={m}", "id", "name", "ts") for y in (2025, 2026) for m in ("01", "02")]
    units.append(_unit("year=2026/month=03", "id", "name", "ts", "email"))  # an evolving schema
    [table] = Grouper(_merge).group(units)
    assert table.root == "" and table.depth == 2 and table.partition_keys == ["year", "month"]
    assert [table.partition_values(u) for u in table.units][-1] == ["2026", "03"]
    assert [c for c, _ in table.columns] == ["id", "name", "ts", "email"]


def test_dissimilar_siblings_become_tables_named_after_their_folders() -> None:
    units = [_unit("orders/2026/01", "order_id", "amount"), _unit("orders/2026/02", "order_id", "amount"),
             _unit("customers/x", "name", "email", "phone")]
    tables = Grouper(_merge).group(units)
    assert sorted((t.root, t.depth) for t in tables) == [("customers", 1), ("orders", 2)]
    orders = next(t for t in tables if t.root == "orders")
    assert orders.partition_keys == ["partition_0", "partition_1"]
    # compatible formats combine into one table under CombineCompatibleSchemas
    [combined] = Grouper(_merge, combine_compatible=True).group(units[:2] + [_unit("customers/x/y", "name")])
    assert combined.root == "" and combined.depth == 3


def test_format_and_depth_mismatches_split_tables() -> None:
    tables = Grouper(_merge, combine_compatible=True).group([_unit("a/1", "x"), _unit("b/1", "x", fmt="csv")])
    assert sorted(t.root for t in tables) == ["a", "b"]
    tables = Grouper(_merge).group([_unit("t/p=1", "x"), _unit("t/p=2/q=1", "x")])
    assert sorted((t.root, t.depth) for t in tables) == [("t/p=1", 0), ("t/p=2", 1)]


def test_mixed_files_in_one_folder_make_file_level_tables() -> None:
    tables = Grouper(_merge).group([_unit("raw", "a", "b"), _unit("raw", "x", fmt="csv", file_level=True)])
    assert sorted((t.root, t.file_level) for t in tables) == [("raw", False), ("raw/csv.csv", True)]


def test_table_level_places_tables_at_an_absolute_level() -> None:
    units = [_unit(f"year={y}/month={m}/day=1", "id") for y in (2025, 2026) for m in (1, 2)]
    units.append(_unit("year=2026/month=3/day=1", "other", fmt="csv"))
    # include path s3://bucket/mydataset/ is level 2; level 3 puts tables at mydataset/year=...
    tables, rejected = group_at_level(units, 3, 2, _merge)
    assert [(t.root, t.partition_keys, len(t.units)) for t in tables] == [
        ("year=2025", ["month", "day"], 2), ("year=2026", ["month", "day"], 2)]
    assert [u.folder for u in rejected] == ["year=2026/month=3/day=1"]


def test_names_and_keys() -> None:
    assert sanitize_name("Year=2017") == "year_2017" and sanitize_name("my-data.v2") == "my_data_v2"
    assert partition_keys([["Year=1", "x"], ["Year=2", "y"]], 2) == ["year", "partition_1"]
    assert partition_keys([["a=1"], ["b=2"]], 1) == ["partition_0"]


# -------------------------------------------------------------------------------------------- JDBC


def test_jdbc_urls_and_types() -> None:
    url = parse_jdbc_url("jdbc:postgresql://db.local:6543/sales?ssl=true")
    assert (url.engine, url.host, url.port, url.database) == ("postgresql", "db.local", 6543, "sales")
    assert parse_jdbc_url("jdbc:mariadb://h/test").engine == "mysql"
    assert parse_jdbc_url("jdbc:mysql://h/test").port == 3306
    with pytest.raises(TargetError):
        parse_jdbc_url("jdbc:oracle:thin:@h:1521:orcl")
    assert hive_type("postgresql", "numeric", 10, 2) == "decimal(10,2)"
    assert hive_type("postgresql", "timestamp without time zone") == "timestamp"
    assert hive_type("postgresql", "character varying") == "string"
    assert hive_type("mysql", "datetime") == "timestamp" and hive_type("mysql", "bigint") == "bigint"


@pytest.fixture()
def pg_tables() -> Iterator[str]:
    import psycopg

    tag = uuid.uuid4().hex[:6]
    statements = [f"CREATE TABLE orders_{tag} (id integer, amount numeric(10,2), placed timestamp, note text)",
                  f"CREATE TABLE orders_{tag}_archive (id bigint)", f"CREATE TABLE other_{tag} (x int)"]
    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)
    yield tag
    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        for name in (f"orders_{tag}", f"orders_{tag}_archive", f"other_{tag}"):
            conn.execute(f"DROP TABLE IF EXISTS {name}")


def test_postgresql_include_pattern_and_exclusions(pg_tables: str) -> None:
    props, db = services.postgres().connection_properties(), services.postgres().database
    _, tables = list_jdbc_tables(props, f"{db}/public/orders_{pg_tables}%", Exclusions(None))
    assert [t.name for t in tables] == [f"orders_{pg_tables}", f"orders_{pg_tables}_archive"]
    assert tables[0].columns == [("id", "int"), ("amount", "decimal(10,2)"), ("placed", "timestamp"),
                                 ("note", "string")]
    _, tables = list_jdbc_tables(props, f"{db}/public/orders_{pg_tables}%", Exclusions(["**_archive"]))
    assert [t.path for t in tables] == [f"{db}/public/orders_{pg_tables}"]


def test_unreachable_database_is_a_target_error() -> None:
    props = {"JDBC_CONNECTION_URL": "jdbc:postgresql://127.0.0.1:1/test", "USERNAME": "postgres"}
    with pytest.raises(TargetError, match="cannot connect"):
        list_jdbc_tables(props, "test/%", Exclusions(None))
