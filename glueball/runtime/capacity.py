"""Glue capacity (``WorkerType``, ``NumberOfWorkers``, ``MaxCapacity``) as Spark settings.

The mapping, from Glue's documentation ("AWS Glue worker types", the ``MaxCapacity``
member of ``Job``):

- A DPU is 4 vCPUs and 16 GB of memory; an M-DPU (``R.*``, ``Z.2X``) is 4 vCPUs and 32 GB.
- ``G.025X`` = 0.25 DPU (2 vCPU, 4 GB), ``G.1X`` = 1 DPU (4 vCPU, 16 GB), ``G.2X`` = 2 DPU
  (8 vCPU, 32 GB), ``G.4X`` = 4 DPU, ``G.8X`` = 8, ``G.12X`` = 12, ``G.16X`` = 16; ``R.1X`` ..
  ``R.8X`` and ``Z.2X`` the same sizes with twice the memory. Each of these workers runs one
  executor, and one worker of the job hosts the driver: ``NumberOfWorkers - 1`` executors.
- ``Standard`` workers (and ``MaxCapacity`` DPUs without a worker type, Glue 1.0 style) are
  4 vCPU and 16 GB each with 2 executors per worker; one DPU is the application master and
  one executor slot the driver, so ``MaxCapacity`` DPUs give ``2 * (MaxCapacity - 1) - 1``
  executors of 2 cores.
- A Spark job with no capacity at all gets Glue's default of 10 DPUs (10 ``G.1X`` workers
  from Glue 2.0 on, 10 ``Standard`` DPUs before). Python shell jobs do not run Spark.

Executor memory leaves headroom as Glue does (a 16 GB ``G.1X`` worker runs a 10 GB
executor): ``spark.executor.memory`` and ``spark.driver.memory`` are 5/8 of the worker's
memory; Spark's own overhead (10%, at least 384 MB) comes on top.

On a ``local[...]`` master the whole job is one JVM on this host, so the capacity becomes
``local[N]`` with N = min(the executors' vCPUs, the host's cores) and ``spark.driver.memory``
= the memory of the driver and the executors, capped at half the host's memory. On a cluster
master (``spark://``, ``k8s://``, ``yarn``, ``mesos://``) it becomes
``spark.executor.instances``/``cores``/``memory`` (and ``spark.cores.max`` for standalone).

``--enable-spark-ui true`` with ``--spark-event-logs-path`` turns on Spark's event log in that
directory (an ``s3://`` path is the object store under ``GLUEBALL_HOME``), readable by Spark's
own history server; ``event_log_settings`` is the same for glueball's per-run event logs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from glueball.objects.locations import object_store_root, to_spark_path
from glueball.runtime import lakeformats

__all__ = [
    "DEFAULT_DPUS",
    "WORKER_TYPES",
    "Capacity",
    "WorkerSpec",
    "capacity",
    "event_log_settings",
    "is_local_master",
    "runner_args",
    "spark_settings",
    "spark_ui_settings",
]

DPU_VCPUS = 4
DPU_MEMORY_GB = 16
DEFAULT_DPUS = 10
# Glue runs a 10 GB executor on a 16 GB G.1X worker: the rest is the OS, the overhead, Python workers
EXECUTOR_MEMORY_FRACTION = 0.625
# the share of the host a local job's single JVM may ask for
LOCAL_MEMORY_FRACTION = 0.5
MIN_MEMORY_MB = 1024
SPARK_JOB_KINDS = ("glueetl", "gluestreaming")
PYTHON_SHELL = "pythonshell"


@dataclass(frozen=True)
class WorkerSpec:
    """One Glue worker type: its DPUs, vCPUs, memory and executors per worker."""

    name: str
    dpu: float
    vcpus: int
    memory_gb: int
    executors_per_worker: int = 1


WORKER_TYPES: dict[str, WorkerSpec] = {
    spec.name: spec
    for spec in (
        WorkerSpec("Standard", 1, 4, 16, executors_per_worker=2),
        WorkerSpec("G.025X", 0.25, 2, 4),
        WorkerSpec("G.1X", 1, 4, 16),
        WorkerSpec("G.2X", 2, 8, 32),
        WorkerSpec("G.4X", 4, 16, 64),
        WorkerSpec("G.8X", 8, 32, 128),
        WorkerSpec("G.12X", 12, 48, 192),
        WorkerSpec("G.16X", 16, 64, 256),
        WorkerSpec("R.1X", 1, 4, 32),
        WorkerSpec("R.2X", 2, 8, 64),
        WorkerSpec("R.4X", 4, 16, 128),
        WorkerSpec("R.8X", 8, 32, 256),
        WorkerSpec("Z.2X", 2, 8, 64),
    )
}


@dataclass(frozen=True)
class Capacity:
    """What a job's capacity amounts to on Glue.

    Attributes:
        worker: the worker type the capacity is made of.
        workers: how many workers (or DPUs, for ``Standard``).
        executors: Spark executors (the driver's worker or slot excluded).
        executor_cores: vCPUs of one executor.
        executor_memory_mb: ``spark.executor.memory`` of one executor.
        driver_cores: vCPUs of the driver.
        driver_memory_mb: ``spark.driver.memory``.
        dpus: the DPUs the job is billed for (``MaxCapacity`` of the run).
        dpu_per_executor: the DPU factor of one executor (``DPUSeconds`` = executor seconds x this).
    """

    worker: WorkerSpec
    workers: int
    executors: int
    executor_cores: int
    executor_memory_mb: int
    driver_cores: int
    driver_memory_mb: int
    dpus: float
    dpu_per_executor: float

    @property
    def executor_vcpus(self) -> int:
        return self.executors * self.executor_cores


def _worker_memory_mb(spec: WorkerSpec, per_executor: bool = True) -> int:
    memory_gb = spec.memory_gb / (spec.executors_per_worker if per_executor else 1)
    return max(MIN_MEMORY_MB, int(memory_gb * 1024 * EXECUTOR_MEMORY_FRACTION))


def _glue_major(glue_version: str | None) -> float:
    try:
        return float(glue_version) if glue_version else 5.0
    except ValueError:
        return 5.0


def capacity(worker_type: str | None, number_of_workers: int | None, max_capacity: float | None,
             glue_version: str | None = None) -> Capacity:
    """The Glue capacity of a Spark job, with Glue's defaults and executor arithmetic.

    Raises:
        ValueError: an unknown worker type, a worker type without a worker count, or a count below 1.
    """
    if worker_type is not None and worker_type not in WORKER_TYPES:
        raise ValueError(f"Unknown WorkerType {worker_type!r}; expected one of {', '.join(WORKER_TYPES)}")
    if number_of_workers is not None and number_of_workers < 1:
        raise ValueError(f"NumberOfWorkers must be at least 1, got {number_of_workers}")
    if worker_type is not None and worker_type != "Standard" and not number_of_workers:
        raise ValueError(f"WorkerType {worker_type} needs NumberOfWorkers")
    if max_capacity is not None and max_capacity <= 0:
        raise ValueError(f"MaxCapacity must be positive, got {max_capacity}")
    if worker_type is None and max_capacity is None and number_of_workers is None:
        worker_type = "G.1X" if _glue_major(glue_version) >= 2.0 else "Standard"
        number_of_workers = DEFAULT_DPUS
    if worker_type is None and max_capacity is None:
        worker_type = "G.1X"
    if worker_type is None or worker_type == "Standard":
        spec = WORKER_TYPES["Standard"]
        dpus = int(math.ceil(max_capacity if max_capacity is not None else (number_of_workers or DEFAULT_DPUS)))
        # one DPU is the application master, one executor slot of the rest the driver
        executors = max(1, 2 * (dpus - 1) - 1)
        cores = spec.vcpus // spec.executors_per_worker
        memory = _worker_memory_mb(spec)
        return Capacity(spec, dpus, executors, cores, memory, cores, memory, float(dpus),
                        spec.dpu / spec.executors_per_worker)
    spec = WORKER_TYPES[worker_type]
    workers = int(number_of_workers or 1)
    memory = _worker_memory_mb(spec)
    return Capacity(spec, workers, max(1, workers - 1), spec.vcpus, memory, spec.vcpus, memory,
                    spec.dpu * workers, spec.dpu)


def is_local_master(master: str) -> bool:
    """Whether ``master`` runs the whole application in this JVM (``local``, ``local[N]``, ``local[*]``)."""
    return master == "local" or master.startswith("local[")


def local_cores(master: str) -> int | None:
    """The task threads of a local ``master`` (``local``: 1, ``local[N]`` and ``local[N,F]``: N, ``local[*]``: this
    host's cores); None for any other master."""
    if master == "local":
        return 1
    if not master.startswith("local[") or not master.endswith("]"):
        return None
    threads = master[len("local["):-1].split(",")[0].strip()
    if threads == "*":
        return os.cpu_count() or 1
    return int(threads) if threads.isdigit() and int(threads) > 0 else None


def _host_memory_mb() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1024 * 1024))
    except (ValueError, OSError, AttributeError):
        return 8 * 1024


def _mb(value: int) -> str:
    return f"{value // 1024}g" if value % 1024 == 0 else f"{value}m"


def spark_settings(worker_type: str | None, number_of_workers: int | None, max_capacity: float | None,
                   glue_version: str | None, master: str, job_kind: str = "glueetl", *,
                   arguments: Mapping[str, str] | None = None, home: Path | None = None,
                   host_cores: int | None = None, host_memory_mb: int | None = None) -> dict[str, str]:
    """The Spark settings of a job run's capacity, for the given master (see the module docstring).

    Args:
        worker_type: the job's (or run's) ``WorkerType``, or None.
        number_of_workers: ``NumberOfWorkers``, or None.
        max_capacity: ``MaxCapacity`` in DPUs, or None.
        glue_version: ``GlueVersion`` (decides the default capacity).
        master: the Spark master the run will use.
        job_kind: ``Command.Name``; ``pythonshell`` runs no Spark and gets no settings.
        arguments: the run's merged arguments, for ``--enable-spark-ui``/``--spark-event-logs-path`` and
            ``--datalake-formats``.
        home: ``GLUEBALL_HOME`` for ``s3://`` event log paths (default: ``$GLUEBALL_HOME``).
        host_cores: cores of this host (default: ``os.cpu_count()``), for local masters.
        host_memory_mb: memory of this host (default: physical memory), for local masters.

    Returns:
        Spark configuration keys and values, including ``spark.master``; pass ``spark.master``
        as ``--spark-master`` and the rest as ``--conf`` (``runner_args`` does that).

    Raises:
        ValueError: an invalid capacity (see ``capacity``), an invalid Spark UI argument, or a data lake format
            glueball cannot give a driver (``--datalake-formats``; ``lakeformats.DatalakeFormatError``).
    """
    if job_kind == PYTHON_SHELL:
        return {}
    cap = capacity(worker_type, number_of_workers, max_capacity, glue_version)
    settings: dict[str, str] = {}
    local_threads: int | None = None  # a local master's task threads
    if is_local_master(master):
        cores = local_threads = max(1, min(cap.executor_vcpus, host_cores or os.cpu_count() or 1))
        wanted = cap.driver_memory_mb + cap.executors * cap.executor_memory_mb
        ceiling = max(MIN_MEMORY_MB, int((host_memory_mb or _host_memory_mb()) * LOCAL_MEMORY_FRACTION))
        settings["spark.master"] = f"local[{cores}]"
        settings["spark.driver.memory"] = _mb(min(wanted, ceiling))
        settings["spark.default.parallelism"] = str(cores)
    else:
        settings["spark.master"] = master
        settings["spark.executor.instances"] = str(cap.executors)
        settings["spark.executor.cores"] = str(cap.executor_cores)
        settings["spark.executor.memory"] = _mb(cap.executor_memory_mb)
        settings["spark.driver.cores"] = str(cap.driver_cores)
        settings["spark.driver.memory"] = _mb(cap.driver_memory_mb)
        if master.startswith("spark://"):
            # standalone schedules by cores, not by executor count
            settings["spark.cores.max"] = str(cap.executor_vcpus)
    settings.update(spark_ui_settings(arguments or {}, home))
    settings.update(catalog_settings(arguments or {}))
    # --datalake-formats: jars and settings per format
    settings.update(lakeformats.driver_settings(arguments or {}, local_threads))
    return settings


def catalog_settings(arguments: Mapping[str, str]) -> dict[str, str]:
    """``--enable-glue-datacatalog false``: Spark keeps its own in-memory catalog, as a Glue job without the Data
    Catalog as its Hive metastore does. glueball's default (the argument absent, ``true``, or empty as Glue's
    console once wrote it) is the Data Catalog (:mod:`glueball.runtime.hivecatalog`).

    Raises:
        ValueError: a value other than true, false or empty.
    """
    value = arguments.get("--enable-glue-datacatalog")
    if value is None or not value.strip():
        return {}
    if _flag(arguments, "--enable-glue-datacatalog"):
        return {}
    return {"spark.sql.catalogImplementation": "in-memory"}


def _flag(arguments: Mapping[str, str], name: str) -> bool:
    value = arguments.get(name)
    if value is None:
        return False
    if value.lower() not in ("true", "false"):
        raise ValueError(f"{name} expects true or false, got {value!r}")
    return value.lower() == "true"


def _local_dir(uri: str, home: Path | None) -> str:
    return to_spark_path(uri, object_store_root(home))


def event_log_settings(directory: str | Path, home: Path | None = None) -> dict[str, str]:
    """Spark settings that write the application's event log into ``directory`` (created if local).

    The log is uncompressed JSON lines (Glue's logs are; ``glueball.jobs.eventlog`` and Spark's
    history server read it), rolled by Spark into ``eventlog_v2_<app id>/events_<n>_<app id>``.
    """
    target = _local_dir(str(directory), home)
    if "://" not in target:
        Path(target).mkdir(parents=True, exist_ok=True)
        target = Path(target).resolve().as_uri()
    return {
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": target,
        "spark.eventLog.compress": "false",
    }


def spark_ui_settings(arguments: Mapping[str, str], home: Path | None = None) -> dict[str, str]:
    """``--enable-spark-ui true`` + ``--spark-event-logs-path PATH`` as Spark event log settings.

    Raises:
        ValueError: ``--enable-spark-ui`` is not true/false, or is true without ``--spark-event-logs-path``.
    """
    if not _flag(arguments, "--enable-spark-ui"):
        return {}
    path = arguments.get("--spark-event-logs-path")
    if not path:
        raise ValueError("--enable-spark-ui true needs --spark-event-logs-path")
    return event_log_settings(path, home)


def runner_args(settings: Mapping[str, str]) -> list[str]:
    """``settings`` as ``glueball run`` options: ``--spark-master M`` and one ``--conf k=v`` each."""
    args: list[str] = []
    for key, value in settings.items():
        if key == "spark.master":
            args += ["--spark-master", value]
        else:
            args += ["--conf", f"{key}={value}"]
    return args



def driver_options(worker_type: str | None, number_of_workers: int | None, max_capacity: float | None,
                   glue_version: str | None, master: str, arguments: Mapping[str, str] | None = None,
                   home: Path | None = None) -> list[str]:
    """The ``glueball run`` options of a Spark driver for this capacity: its settings, then the user's own
    ``--conf`` argument as given (``k=v --conf k2=v2``), as a job run's driver gets them.

    Raises:
        ValueError: as :func:`spark_settings`.
    """
    settings = spark_settings(worker_type, number_of_workers, max_capacity, glue_version, master,
                              arguments=arguments, home=home)
    user = (arguments or {}).get("--conf")
    user_keys = {part.strip().partition("=")[0] for part in (user or "").split(" --conf ") if "=" in part}
    options = runner_args({k: v for k, v in settings.items() if k not in user_keys})
    return options + (["--conf", user] if user else [])
