"""``import gs_array_to_cols``: Glue Studio's Array To Columns transform as ``frame.gs_array_to_cols(...)``.

Importing any ``gs_*`` module attaches all ten visual transforms to ``DynamicFrame`` and
``DataFrame`` (see ``glueball.runtime.visual``), as Glue Studio's generated scripts expect.
"""

from glueball.runtime.visual import enrich_all

enrich_all()
