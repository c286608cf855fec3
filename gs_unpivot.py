"""``import gs_unpivot``: Glue Studio's Unpivot Columns Into Rows transform as ``frame.gs_unpivot(...)``.

Importing any ``gs_*`` module attaches all ten visual transforms to ``DynamicFrame`` and
``DataFrame`` (see ``glueball.runtime.visual``), as Glue Studio's generated scripts expect.
"""

from glueball.runtime.visual import enrich_all

enrich_all()
