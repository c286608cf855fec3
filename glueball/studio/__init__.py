"""Visual (Glue Studio) jobs: job graphs to PySpark scripts, their checks, and custom visual transforms.

``codegen`` writes a graph's script (``io_nodes``, ``transform_nodes``, ``visual`` hold each node
type's code), ``graph`` and ``columns`` check it, ``custom`` reads custom visual transforms, and
``service`` is what CreateJob and UpdateJob call. The ten visual transforms themselves run in the
driver: ``glueball.runtime.visual`` and the top-level ``gs_*`` modules.
"""
