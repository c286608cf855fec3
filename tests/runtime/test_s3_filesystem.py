"""s3://, s3a:// and s3n:// in plain Spark: glueball's Hadoop FileSystem over the object store.

Through Spark (read, write, overwrite, partitions, SQL tables, streaming checkpoints) and through Hadoop's
own FileSystem and FileContext APIs in the same JVM (statuses, listings, globs, rename, delete, streams).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from py4j.protocol import Py4JJavaError
from pyspark.sql import functions as F

from glueball.runtime import hadoop


@pytest.fixture(scope="module")
def store(spark: Any) -> Path:
    """The folder behind s3:// in the shared session: fixed when that session started (its GLUEBALL_HOME)."""
    root = spark._jsc.hadoopConfiguration().get(hadoop.ROOT_KEY)
    assert root, f"the shared Spark session has no object store file system: {hadoop.unavailable_reason()}"
    assert spark._jsc.hadoopConfiguration().get("fs.s3.impl") == hadoop.FILESYSTEM
    return Path(root)


@pytest.fixture
def bucket(store: Path) -> str:
    """A fresh bucket for one test."""
    return f"fs-{uuid.uuid4().hex[:10]}"


def put(store: Path, uri: str, text: str) -> Path:
    """Place an object in the store as any other writer would: a file under its folder."""
    path = store / uri.split("://", 1)[1]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def files_under(folder: Path) -> list[str]:
    """The files below ``folder``, as sorted relative paths."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def hpath(spark: Any, uri: str) -> Any:
    """A Hadoop Path in the session's JVM."""
    return spark._jvm.org.apache.hadoop.fs.Path(uri)


def hfs(spark: Any, uri: str) -> Any:
    """Hadoop's FileSystem for ``uri``, as Spark gets it (the session's Hadoop configuration)."""
    return hpath(spark, uri).getFileSystem(spark._jsc.hadoopConfiguration())


def java_error(excinfo: pytest.ExceptionInfo[Any]) -> tuple[str, str]:
    """The class and message of the Java exception behind a Py4J call that failed."""
    error = excinfo.value.java_exception
    return error.getClass().getName(), str(error.getMessage())


# ---- through Spark ----

def test_spark_reads_a_csv_placed_in_the_store_and_names_its_s3_path(spark: Any, store: Path, bucket: str) -> None:
    put(store, f"s3://{bucket}/raw/orders.csv", "id,name\n1,ann\n2,bob\n")
    frame = spark.read.option("header", "true").csv(f"s3://{bucket}/raw/")
    assert sorted(tuple(r) for r in frame.collect()) == [("1", "ann"), ("2", "bob")]
    assert {r.f for r in frame.select(F.input_file_name().alias("f")).collect()} == {f"s3://{bucket}/raw/orders.csv"}
    assert frame.inputFiles() == [f"s3://{bucket}/raw/orders.csv"]


def test_parquet_written_through_s3a_is_files_of_the_store_read_back_through_s3n(
        spark: Any, store: Path, bucket: str) -> None:
    rows = [(i, f"n{i}", i * 1.5) for i in range(50)]
    spark.createDataFrame(rows, "id long, name string, score double").repartition(3) \
        .write.parquet(f"s3a://{bucket}/out/scores")
    written = files_under(store / bucket / "out" / "scores")
    assert "_SUCCESS" in written
    assert len([f for f in written if f.endswith(".parquet")]) == 3
    assert not [f for f in written if f.endswith(".crc") or f.startswith(("_temporary", "."))]  # no side files
    back = spark.read.parquet(f"s3n://{bucket}/out/scores")
    assert sorted(tuple(r) for r in back.collect()) == rows
    assert back.inputFiles() and all(f.startswith(f"s3n://{bucket}/out/scores/part-") for f in back.inputFiles())


def test_overwrite_replaces_and_append_adds(spark: Any, store: Path, bucket: str) -> None:
    target, folder = f"s3://{bucket}/tables/t", store / bucket / "tables" / "t"
    spark.createDataFrame([(1,), (2,), (3,)], "id int").write.parquet(target)
    first = set(files_under(folder)) - {"_SUCCESS"}
    spark.createDataFrame([(9,)], "id int").write.mode("overwrite").parquet(target)
    assert [r.id for r in spark.read.parquet(target).collect()] == [9]
    assert first and not first & set(files_under(folder))  # the first write's objects are gone
    spark.createDataFrame([(10,)], "id int").write.mode("append").parquet(target)
    assert sorted(r.id for r in spark.read.parquet(target).collect()) == [9, 10]
    with pytest.raises(Exception, match="already exists"):
        spark.createDataFrame([(11,)], "id int").write.mode("error").parquet(target)


def test_partitioned_write_and_partition_discovery(spark: Any, store: Path, bucket: str) -> None:
    rows = [(1, "emea", 2024, 10.0), (2, "amer", 2024, 20.0), (3, "emea", 2025, 30.0), (4, "apac", 2025, 40.0)]
    frame = spark.createDataFrame(rows, "id long, region string, year int, amount double")
    target = f"s3a://{bucket}/sales"
    frame.write.partitionBy("region", "year").parquet(target)
    folder = store / bucket / "sales"
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == ["region=amer", "region=apac", "region=emea"]
    assert sorted(p.name for p in (folder / "region=emea").iterdir()) == ["year=2024", "year=2025"]
    back = spark.read.parquet(target)
    assert dict(back.dtypes)["year"] == "int"
    assert sorted(tuple(r) for r in back.select("id", "region", "year", "amount").collect()) == sorted(rows)
    emea = back.filter("region = 'emea' AND year = 2025").select("id", F.input_file_name().alias("file"))
    assert [r.id for r in emea.collect()] == [3]
    assert emea.collect()[0].file.startswith(f"s3a://{bucket}/sales/region=emea/year=2025/part-")
    # dynamic partition overwrite (glueball's default): only the partitions written are replaced
    spark.createDataFrame([(5, "emea", 2025, 50.0)], "id long, region string, year int, amount double") \
        .write.mode("overwrite").partitionBy("region", "year").parquet(target)
    assert sorted(r.id for r in spark.read.parquet(target).collect()) == [1, 2, 4, 5]


def test_a_sql_table_located_in_the_store(spark: Any, store: Path, bucket: str) -> None:
    table = f"s3fs_{bucket.replace('-', '_')}"
    spark.sql(f"CREATE TABLE {table} (id int, name string) USING parquet LOCATION 's3://{bucket}/warehouse/t'")
    try:
        spark.sql(f"INSERT INTO {table} VALUES (1, 'ann'), (2, 'bob')")
        spark.sql(f"INSERT INTO {table} VALUES (3, 'cy')")
        assert [tuple(r) for r in spark.sql(f"SELECT id, name FROM {table} ORDER BY id").collect()] == [
            (1, "ann"), (2, "bob"), (3, "cy")]
        location = [r.data_type for r in spark.sql(f"DESCRIBE FORMATTED {table}").collect()
                    if r.col_name == "Location"]
        assert location == [f"s3://{bucket}/warehouse/t"]
        assert [f for f in files_under(store / bucket / "warehouse" / "t") if f.endswith(".parquet")]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")
    assert (store / bucket / "warehouse" / "t").is_dir()  # an external table's data outlives it


def test_locations_that_would_leave_the_store_are_refused(spark: Any, store: Path, bucket: str) -> None:
    outside = store.parent / f"escaped-{bucket}"
    put(store, f"s3://{bucket}/ok.csv", "a\n1\n")
    with pytest.raises(Exception, match="would leave the object store"):
        spark.read.csv(f"s3://{bucket}/../../escaped-{bucket}/").collect()
    with pytest.raises(Exception, match="would leave the object store"):
        spark.createDataFrame([(1,)], "id int").write.parquet(f"s3a://{bucket}/../../escaped-{bucket}/")
    with pytest.raises(Exception, match="is not a bucket name"):
        spark.read.csv("s3://../etc/").collect()
    with pytest.raises(Exception, match="names no bucket"):
        spark.read.csv("s3:///raw/").collect()
    assert not outside.exists()


def test_a_streaming_query_keeps_its_checkpoint_in_the_store(spark: Any, store: Path, bucket: str) -> None:
    put(store, f"s3://{bucket}/in/1.csv", "1,ann\n2,bob\n")
    checkpoint = f"s3://{bucket}/checkpoints/q"

    def run_once() -> None:
        """Process what the input folder has and stop."""
        query = (spark.readStream.schema("id int, name string").csv(f"s3://{bucket}/in/").writeStream
                 .format("parquet").option("checkpointLocation", checkpoint).trigger(availableNow=True)
                 .start(f"s3://{bucket}/out"))
        query.awaitTermination(120)

    run_once()
    put(store, f"s3://{bucket}/in/2.csv", "3,cy\n")
    run_once()  # resumes from the checkpoint: only the new file
    assert sorted(r.id for r in spark.read.parquet(f"s3://{bucket}/out").collect()) == [1, 2, 3]
    kept = files_under(store / bucket / "checkpoints" / "q")
    assert {"metadata", "offsets/0", "offsets/1", "commits/0", "commits/1"} <= set(kept)
    assert not [f for f in kept if f.endswith(".crc") or "/." in f or f.startswith(".")]


# ---- through Hadoop's API ----

def test_every_path_handed_back_is_in_the_callers_scheme(spark: Any, store: Path, bucket: str) -> None:
    put(store, f"s3://{bucket}/a/x.csv", "1\n")
    put(store, f"s3://{bucket}/a/sub/y.csv", "2\n")
    for scheme in hadoop.SCHEMES:
        base = f"{scheme}://{bucket}"
        fs = hfs(spark, f"{base}/a")
        assert fs.getUri().toString() == base
        assert str(fs.getFileStatus(hpath(spark, f"{base}/a/x.csv")).getPath()) == f"{base}/a/x.csv"
        assert [str(s.getPath()) for s in fs.listStatus(hpath(spark, f"{base}/a"))] == [
            f"{base}/a/sub", f"{base}/a/x.csv"]
        located, it = [], fs.listLocatedStatus(hpath(spark, f"{base}/a"))
        while it.hasNext():
            located.append(str(it.next().getPath()))
        assert located == [f"{base}/a/sub", f"{base}/a/x.csv"]
        files, it = [], fs.listFiles(hpath(spark, f"{base}/a"), True)
        while it.hasNext():
            files.append(str(it.next().getPath()))
        assert sorted(files) == [f"{base}/a/sub/y.csv", f"{base}/a/x.csv"]
        assert [str(s.getPath()) for s in fs.globStatus(hpath(spark, f"{base}/a/*/*.csv"))] == [f"{base}/a/sub/y.csv"]
        assert str(fs.getWorkingDirectory()) == f"{base}/"
        assert str(fs.makeQualified(hpath(spark, "/a/x.csv"))) == f"{base}/a/x.csv"
        assert str(fs.makeQualified(hpath(spark, "a/x.csv"))) == f"{base}/a/x.csv"
        assert str(fs.resolvePath(hpath(spark, f"{base}/a/sub"))) == f"{base}/a/sub"
        assert fs.getFileStatus(hpath(spark, f"{base}/a/x.csv")).getLen() == 2
        assert fs.getFileStatus(hpath(spark, f"{base}/a/x.csv")).getPermission().toString() == "rw-r--r--"
    # a bucket's root exists before its first object, as on S3
    fresh = f"s3://{bucket}-new/"
    assert hfs(spark, fresh).getFileStatus(hpath(spark, fresh)).isDirectory()
    assert list(hfs(spark, fresh).listStatus(hpath(spark, fresh))) == []


def test_streams_write_whole_objects_and_read_with_seek_and_positioned_reads(spark: Any, store: Path,
                                                                              bucket: str) -> None:
    uri = f"s3a://{bucket}/data/bytes.bin"
    fs, path = hfs(spark, uri), hpath(spark, uri)
    data = bytes(range(256)) * 4
    out = fs.create(path, False)
    out.write(bytearray(data))
    out.hflush()
    out.close()
    assert (store / bucket / "data" / "bytes.bin").read_bytes() == data
    assert files_under(store / bucket) == ["data/bytes.bin"]  # no checksum file beside it
    with pytest.raises(Py4JJavaError) as refused:
        fs.create(path, False)
    assert java_error(refused) == ("org.apache.hadoop.fs.FileAlreadyExistsException", f"File already exists: {uri}")

    stream = fs.open(path)
    stream.seek(700)
    assert stream.getPos() == 700 and stream.read() == 700 % 256
    assert stream.readInt() == int.from_bytes(data[701:705], "big", signed=True)
    stream.seek(300)
    assert stream.readInt() == int.from_bytes(data[300:304], "big", signed=True)  # back again
    buffer = spark.sparkContext._gateway.new_array(spark._jvm.byte, 16)
    assert stream.read(1000, buffer, 0, 16) == 16  # positioned: the stream's position stays
    assert stream.read(1020, buffer, 0, 16) == 4 and stream.getPos() == 304
    assert stream.hasCapability("in:readvectored")  # Hadoop's local stream: Parquet's vectored reads
    stream.close()

    with pytest.raises(Py4JJavaError) as missing:
        fs.open(hpath(spark, f"s3a://{bucket}/data/missing.bin"))
    assert java_error(missing) == ("java.io.FileNotFoundException",
                                   f"File s3a://{bucket}/data/missing.bin does not exist")
    with pytest.raises(Exception, match="append is not supported by glueball's object store") as appending:
        fs.append(path)
    assert type(appending.value).__name__ == "UnsupportedOperationException"


def test_rename_and_delete_follow_hadoops_contract(spark: Any, store: Path, bucket: str) -> None:
    base = f"s3://{bucket}"
    fs = hfs(spark, base + "/")
    folder = store / bucket

    def p(key: str) -> Any:
        """The Hadoop path of ``key`` in the test's bucket."""
        return hpath(spark, f"{base}/{key}")

    put(store, f"{base}/staging/part-0", "zero")
    put(store, f"{base}/staging/nested/part-1", "one")
    put(store, f"{base}/other", "other")
    assert fs.rename(p("staging"), p("final"))  # a directory, at once
    assert files_under(folder) == ["final/nested/part-1", "final/part-0", "other"]
    assert not fs.rename(p("final/part-0"), p("other"))  # never over an existing file
    assert not fs.rename(p("missing"), p("x"))
    assert not fs.rename(p("final"), p("final/nested"))  # not into itself
    assert not fs.rename(p("other"), p("no/such/parent/other"))
    assert fs.rename(p("other"), p("final/nested"))  # into an existing directory, under its name
    assert (folder / "final" / "nested" / "other").read_text() == "other"

    assert fs.mkdirs(p("empty/dir"))
    with pytest.raises(Py4JJavaError) as over_file:
        fs.mkdirs(p("final/part-0/below"))
    assert java_error(over_file)[0] == "org.apache.hadoop.fs.ParentNotDirectoryException"
    with pytest.raises(Py4JJavaError) as not_empty:
        fs.delete(p("final"), False)
    assert java_error(not_empty)[0] == "org.apache.hadoop.fs.PathIsNotEmptyDirectoryException"
    assert fs.delete(p("final/part-0"), False)
    assert fs.delete(p("final"), True)
    assert not fs.delete(p("final"), True)
    assert files_under(folder) == [] and (folder / "empty" / "dir").is_dir()
    assert fs.delete(p(""), True)  # a bucket loses its objects, not its folder
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_file_context_renames_with_overwrite(spark: Any, store: Path, bucket: str) -> None:
    jvm = spark._jvm
    uri = f"s3n://{bucket}/fc"
    context = jvm.org.apache.hadoop.fs.FileContext.getFileContext(jvm.java.net.URI(uri),
                                                                  spark._jsc.hadoopConfiguration())
    put(store, f"{uri}/tmp-1", "new")
    put(store, f"{uri}/current", "old")
    overwrite = jvm.org.apache.hadoop.fs.Options.Rename.OVERWRITE
    options = spark.sparkContext._gateway.new_array(jvm.org.apache.hadoop.fs.Options.Rename, 1)
    options[0] = overwrite
    context.rename(hpath(spark, f"{uri}/tmp-1"), hpath(spark, f"{uri}/current"), options)
    assert files_under(store / bucket / "fc") == ["current"]
    assert (store / bucket / "fc" / "current").read_text() == "new"
    assert str(context.getFileStatus(hpath(spark, f"{uri}/current")).getPath()) == f"{uri}/current"


def test_s3a_without_hadoop_aws_names_the_jars_it_needs(spark: Any) -> None:
    """With GLUEBALL_S3_ENDPOINT and no hadoop-aws, glueball maps the schemes to a file system that says why."""
    conf = spark._jvm.org.apache.hadoop.conf.Configuration(spark._jsc.hadoopConfiguration())
    conf.set("fs.s3a.impl", hadoop.S3A_REQUIRED)
    conf.setBoolean("fs.s3a.impl.disable.cache", True)
    with pytest.raises(Py4JJavaError) as refused:
        hpath(spark, "s3a://remote-bucket/x").getFileSystem(conf)
    name, message = java_error(refused)
    assert name == "java.io.IOException"
    assert "S3AFileSystem" in message and "hadoop-aws" in message and "glueball jars fetch s3a" in message
