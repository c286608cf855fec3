"""``glueContext.getSource`` / ``getSink``: upstream's DataSource and DataSink objects."""

from __future__ import annotations

from typing import Any

from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection


class _Endpoint:
    """What a source and a sink share: the connection, the format and their options."""

    def __init__(self, glue_ctx: Any, connection_type: str, format: str | None,  # noqa: A002
                 transformation_ctx: str, options: dict[str, Any]) -> None:
        self._glue_ctx = glue_ctx
        self._connection_type = connection_type
        self._format = format
        self._transformation_ctx = transformation_ctx
        self._options = dict(options)
        self._format_options: dict[str, Any] = {}

    def setFormat(self, format: str, **options: Any) -> None:  # noqa: N802,A002
        """The file format and its format options."""
        self._format = format
        self._format_options = dict(options)


class DataSource(_Endpoint):
    """A configured reader (upstream ``awsglue.data_source.DataSource``).

    Args:
        glue_ctx: the GlueContext.
        connection_type: as for ``create_dynamic_frame.from_options``.
        format: the file format, or None (``setFormat`` can set it).
        transformation_ctx: the transformation context.
        options: the connection options.
    """

    def __init__(self, glue_ctx: Any, connection_type: str, format: str | None,  # noqa: A002
                 transformation_ctx: str, options: dict[str, Any]) -> None:
        super().__init__(glue_ctx, connection_type, format, transformation_ctx, options)
        self._push_down_predicate = str(self._options.pop("push_down_predicate", "") or "")

    def getFrame(self, **kwargs: Any) -> DynamicFrame:  # noqa: N802
        """Read the source into a DynamicFrame."""
        from glueball.runtime.io.read import read_dynamic_frame

        predicate = str(kwargs.pop("push_down_predicate", "") or self._push_down_predicate)
        return read_dynamic_frame(self._glue_ctx, self._connection_type, dict(self._options), self._format,
                                  dict(self._format_options), self._transformation_ctx, predicate, kwargs)


class DataSink(_Endpoint):
    """A configured writer (upstream ``awsglue.data_sink.DataSink``).

    ``setCatalogInfo`` names the catalog table that ``enableUpdateCatalog`` creates or updates.
    """

    def setCatalogInfo(self, catalogDatabase: str, catalogTableName: str,  # noqa: N802,N803
                       catalogId: str | None = None) -> None:  # noqa: N803
        self._options["catalogDatabase"] = catalogDatabase
        self._options["catalogTableName"] = catalogTableName

    def writeFrame(self, dynamic_frame: DynamicFrame, info: str = "") -> DynamicFrame:  # noqa: N802
        """Write the frame (and update the catalog if ``enableUpdateCatalog`` was given)."""
        from glueball.runtime.io.write import write_dynamic_frame

        return write_dynamic_frame(self._glue_ctx, dynamic_frame, self._connection_type, dict(self._options),
                                   self._format, dict(self._format_options), self._transformation_ctx)

    def write(self, dynamic_frame_or_dfc: DynamicFrame | DynamicFrameCollection, info: str = "") -> Any:
        """Write a frame, or each frame of a collection."""
        if isinstance(dynamic_frame_or_dfc, DynamicFrameCollection):
            return {name: self.writeFrame(frame, info) for name, frame in
                    ((k, dynamic_frame_or_dfc[k]) for k in dynamic_frame_or_dfc.keys())}
        return self.writeFrame(dynamic_frame_or_dfc, info)
