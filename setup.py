"""Build glueball's optional C extension; everything else is in pyproject.toml.

``glueball.runtime.streaming._kafkacols`` reads Kafka partitions with librdkafka straight into Arrow column
buffers (the Kafka source's fast path). It is built when librdkafka's headers are there (Debian:
``librdkafka-dev``, which ``make`` installs); without them, or when the compiler fails, glueball
installs without it and the Kafka source reads through confluent-kafka. Only the headers are used: at
run time the module loads the librdkafka that confluent-kafka ships.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HEADER = "librdkafka/rdkafka.h"
INCLUDE_DIRS = ("/usr/include", "/usr/local/include", "/opt/homebrew/include")


class OptionalBuildExt(build_ext):
    """Skip an extension that cannot be built instead of failing the install."""

    def build_extension(self, ext: Extension) -> None:
        if not any(os.path.exists(os.path.join(d, HEADER)) for d in INCLUDE_DIRS):
            print(f"glueball: {HEADER} not found; {ext.name} not built (Kafka reads use confluent-kafka)",
                  file=sys.stderr)
            return
        try:
            super().build_extension(ext)
        except Exception as e:  # noqa: BLE001 - any compiler or linker failure
            print(f"glueball: {ext.name} not built ({e}); Kafka reads use confluent-kafka", file=sys.stderr)


setup(
    ext_modules=[Extension("glueball.runtime.streaming._kafkacols", ["glueball/runtime/streaming/_kafkacols.c"],
                           libraries=["dl"], extra_compile_args=["-O2", "-std=gnu99"], optional=True)],
    cmdclass={"build_ext": OptionalBuildExt},
)
