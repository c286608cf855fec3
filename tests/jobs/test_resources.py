"""The documented mapping of Glue capacity to Spark settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from glueball.runtime.capacity import (
    WORKER_TYPES,
    capacity,
    event_log_settings,
    runner_args,
    spark_settings,
    spark_ui_settings,
)

HOST_CORES, HOST_MEMORY_MB = 2, 24 * 1024


@pytest.mark.parametrize(("worker", "vcpus", "memory_gb", "dpu"), [
    ("G.025X", 2, 4, 0.25), ("G.1X", 4, 16, 1), ("G.2X", 8, 32, 2), ("G.4X", 16, 64, 4),
    ("G.8X", 32, 128, 8), ("Z.2X", 8, 64, 2), ("R.1X", 4, 32, 1), ("Standard", 4, 16, 1),
])
def test_worker_types_have_glues_documented_sizes(worker: str, vcpus: int, memory_gb: int, dpu: float) -> None:
    spec = WORKER_TYPES[worker]
    assert (spec.vcpus, spec.memory_gb, spec.dpu) == (vcpus, memory_gb, dpu)


def test_every_worker_type_of_the_glue_model_is_mapped() -> None:
    import botocore.session

    model = botocore.session.get_session().get_service_model("glue")
    assert set(model.shape_for("WorkerType").enum) == set(WORKER_TYPES)


def test_g1x_workers_give_one_executor_each_and_a_driver_worker() -> None:
    cap = capacity("G.1X", 5, None)
    assert (cap.executors, cap.executor_cores, cap.executor_memory_mb) == (4, 4, 10240)
    assert cap.dpus == 5 and cap.dpu_per_executor == 1


def test_standard_max_capacity_gives_two_executors_per_dpu_less_master_and_driver() -> None:
    cap = capacity(None, None, 10)
    assert (cap.executors, cap.executor_cores, cap.executor_memory_mb) == (17, 2, 5120)
    assert cap.dpus == 10 and cap.dpu_per_executor == 0.5


def test_no_capacity_is_glues_default_of_ten_dpus() -> None:
    assert capacity(None, None, None, "4.0").worker.name == "G.1X"
    assert capacity(None, None, None, "4.0").dpus == 10
    assert capacity(None, None, None, "1.0").worker.name == "Standard"


def test_invalid_capacities_are_rejected_with_the_value() -> None:
    with pytest.raises(ValueError, match="G.3X"):
        capacity("G.3X", 2, None)
    with pytest.raises(ValueError, match="NumberOfWorkers"):
        capacity("G.1X", None, None)
    with pytest.raises(ValueError, match="at least 1, got 0"):
        capacity("G.2X", 0, None)


def test_local_master_becomes_local_n_bounded_by_the_host() -> None:
    settings = spark_settings("G.2X", 10, None, "4.0", "local[*]", host_cores=HOST_CORES,
                              host_memory_mb=HOST_MEMORY_MB)
    assert settings["spark.master"] == "local[2]"
    # 10 workers x 20 GB is far more than the host: half its memory
    assert settings["spark.driver.memory"] == "12g"
    assert "spark.executor.instances" not in settings


def test_a_small_local_job_gets_its_own_size() -> None:
    settings = spark_settings("G.025X", 2, None, "4.0", "local[4]", host_cores=8, host_memory_mb=64 * 1024)
    assert settings["spark.master"] == "local[2]"
    assert settings["spark.driver.memory"] == "5g"  # driver 2.5 GB + one executor 2.5 GB


def test_cluster_master_gets_executors() -> None:
    settings = spark_settings("G.1X", 3, None, "4.0", "spark://10.0.0.1:7077",
                              host_cores=HOST_CORES, host_memory_mb=HOST_MEMORY_MB)
    assert settings == {
        "spark.master": "spark://10.0.0.1:7077",
        "spark.executor.instances": "2",
        "spark.executor.cores": "4",
        "spark.executor.memory": "10g",
        "spark.driver.cores": "4",
        "spark.driver.memory": "10g",
        "spark.cores.max": "8",
    }
    yarn = spark_settings(None, None, 4, "1.0", "yarn")
    assert yarn["spark.executor.instances"] == "5" and yarn["spark.executor.cores"] == "2"
    assert "spark.cores.max" not in yarn


def test_python_shell_jobs_get_no_spark_settings() -> None:
    assert spark_settings(None, None, 0.0625, "3.0", "local[*]", "pythonshell") == {}


def test_spark_ui_arguments_enable_the_event_log(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = spark_settings("G.1X", 2, None, "4.0", "local[*]", arguments={
        "--enable-spark-ui": "true", "--spark-event-logs-path": "s3://logs/sparkui/"}, home=home,
        host_cores=HOST_CORES, host_memory_mb=HOST_MEMORY_MB)
    assert settings["spark.eventLog.enabled"] == "true"
    assert settings["spark.eventLog.dir"] == (home / "s3" / "logs" / "sparkui").resolve().as_uri()
    assert (home / "s3" / "logs" / "sparkui").is_dir()
    assert spark_ui_settings({"--enable-spark-ui": "false", "--spark-event-logs-path": "s3://x/"}) == {}
    with pytest.raises(ValueError, match="--spark-event-logs-path"):
        spark_ui_settings({"--enable-spark-ui": "true"})
    with pytest.raises(ValueError, match="'yes'"):
        spark_ui_settings({"--enable-spark-ui": "yes"})


def test_event_log_settings_and_runner_args(tmp_path: Path) -> None:
    settings = event_log_settings(tmp_path / "events")
    assert settings["spark.eventLog.compress"] == "false"
    assert (tmp_path / "events").is_dir()
    assert runner_args({"spark.master": "local[2]", "spark.driver.memory": "4g"}) == [
        "--spark-master", "local[2]", "--conf", "spark.driver.memory=4g"]
