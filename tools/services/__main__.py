"""``python -m tools.services env``: start the throwaway PostgreSQL and MariaDB, print their URLs as shell
exports, and keep them running until Ctrl-C (they stop with this process)."""

from __future__ import annotations

import sys
import threading

from tools import services


def main(argv: list[str]) -> int:
    if argv[1:] != ["env"]:
        print(__doc__, file=sys.stderr)
        return 2
    pg, maria = services.postgres(), services.mariadb()
    print(f"export {pg.ENV_VAR}={pg.url}")
    print(f"export {maria.ENV_VAR}={maria.url}", flush=True)
    print("# running until Ctrl-C", file=sys.stderr)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        services.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
