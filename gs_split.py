"""``import gs_split``: Glue Studio's Split String transform as ``frame.gs_split(...)``.

Importing any ``gs_*`` module attaches all ten visual transforms to ``DynamicFrame`` and
``DataFrame`` (see ``glueball.runtime.visual``), as Glue Studio's generated scripts expect.
"""

from glueball.runtime.visual import enrich_all

enrich_all()
