from awsglue import DynamicFrame


def improved_partitioning(self, partitionColumns, mode="hash"):
    """Repartition by the partition columns so each partition value is written by one task."""
    columns = [c.strip() for c in partitionColumns.split(",") if c.strip()]
    df = self.toDF()
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"improved_partitioning: no column(s) {', '.join(missing)} in {', '.join(df.columns)}")
    spread = df.repartitionByRange(*columns) if mode == "range" else df.repartition(*columns)
    return DynamicFrame.fromDF(spread, self.glue_ctx, "improved_partitioning")


DynamicFrame.improved_partitioning = improved_partitioning
