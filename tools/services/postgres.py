"""A throwaway PostgreSQL cluster from Debian's ``postgresql`` package: initdb in ``build/services``, trust
authentication on 127.0.0.1 only, a free port, durability off (it is thrown away)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from tools.services.base import (
    DatabaseServer,
    ServiceError,
    find_binary,
    free_port,
    new_folder,
    owner_of_folder,
    service_user,
    wait_until,
)

BIN_FOLDERS = ("/usr/lib/postgresql/*/bin",)
PACKAGES = "postgresql (server) package"


class PostgreSQL(DatabaseServer):
    ENV_VAR = "GLUEBALL_TEST_POSTGRES_URL"
    SCHEME = "postgresql"

    @staticmethod
    def default_port() -> int:
        return 5432

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    def jdbc_url_of(self, database: str) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{database}"

    @property
    def dsn(self) -> str:
        """libpq's key=value form."""
        password = f" password={self.password}" if self.password else ""
        return f"host={self.host} port={self.port} dbname={self.database} user={self.user}{password}"

    def check(self) -> None:
        import psycopg

        try:
            psycopg.connect(self.url, connect_timeout=5).close()
        except psycopg.OperationalError as exc:
            raise ServiceError(f"PostgreSQL at {self.host}:{self.port} ({self.ENV_VAR}) does not answer: {exc}") \
                from exc

    def stop_signal(self) -> int:
        return signal.SIGINT  # fast shutdown: active clients are disconnected

    @classmethod
    def start_throwaway(cls) -> PostgreSQL:
        initdb = find_binary(("initdb",), BIN_FOLDERS, PACKAGES)
        postgres = str(Path(initdb).with_name("postgres"))
        user = service_user("postgres")
        folder = new_folder("postgres")
        owner_of_folder(folder, user)
        data, log = folder / "data", folder / "postgres.log"
        setup = subprocess.run([initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                "--locale=C.UTF-8", "--no-sync"], capture_output=True, text=True, user=user)
        if setup.returncode != 0:
            raise ServiceError(f"initdb failed:\n{setup.stdout}{setup.stderr}")
        last_error: Exception | None = None
        for _ in range(3):  # a free port may be taken between the choice and the bind: choose again
            port = free_port()
            server = cls("127.0.0.1", port, "postgres", "", "test", folder=folder, owned=True)
            server.process = server.popen(
                [postgres, "-D", str(data), "-p", str(port), "-k", str(folder), "-c", "listen_addresses=127.0.0.1",
                 "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                 "-c", "max_connections=400", "-c", "shared_buffers=64MB"], log, user)
            try:
                wait_until(lambda s=server: s._answers("postgres"), server.process, log, f"PostgreSQL on {port}")
            except ServiceError as exc:
                last_error = exc
                server.process.kill()
                server.process.wait()
                continue
            server._create_database("test")
            return server
        raise ServiceError(f"PostgreSQL did not start: {last_error}")

    def _answers(self, database: str) -> bool:
        import psycopg

        psycopg.connect(self.url_of(database), connect_timeout=2).close()
        return True

    def _create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url_of("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
