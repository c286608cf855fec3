from pyspark.sql import functions as F

from awsglue import DynamicFrame


def synthetic_data_generator(self, numRows, seed=42, categories=None):
    """numRows generated sales rows: id 0..numRows-1, a category by id, a random amount and day."""
    names = categories or ["books", "games", "music"]
    spark = self.glue_ctx.spark_session
    df = (spark.range(numRows)
          .withColumn("category", F.element_at(F.array(*[F.lit(n) for n in names]),
                                               (F.col("id") % len(names) + 1).cast("int")))
          .withColumn("amount", F.round(F.rand(seed) * 100, 2))
          .withColumn("sold_on", F.date_add(F.lit("2024-01-01").cast("date"), (F.col("id") % 28).cast("int"))))
    return DynamicFrame.fromDF(df, self.glue_ctx, "synthetic_data")


DynamicFrame.synthetic_data_generator = synthetic_data_generator
