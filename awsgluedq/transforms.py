"""``from awsgluedq.transforms import EvaluateDataQuality``."""

from glueball.dataquality.transforms import EvaluateDataQuality

__all__ = ["EvaluateDataQuality"]
