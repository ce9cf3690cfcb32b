"""A tiny HTTP proxy for agentkit_http's proxy tests: CONNECT tunnels and absolute-form forwarding.

usage: connect_proxy.py LOGFILE [user:password]
Prints "PORT <n>" once listening on 127.0.0.1. Every destination is reached at 127.0.0.1 on the
requested port whatever host name the request names, so tests can use names that only the proxy
"resolves". Each request appends one line to LOGFILE: "CONNECT host:port" or "FORWARD <url>",
followed by " auth=<Proxy-Authorization value or ->". With credentials given, a request without the
matching Basic credentials is answered 407.
"""
import base64
import socket
import sys
import threading
from urllib.parse import urlsplit

LOG = sys.argv[1]
CREDENTIALS = sys.argv[2] if len(sys.argv) > 2 else None
LOCK = threading.Lock()


def log(line):
    with LOCK:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1").split("\r\n"), rest


def relay(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(conn):
    lines, rest = read_head(conn)
    if not lines:
        conn.close()
        return
    method, target, _ = lines[0].split(" ")
    headers = [l.split(":", 1) for l in lines[1:]]
    auth = next((v.strip() for k, v in headers if k.lower() == "proxy-authorization"), "-")
    if CREDENTIALS and auth != "Basic " + base64.b64encode(CREDENTIALS.encode()).decode():
        log(("CONNECT " + target if method == "CONNECT" else "FORWARD " + target) + " auth=" + auth + " refused")
        conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
        conn.close()
        return
    if method == "CONNECT":
        log("CONNECT " + target + " auth=" + auth)
        port = int(target.rsplit(":", 1)[1])
        upstream = socket.create_connection(("127.0.0.1", port))
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    else:
        log("FORWARD " + target + " auth=" + auth)
        url = urlsplit(target)
        upstream = socket.create_connection(("127.0.0.1", url.port or 80))
        path = url.path + ("?" + url.query if url.query else "")
        kept = [k + ":" + v for k, v in headers if k.lower() not in ("proxy-authorization",)]
        upstream.sendall(("%s %s HTTP/1.1\r\n" % (method, path or "/")).encode() +
                         "\r\n".join(kept).encode("latin-1") + b"\r\n\r\n" + rest)
        rest = b""
    if rest:
        upstream.sendall(rest)
    t = threading.Thread(target=relay, args=(upstream, conn), daemon=True)
    t.start()
    relay(conn, upstream)
    t.join()
    conn.close()
    upstream.close()


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print("PORT", listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
