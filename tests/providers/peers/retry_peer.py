"""An independent HTTP/1.1 peer for the provider pipeline's retry tests (Python's http.server).

Prints "PORT <n>" once listening on 127.0.0.1. Each route counts its requests per `key` query
parameter, so one test's attempts are never mixed with another's.
Routes:
  /date-then-ok?key=K      first request: 503 with Retry-After as an HTTP date two seconds ahead
                           (email.utils.formatdate, IMF-fixdate); then 200 with an SSE body
  /far-date?key=K          429 with Retry-After as an HTTP date one hour ahead, every time
  /seconds-then-ok?key=K   first request: 429 with Retry-After: 1; then 200 with an SSE body
  /count?key=K             {"count": requests seen for K on any route}
"""
import email.utils
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

SSE_BODY = b'event: message\ndata: {"text":"ok"}\n\nevent: done\ndata: {}\n\n'
counts = {}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _attempt(self, key):
        with lock:
            counts[key] = counts.get(key, 0) + 1
            return counts[key]

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        self.do_GET()

    def do_GET(self):
        url = urlsplit(self.path)
        key = parse_qs(url.query).get("key", [""])[0]
        if url.path == "/count":
            with lock:
                n = counts.get(key, 0)
            self._send(200, json.dumps({"count": n}).encode(), [("Content-Type", "application/json")])
            return
        attempt = self._attempt(key)
        ok = (200, SSE_BODY, [("Content-Type", "text/event-stream")])
        error = b'{"error":{"type":"overloaded_error","message":"busy"}}'
        if url.path == "/date-then-ok":
            if attempt == 1:
                when = email.utils.formatdate(time.time() + 2, usegmt=True)
                self._send(503, error, [("Retry-After", when), ("Content-Type", "application/json")])
            else:
                self._send(*ok)
        elif url.path == "/far-date":
            when = email.utils.formatdate(time.time() + 3600, usegmt=True)
            self._send(429, error, [("Retry-After", when), ("Content-Type", "application/json")])
        elif url.path == "/seconds-then-ok":
            if attempt == 1:
                self._send(429, error, [("Retry-After", "1"), ("Content-Type", "application/json")])
            else:
                self._send(*ok)
        else:
            self._send(404)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client closing a kept-alive connection is not an error worth a traceback


server = QuietServer(("127.0.0.1", 0), Handler)
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
