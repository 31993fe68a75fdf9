"""The sandbox's end of the skill network (DESIGN section 14).

Runs inside the sandbox, whose network namespace has only loopback: listens on
127.0.0.1:3128 and pipes every connection, byte for byte, to the server's egress proxy
over the unix socket given as the only argument (bound into the sandbox). Programs use it
with HTTP_PROXY and HTTPS_PROXY set to http://127.0.0.1:3128. All checking is the proxy's:
this end only carries bytes, so nothing here is trusted.

Python 3 standard library only: it runs under the sandbox's /usr/bin/python3.
"""

import socket
import sys
import threading

LISTEN = ("127.0.0.1", 3128)
CHUNK = 64 * 1024


def pump(source, sink):
    """Copies one direction until it ends, then passes the end on (a half close)."""
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def carry(client, proxy_path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(proxy_path)
    except OSError as error:
        message = "the network proxy is not reachable from this sandbox (%s)\n" % error.strerror
        answer = "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
        try:
            client.sendall((answer % (len(message), message)).encode("ascii", "replace"))
        except OSError:
            pass
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: egress-forwarder.py /path/to/proxy.sock\n")
        return 2
    proxy_path = sys.argv[1]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(LISTEN)
    listener.listen(64)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=carry, args=(client, proxy_path), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
