"""DynamicFrame: a Spark DataFrame plus Glue's schema semantics and error records.

A DynamicFrame *is* a DataFrame underneath — every transformation is a lazy
DataFrame transformation, so a pipeline costs what the equivalent DataFrame
code costs. What Glue adds is kept alongside:

- **Choice types.** A field seen with more than one type (``price`` an int in
  some records, a string in others) is a struct column whose fields are named
  after the member types (``price: struct<int: bigint, string: string>``), its
  Spark field metadata marked with ``CHOICE_METADATA``. ``schema()`` shows it as
  a ``ChoiceType``; ``resolveChoice`` turns it into one type; ``toDF()`` leaves
  it as that struct, as Glue does.
- **Error records.** Records that could not be read or transformed, kept per
  stage (the transformation that made this frame) and in total (all before).

Transformations live in ``glueball.runtime.ops``; the methods here keep
upstream's names and signatures and delegate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import Errors, ErrorThresholdExceeded, LazyErrors, empty_errors, error_frame
from glueball.runtime.gluetypes import (
    CHOICE_METADATA as CHOICE_METADATA,  # re-exported: the marker belongs to the type module
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from glueball.runtime.gluetypes import StructType as GlueStructType
    from glueball.runtime.pending import PendingTyping


class DynamicFrame:
    """A distributed collection of self-describing records (upstream ``awsglue.dynamicframe.DynamicFrame``).

    Args:
        df: the records as a Spark DataFrame.
        glue_ctx: the GlueContext it belongs to.
        name: a name for messages.
        stage_errors: error records made by the transformation that produced this frame (a DataFrame, or
            ``LazyErrors`` built when first asked for).
        prior_errors: error records of the frames it was made from (likewise).
        stage_threshold: errors this stage may have (0: unbounded).
        total_threshold: errors the lineage may have (0: unbounded).
        pending: typing still to decide (a raw CSV read); ``df`` is then None and the records are typed
            on first use of ``_df`` (see ``glueball.runtime.pending``).
    """

    def __init__(self, df: DataFrame | None, glue_ctx: Any, name: str = "", *,
                 stage_errors: Errors | None = None, prior_errors: Errors | None = None,
                 transformation_ctx: str = "", stage_threshold: int = 0, total_threshold: int = 0,
                 pending: PendingTyping | None = None) -> None:
        if (df is None) == (pending is None):
            raise ValueError("a DynamicFrame needs either a DataFrame or pending typing, not both")
        self._typed = df
        self._pending = pending
        self.glue_ctx = glue_ctx
        self.name = name
        self.transformation_ctx = transformation_ctx
        self._stage_errors = stage_errors
        self._prior_errors = prior_errors
        self._stage_threshold = stage_threshold
        self._total_threshold = total_threshold

    @property
    def _df(self) -> DataFrame:
        """The typed records; a frame with pending typing infers it here, once."""
        if self._typed is None:
            assert self._pending is not None
            self._typed = self._pending.resolve()
            self._pending = None
        return self._typed

    @property
    def pending_typing(self) -> PendingTyping | None:
        """The raw records and pending columns while this frame's typing is undecided, else None."""
        return self._pending

    # -- construction -----------------------------------------------------------------------------

    @classmethod
    def fromDF(cls, dataframe: DataFrame, glue_ctx: Any, name: str) -> DynamicFrame:  # noqa: N802
        """Wrap a DataFrame (upstream ``DynamicFrame.fromDF``); no copy, no pass over the data.

        A streaming micro-batch's DataFrame brings its error records (undecodable payloads) along.
        """
        from glueball.runtime.errors import attached_errors

        return cls(dataframe, glue_ctx, name, stage_errors=attached_errors(dataframe))

    def derive(self, df: DataFrame, *, stage_errors: Errors | None = None, transformation_ctx: str = "",
               stage_threshold: int = 0, total_threshold: int = 0, name: str | None = None,
               prior_errors: Errors | None = None) -> DynamicFrame:
        """A frame made from this one by a transformation: its errors become the new frame's prior errors.

        Operations (:mod:`glueball.runtime.ops`) build every frame they return with this, so they never
        need the class. ``prior_errors`` replaces this frame's errors as the lineage's (a frame made from
        several frames carries all of theirs). With a threshold above 0 the error counts are checked at
        once (an extra pass, only when asked for), raising ``ErrorThresholdExceeded``.
        """
        frame = DynamicFrame(df, self.glue_ctx, self.name if name is None else name, stage_errors=stage_errors,
                             prior_errors=self.lineage_errors() if prior_errors is None else prior_errors,
                             transformation_ctx=transformation_ctx, stage_threshold=stage_threshold,
                             total_threshold=total_threshold)
        if stage_threshold or total_threshold:
            frame.assertErrorThreshold()
        return frame

    def derive_pending(self, pending: PendingTyping, *, transformation_ctx: str = "", stage_threshold: int = 0,
                       total_threshold: int = 0) -> DynamicFrame:
        """Like ``derive``, for a transformation whose result still leaves typing pending (see ``pending``)."""
        frame = DynamicFrame(None, self.glue_ctx, self.name, prior_errors=self.lineage_errors(),
                             transformation_ctx=transformation_ctx, stage_threshold=stage_threshold,
                             total_threshold=total_threshold, pending=pending)
        if stage_threshold or total_threshold:
            frame.assertErrorThreshold()
        return frame

    def collection(self, frames: Mapping[str, DynamicFrame]) -> DynamicFrameCollection:
        """A collection of frames made from this one (split and relationalize results)."""
        return DynamicFrameCollection(frames, self.glue_ctx)

    def with_frame_schema(self, schema: Any) -> DynamicFrame:
        """This frame with ``schema`` (a ``gluetypes.StructType``) as its schema instead of one computed from the data
        (upstream ``withFrameSchema``): the records converted to the given types, over a raw read with no inference
        pass (see ``glueball.runtime.ops.frame_schema``)."""
        from glueball.runtime.ops.frame_schema import with_frame_schema

        return with_frame_schema(self, schema)

    # -- conversion and inspection -------------------------------------------------------------------

    def toDF(self, options: list[Any] | None = None) -> DataFrame:  # noqa: N802
        """The records as a DataFrame; ``options`` are ``ResolveOption``s applied first."""
        if not options:
            return self._df
        specs = [(option.path, option.action) for option in options]
        return self.resolveChoice(specs=specs)._df

    def schema(self) -> GlueStructType:
        from glueball.runtime.gluetypes import from_spark_schema

        return from_spark_schema(self._df.schema)

    def printSchema(self) -> None:  # noqa: N802
        print(self.schema().pretty())

    def show(self, num_rows: int = 20) -> None:
        for line in self._df.limit(num_rows).toJSON().collect():
            print(line)

    def count(self) -> int:
        """The number of records; typing changes no count, so a pending frame counts its raw records."""
        if self._pending is not None:
            return int(self._pending.raw.count())
        return int(self._df.count())

    def getNumPartitions(self) -> int:  # noqa: N802
        return int(self._df.rdd.getNumPartitions())

    def __repr__(self) -> str:
        if self._pending is not None and self._pending.record is not None:
            return f"DynamicFrame(name={self.name!r}, JSON records, typing pending)"  # fields not known yet
        columns = self._pending.raw.columns if self._pending is not None else self._df.columns
        return f"DynamicFrame(name={self.name!r}, columns={columns})"

    # -- errors ---------------------------------------------------------------------------------------

    def lineage_errors(self) -> LazyErrors:
        """The error records of this frame and every frame before it, built when first asked for."""
        return LazyErrors(self._all_errors)

    def _all_errors(self) -> DataFrame | None:
        parts = [e for e in (error_frame(self._prior_errors), error_frame(self._stage_errors)) if e is not None]
        if not parts:
            return None
        merged = parts[0]
        for part in parts[1:]:
            merged = merged.unionByName(part)
        return merged

    def errorsAsDynamicFrame(self) -> DynamicFrame:  # noqa: N802
        """The error records of this frame and every frame before it."""
        errors = self._all_errors()
        if errors is None:
            errors = empty_errors(self.glue_ctx.spark_session)
        return DynamicFrame(errors, self.glue_ctx, f"{self.name}_errors")

    def errorsCount(self) -> int:  # noqa: N802
        errors = self._all_errors()
        return 0 if errors is None else int(errors.count())

    def stageErrorsCount(self) -> int:  # noqa: N802
        errors = error_frame(self._stage_errors)
        return 0 if errors is None else int(errors.count())

    def assertErrorThreshold(self) -> None:  # noqa: N802
        """Raise ``ErrorThresholdExceeded`` if this stage's or the lineage's errors exceed their thresholds."""
        if self._stage_threshold:
            stage = self.stageErrorsCount()
            if stage > self._stage_threshold:
                raise ErrorThresholdExceeded(
                    f"{stage} error records in stage {self.transformation_ctx or self.name!r} exceed "
                    f"stageThreshold {self._stage_threshold}")
        if self._total_threshold:
            total = self.errorsCount()
            if total > self._total_threshold:
                raise ErrorThresholdExceeded(
                    f"{total} error records up to {self.transformation_ctx or self.name!r} exceed "
                    f"totalThreshold {self._total_threshold}")

    # -- transformations (implemented in glueball.runtime.ops) ---------------------------------------

    def apply_mapping(self, mappings: list[tuple[str, ...]], case_sensitive: bool = False,
                      transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                      totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.pending_mapping import apply_mapping

        return apply_mapping(self, mappings, case_sensitive, transformation_ctx, stageThreshold, totalThreshold)

    def applyMapping(self, *args: Any, **kwargs: Any) -> DynamicFrame:  # noqa: N802
        """Alias of ``apply_mapping``; like upstream, a DynamicFrame passed first (an old calling style) is dropped."""
        if args and isinstance(args[0], DynamicFrame):
            args = args[1:]
        return self.apply_mapping(*args, **kwargs)

    def rename_field(self, oldName: str, newName: str, transformation_ctx: str = "", info: str = "",  # noqa: N803
                     stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.field_ops import rename_field

        return rename_field(self, oldName, newName, transformation_ctx, stageThreshold, totalThreshold)

    def drop_fields(self, paths: list[str], transformation_ctx: str = "", info: str = "",
                    stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.field_ops import drop_fields

        return drop_fields(self, paths, transformation_ctx, stageThreshold, totalThreshold)

    def select_fields(self, paths: list[str], transformation_ctx: str = "", info: str = "",
                      stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.field_ops import select_fields

        return select_fields(self, paths, transformation_ctx, stageThreshold, totalThreshold)

    def split_fields(self, paths: list[str], name1: str, name2: str, transformation_ctx: str = "",
                     info: str = "", stageThreshold: int = 0,  # noqa: N803
                     totalThreshold: int = 0) -> DynamicFrameCollection:  # noqa: N803
        from glueball.runtime.ops.field_ops import split_fields

        return split_fields(self, paths, name1, name2, transformation_ctx, stageThreshold, totalThreshold)

    def split_rows(self, comparison_dict: Mapping[str, Mapping[str, Any]], name1: str, name2: str,
                   transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                   totalThreshold: int = 0) -> DynamicFrameCollection:  # noqa: N803
        from glueball.runtime.ops.field_ops import split_rows

        return split_rows(self, comparison_dict, name1, name2, transformation_ctx, stageThreshold,
                          totalThreshold)

    def unnest(self, transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
               totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.restructure import unnest

        return unnest(self, transformation_ctx, stageThreshold, totalThreshold)

    def relationalize(self, root_table_name: str, staging_path: str, options: Mapping[str, Any] | None = None,
                      transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                      totalThreshold: int = 0) -> DynamicFrameCollection:  # noqa: N803
        from glueball.runtime.ops.restructure import relationalize

        return relationalize(self, root_table_name, staging_path, dict(options or {}), transformation_ctx,
                             stageThreshold, totalThreshold)

    def drop_nulls(self, transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                   totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        """Drop the fields whose every value is null (the DropNullFields transform)."""
        from glueball.runtime.ops.null_fields import drop_null_fields

        return drop_null_fields(self, transformation_ctx, stageThreshold, totalThreshold)

    def resolveChoice(self, specs: list[tuple[str, str]] | None = None, choice: str = "",  # noqa: N802
                      database: str | None = None, table_name: str | None = None, transformation_ctx: str = "",
                      info: str = "", stageThreshold: int = 0, totalThreshold: int = 0,  # noqa: N803
                      catalog_id: str | None = None) -> DynamicFrame:
        from glueball.runtime.ops.choice import resolve_choice

        return resolve_choice(self, specs, choice, database, table_name, transformation_ctx, stageThreshold,
                              totalThreshold, catalog_id)

    def unbox(self, path: str, format: str, transformation_ctx: str = "", info: str = "",  # noqa: A002
              stageThreshold: int = 0, totalThreshold: int = 0, **options: Any) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.choice import unbox

        return unbox(self, path, format, options, transformation_ctx, stageThreshold, totalThreshold)

    def filter(self, f: Callable[[Any], bool], transformation_ctx: str = "", info: str = "",
               stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_functions import filter_records

        return filter_records(self, f, transformation_ctx, stageThreshold, totalThreshold)

    def map(self, f: Callable[[Any], Any], preservesPartitioning: bool = False,  # noqa: N803
            transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
            totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_map import map_records

        return map_records(self, f, transformation_ctx, stageThreshold, totalThreshold)

    def mapPartitions(self, f: Callable[[Iterator[Any]], Iterator[Any]],  # noqa: N802
                      preservesPartitioning: bool = True, transformation_ctx: str = "",  # noqa: N803
                      info: str = "", stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_functions import map_partitions

        return map_partitions(self, f, transformation_ctx, stageThreshold, totalThreshold)

    def join(self, paths1: list[str], paths2: list[str], frame2: DynamicFrame, transformation_ctx: str = "",
             info: str = "", stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_ops import join

        return join(self, paths1, paths2, frame2, transformation_ctx, stageThreshold, totalThreshold)

    def union(self, other_frame: DynamicFrame, transformation_ctx: str = "", info: str = "",
              stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_ops import union

        return union(self, other_frame, transformation_ctx, stageThreshold, totalThreshold)

    def mergeDynamicFrame(self, stage_dynamic_frame: DynamicFrame, primary_keys: list[str],  # noqa: N802
                          transformation_ctx: str = "", options: Mapping[str, Any] | None = None,
                          info: str = "", stageThreshold: int = 0,  # noqa: N803
                          totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_ops import merge

        return merge(self, stage_dynamic_frame, primary_keys, transformation_ctx, stageThreshold,
                     totalThreshold)

    def spigot(self, path: str, options: Mapping[str, Any] | None = None, transformation_ctx: str = "",
               info: str = "", stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.record_ops import spigot

        return spigot(self, path, dict(options or {}), transformation_ctx, stageThreshold, totalThreshold)

    def repartition(self, num_partitions: int, transformation_ctx: str = "", info: str = "",
                    stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return self.derive(self._df.repartition(num_partitions), transformation_ctx=transformation_ctx,
                           stage_threshold=stageThreshold, total_threshold=totalThreshold)

    def coalesce(self, num_partitions: int, shuffle: bool = False, transformation_ctx: str = "",
                 info: str = "", stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        df = self._df.repartition(num_partitions) if shuffle else self._df.coalesce(num_partitions)
        return self.derive(df, transformation_ctx=transformation_ctx, stage_threshold=stageThreshold,
                           total_threshold=totalThreshold)

    def write(self, connection_type: str, connection_options: Mapping[str, Any] | None = None,
              format: str | None = None, format_options: Mapping[str, Any] | None = None,  # noqa: A002
              accumulator_size: int = 0) -> DynamicFrame:
        return self.glue_ctx.write_dynamic_frame.from_options(
            self, connection_type, dict(connection_options or {}), format, dict(format_options or {}))


class DynamicFrameCollection:
    """Named DynamicFrames, as returned by split_fields, split_rows and relationalize."""

    def __init__(self, dynamic_frames: Mapping[str, DynamicFrame], glue_ctx: Any) -> None:
        self._frames = dict(dynamic_frames)
        self.glue_ctx = glue_ctx

    def __getitem__(self, key: str) -> DynamicFrame:
        return self._frames[key]

    def __len__(self) -> int:
        return len(self._frames)

    def __iter__(self) -> Iterator[str]:
        return iter(self._frames)

    def keys(self) -> list[str]:
        return list(self._frames)

    def values(self) -> list[DynamicFrame]:
        return list(self._frames.values())

    def select(self, key: str, transformation_ctx: str = "") -> DynamicFrame:
        if key not in self._frames:
            raise KeyError(f"No DynamicFrame named {key!r} in this collection; it has {sorted(self._frames)}")
        return self._frames[key]

    def map(self, callable: Callable[[DynamicFrame, str], DynamicFrame],  # noqa: A002
            transformation_ctx: str = "") -> DynamicFrameCollection:
        return DynamicFrameCollection({k: callable(v, f"{transformation_ctx}:{k}") for k, v in self._frames.items()},
                                      self.glue_ctx)

    def flatmap(self, f: Callable[[DynamicFrame, str], Any], transformation_ctx: str = "") -> DynamicFrameCollection:
        out: dict[str, DynamicFrame] = {}
        for key, frame in self._frames.items():
            result = f(frame, f"{transformation_ctx}:{key}")
            if isinstance(result, DynamicFrameCollection):
                for inner in result.keys():
                    out[inner] = result[inner]
            else:
                out[key] = result
        return DynamicFrameCollection(out, self.glue_ctx)
