"""TestConnection's JDBC probe: its class compiled ahead into glueball's jar cache against the same probe launched
from its ``.java`` source (which the JVM compiles on every launch, as every probe did before).

Run ``.venv/bin/python bench/connections.py [--rounds N]``. It starts the suite's throwaway PostgreSQL
(``tools.services``), then alternates the two launches of the probe (``glueball.connections.probe``), each opening
one real connection, and prints the median wall time and CPU time (the probe JVM's, from ``resource``) of each and
their ratio. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.connections import probe  # noqa: E402
from tools import services  # noqa: E402

DRIVERS = ["/usr/share/java/postgresql.jar"]


def timed(arguments: list[str], secrets: bytes) -> tuple[float, float]:
    """One probe run: (wall s, the probe JVM's CPU s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begun = time.perf_counter()
    probe._run_probe("bench", "JDBC", "postgres",
                     ["java", *probe.JVM_OPTIONS, *arguments, str(probe.LOGIN_TIMEOUT_SECONDS)], secrets)
    wall = time.perf_counter() - begun
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    pg = services.postgres()
    try:
        properties = pg.connection_properties()
        secrets = b"".join(probe._line(properties.get(key, ""))
                           for key in ("JDBC_CONNECTION_URL", "USERNAME", "PASSWORD"))
        compiled = probe.launch(probe.PROBE_SOURCE, DRIVERS, [])
        if compiled[-1] != "ConnectionProbe":
            raise SystemExit(f"the probe could not be compiled ahead here: {compiled}")
        source = ["-cp", ":".join(DRIVERS), str(probe.PROBE_SOURCE)]
        timed(compiled, secrets), timed(source, secrets)  # the page cache and the JDK's own archive warmed
        runs: dict[str, list[tuple[float, float]]] = {"compiled": [], "source": []}
        for _ in range(args.rounds):
            runs["compiled"].append(timed(compiled, secrets))
            runs["source"].append(timed(source, secrets))
    finally:
        services.stop_all()
    print(f"TestConnection's JDBC probe against PostgreSQL, {args.rounds} alternated rounds:")
    medians = {}
    for name, label in (("source", "from its .java source (before)"), ("compiled", "its class from the jar cache")):
        wall = statistics.median(r[0] for r in runs[name])
        cpu = statistics.median(r[1] for r in runs[name])
        medians[name] = (wall, cpu)
        best = min(r[0] for r in runs[name])
        print(f"  {label:<34} median wall {wall:6.3f} s  CPU {cpu:6.3f} s  (best wall {best:.3f} s)")
    print(f"  compiled / source: {medians['compiled'][0] / medians['source'][0]:.2f}x wall, "
          f"{medians['compiled'][1] / medians['source'][1]:.2f}x CPU")


if __name__ == "__main__":
    main()
