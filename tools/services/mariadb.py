"""A throwaway MariaDB server from Debian's ``mariadb-server`` package: mariadb-install-db in
``build/services``, root without a password on 127.0.0.1 only, a free port, durability off."""

from __future__ import annotations

import subprocess
from typing import Any

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

PACKAGES = "mariadb-server package"


class MariaDB(DatabaseServer):
    ENV_VAR = "GLUEBALL_TEST_MARIADB_URL"
    SCHEME = "mysql"

    @staticmethod
    def default_port() -> int:
        return 3306

    @property
    def jdbc_url(self) -> str:
        """The JDBC URL in MySQL's scheme, as Glue connections write it (the MariaDB driver takes it)."""
        return f"jdbc:mysql://{self.host}:{self.port}/{self.database}"

    @property
    def mariadb_jdbc_url(self) -> str:
        return f"jdbc:mariadb://{self.host}:{self.port}/{self.database}"

    def connect(self, database: str | None = None) -> Any:
        """A pymysql connection in autocommit mode."""
        import pymysql

        return pymysql.connect(host=self.host, port=self.port, user=self.user, password=self.password,
                               database=database or self.database, autocommit=True)

    def check(self) -> None:
        import pymysql

        try:
            self.connect().close()
        except pymysql.MySQLError as exc:
            raise ServiceError(f"MariaDB at {self.host}:{self.port} ({self.ENV_VAR}) does not answer: {exc}") \
                from exc

    @classmethod
    def start_throwaway(cls) -> MariaDB:
        mariadbd = find_binary(("mariadbd", "mysqld"), ("/usr/sbin",), PACKAGES)
        install_db = find_binary(("mariadb-install-db", "mysql_install_db"), ("/usr/bin",), PACKAGES)
        user = service_user("mysql")
        folder = new_folder("mariadb")
        data, log, socket = folder / "data", folder / "mariadb.log", folder / "mariadb.sock"
        owner_of_folder(folder, user)
        as_user = [f"--user={user}"] if user else []
        setup = subprocess.run([install_db, "--no-defaults", f"--datadir={data}", *as_user,
                                "--auth-root-authentication-method=normal", "--skip-test-db",
                                "--skip-name-resolve"], capture_output=True, text=True)
        if setup.returncode != 0:
            raise ServiceError(f"mariadb-install-db failed:\n{setup.stdout}{setup.stderr}")
        last_error: Exception | None = None
        for _ in range(3):
            port = free_port()
            server = cls("127.0.0.1", port, "root", "", "test", folder=folder, owned=True)
            # started as its user (not told --user=, which makes mariadbd change user itself and so
            # forget that it dies with us)
            server.process = server.popen(
                [mariadbd, "--no-defaults", f"--datadir={data}", f"--port={port}", "--bind-address=127.0.0.1",
                 f"--socket={socket}", f"--pid-file={folder / 'mariadb.pid'}",
                 "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0", "--innodb-buffer-pool-size=64M",
                 "--innodb-doublewrite=0", "--max-connections=400", "--character-set-server=utf8mb4",
                 "--skip-name-resolve"], log, user)
            try:
                wait_until(lambda s=server: s._answers_socket(socket), server.process, log, f"MariaDB on {port}")
            except ServiceError as exc:
                last_error = exc
                server.process.kill()
                server.process.wait()
                continue
            server._grant_tcp_root(socket)
            return server
        raise ServiceError(f"MariaDB did not start: {last_error}")

    def _answers_socket(self, socket: object) -> bool:
        import pymysql

        pymysql.connect(unix_socket=str(socket), user="root", connect_timeout=2).close()
        return True

    def _grant_tcp_root(self, socket: object) -> None:
        """root over TCP from 127.0.0.1 (install-db makes root@localhost, which --skip-name-resolve never
        matches for a TCP client) and the ``test`` database."""
        import pymysql

        conn = pymysql.connect(unix_socket=str(socket), user="root", autocommit=True)
        try:
            with conn.cursor() as cursor:
                cursor.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''")
                cursor.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
                cursor.execute("CREATE DATABASE IF NOT EXISTS test")
        finally:
            conn.close()

