"""An independent HTTP/1.1 origin server for agentkit_http's client tests (Python's http.server).

usage: origin_server.py [CERTFILE KEYFILE]   (with both: HTTPS, through Python's ssl module)
Prints "PORT <n>" once listening on 127.0.0.1. Keep-alive is on (protocol_version HTTP/1.1).
Routes:
  /echo               JSON {method, path, headers, body} of the request
  /big?n=N            N bytes of 'x' with Content-Length
  /chunked?parts=a,b  each part as one chunk, then a trailer "X-Trailer: done"
  /truncated?n=N&m=M  declares Content-Length N, sends M bytes, closes the connection
  /stall              sends nothing for 60 s (first-byte timeout)
  /sse?n=N            N server-sent events, one every 20 ms, chunked
  /status?code=C      an empty response with that status
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _query(self):
        return {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def _send(self, code, body, ctype="application/octet-stream", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _route(self):
        path = urlsplit(self.path).path
        q = self._query()
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        if path == "/echo":
            doc = {"method": self.command, "path": self.path,
                   "headers": [[k, v] for k, v in self.headers.items()],
                   "body": body.decode("utf-8", "replace")}
            self._send(200, json.dumps(doc).encode(), "application/json")
        elif path == "/big":
            self._send(200, b"x" * int(q.get("n", "0")))
        elif path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Trailer", "X-Trailer")
            self.end_headers()
            for part in q.get("parts", "").split(","):
                if part:
                    self._chunk(part.encode())
            self.wfile.write(b"0\r\nX-Trailer: done\r\n\r\n")
        elif path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", q["n"])
            self.end_headers()
            self.wfile.write(b"y" * int(q["m"]))
            self.wfile.flush()
            self.close_connection = True
        elif path == "/stall":
            time.sleep(60)
        elif path == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(int(q.get("n", "3"))):
                self._chunk(b"data: %d\n\n" % i)
                time.sleep(0.02)
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/status":
            self.send_response(int(q["code"]))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(404, b"no such route\n", "text/plain")

    do_GET = do_POST = do_PUT = do_DELETE = _route

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "1234")
        self.end_headers()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) == 3:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("PORT", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
