"""The Hive metastore's Thrift endpoint over the Glue Data Catalog.

A listening socket (a free loopback port unless told otherwise) and a thread per connection, each
running the processor that Apache Thrift generated from ``hive_metastore.thrift`` (the ``pymetastore``
package's bindings) with :class:`~glueball.metastore.handlers.HiveMetastoreHandler` behind it — the
plain socket, buffered transport and binary protocol a Hive client uses by default
(``hive.metastore.sasl.enabled``, ``...framed.transport.enabled`` and ``...compact.protocol.enabled``
false). The socket is bound when the endpoint is made, so its URI can go into Spark's settings at once;
the protocol modules (a few hundred milliseconds to import) load in the serving thread.
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any

from glueball.metastore.service import Metastore

log = logging.getLogger("glueball.metastore")


class HiveMetastoreEndpoint:
    """A Hive metastore Thrift endpoint serving ``metastore``'s catalog, started at construction.

    Args:
        metastore: the catalog behind it.
        host: the address to listen on (loopback by default: Thrift's Hive metastore protocol has no
            authentication of its own, so whoever reaches the port acts as the endpoint's Glue client).
        port: the port, 0 for any free one.
    """

    def __init__(self, metastore: Metastore, host: str = "127.0.0.1", port: int = 0) -> None:
        self.metastore = metastore
        self._socket = socket.create_server((host, port), backlog=64, reuse_port=False)
        self.host, self.port = self._socket.getsockname()[:2]
        self._stopped = threading.Event()
        self._processor: Any = None
        self._thread = threading.Thread(target=self._serve, name="glueball-hms", daemon=True)
        self._thread.start()

    @property
    def uri(self) -> str:
        """``thrift://host:port``, what ``hive.metastore.uris`` takes."""
        return f"thrift://{self.host}:{self.port}"

    def _serve(self) -> None:
        from pymetastore.hive_metastore import ThriftHiveMetastore

        from glueball.metastore.handlers import HiveMetastoreHandler

        self._processor = ThriftHiveMetastore.Processor(HiveMetastoreHandler(self.metastore))
        while not self._stopped.is_set():
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return  # closed by stop()
            threading.Thread(target=self._connection, args=(connection,), name="glueball-hms-call",
                             daemon=True).start()

    def _connection(self, connection: socket.socket) -> None:
        from thrift.protocol import TBinaryProtocol
        from thrift.transport import TSocket, TTransport

        client = TSocket.TSocket()
        client.setHandle(connection)
        transport = TTransport.TBufferedTransport(client)
        protocol = TBinaryProtocol.TBinaryProtocolAccelerated(transport)
        try:
            while not self._stopped.is_set():
                self._processor.process(protocol, protocol)
        except TTransport.TTransportException:
            pass  # the client closed the connection
        except Exception:
            log.exception("Hive metastore connection failed")
        finally:
            transport.close()

    def stop(self) -> None:
        """Stop listening; calls under way finish."""
        self._stopped.set()
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._socket.close()
