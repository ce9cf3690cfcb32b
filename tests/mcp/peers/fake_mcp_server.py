#!/usr/bin/env python3
"""A deliberately misbehaving MCP stdio server for the client's bad-input tests.

usage: fake_mcp_server.py MODE
MODE: legacy | modern | silent_discover | die_on_discover | stubborn
Every line received is appended to $FAKE_LOG (when set). Tool names pick behaviours (see call()).
Written with Python's own json module, independent of the C++ code under test.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "legacy"
LOG = os.environ.get("FAKE_LOG")
STATE = os.environ.get("FAKE_STATE")
MODERN = "2026-07-28"
out_lock = threading.Lock()
pending = {}  # our server->client request id -> Event + answer
next_id = [100]


def log(line):
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def write_raw(text):
    with out_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def send(obj):
    write_raw(json.dumps(obj, separators=(",", ":")))


def result(rid, res):
    send({"jsonrpc": "2.0", "id": rid, "result": res})


def error(rid, code, message, data=None):
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    send({"jsonrpc": "2.0", "id": rid, "error": err})


def text(t, **extra):
    res = {"content": [{"type": "text", "text": t}]}
    res.update(extra)
    return res


def ask_client(method, params):
    rid = next_id[0]
    next_id[0] += 1
    ev = threading.Event()
    pending[rid] = [ev, None]
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    ev.wait(10)
    return pending.pop(rid)[1]


TOOLS = [{"name": n, "description": "fake " + n, "inputSchema": {"type": "object"}} for n in (
    "ok", "dup_key", "garbage", "extra_member", "string_id", "progress", "silent", "sample", "env",
    "list_changed", "exit", "huge", "spawn_grandchild", "ask_once", "ask_forever", "image", "error")]
list_calls = [0]


def modern_meta_ok(params):
    meta = (params or {}).get("_meta", {})
    return (meta.get("io.modelcontextprotocol/protocolVersion") == MODERN and
            isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict) and
            isinstance(meta.get("io.modelcontextprotocol/clientInfo"), dict))


def modern_result(res):
    res["resultType"] = "complete"
    return res


def call(rid, params):
    name = params.get("name")
    args = params.get("arguments", {})
    modern = MODE == "modern"
    wrap = modern_result if modern else (lambda r: r)
    if name == "ok":
        return result(rid, wrap(text("ok " + json.dumps(args, separators=(",", ":")))))
    if name == "dup_key":
        write_raw('{"jsonrpc":"2.0","id":%s,"id":%s,"result":{}}' % (json.dumps(rid), json.dumps(rid)))
        return result(rid, wrap(text("after the duplicate")))
    if name == "garbage":
        write_raw("this is not JSON at all")
        return result(rid, wrap(text("after the garbage")))
    if name == "extra_member":
        return result(rid, wrap(text("smuggled", surprise=1)))
    if name == "string_id":
        return result(str(rid), wrap(text("answered with a string id")))
    if name == "progress":
        token = params.get("_meta", {}).get("progressToken")
        for i in range(int(args.get("steps", 10))):
            time.sleep(float(args.get("interval", 0.1)))
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": i + 1, "total": 10}})
        return result(rid, wrap(text("done")))
    if name == "silent":
        return None
    if name == "sample":
        answer = ask_client("sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10})
        if answer is None:
            return result(rid, wrap(text("no answer")))
        if "error" in answer:
            return result(rid, wrap(text("refused: " + answer["error"]["message"], isError=True)))
        return result(rid, wrap(text("sampled: " + answer["result"]["content"]["text"])))
    if name == "env":
        return result(rid, wrap(text("\n".join(sorted("%s=%s" % kv for kv in os.environ.items())))))
    if name == "list_changed":
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return result(rid, wrap(text("changed")))
    if name == "exit":
        os._exit(3)
    if name == "huge":
        sys.stdout.write('{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % json.dumps(rid))
        chunk = "x" * (1024 * 1024)
        for _ in range(17):
            sys.stdout.write(chunk)
        sys.stdout.write('"}]}}\n')
        sys.stdout.flush()
        return None
    if name == "spawn_grandchild":
        p = subprocess.Popen(["sleep", "60"])
        return result(rid, wrap(text(str(p.pid))))
    if name == "image":
        return result(rid, wrap({"content": [
            {"type": "text", "text": "an image follows"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}},
            {"type": "resource_link", "uri": "file:///b.txt", "name": "b"}]}))
    if name == "error":
        return result(rid, wrap(text("it broke", isError=True)))
    if name == "ask_once":
        if "inputResponses" in params:
            ok = params.get("requestState") == "opaque-state-\u00e9" and "ok" in params["inputResponses"]
            return result(rid, wrap(text("round trip " + ("intact" if ok else "corrupted") + ": " +
                                         json.dumps(params["inputResponses"]["ok"], separators=(",", ":")))))
        return result(rid, {"resultType": "input_required", "requestState": "opaque-state-\u00e9", "inputRequests": {
            "ok": {"method": args.get("method", "elicitation/create"),
                   "params": {"mode": "form", "message": "Sure?", "requestedSchema": {"type": "object"}}}}})
    if name == "ask_forever":
        return result(rid, {"resultType": "input_required", "requestState": "again", "inputRequests": {
            "ok": {"method": "elicitation/create", "params": {"mode": "form", "message": "again?",
                                                              "requestedSchema": {"type": "object"}}}}})
    return error(rid, -32602, "Tool %s not found" % name)


def handle(msg):
    method = msg.get("method")
    rid = msg.get("id")
    params = msg.get("params") or {}
    if method is None:  # a response to our server->client request
        slot = pending.get(rid)
        if slot:
            slot[1] = msg
            slot[0].set()
        return
    if rid is None:
        return  # notifications
    if MODE == "modern":
        if not modern_meta_ok(params):
            return error(rid, -32602, "missing _meta envelope")
        if method == "server/discover":
            return result(rid, {"supportedVersions": [MODERN], "capabilities": {"tools": {}},
                                "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
        if method == "initialize":
            return error(rid, -32022, "Unsupported protocol version", {"supported": [MODERN], "requested": "x"})
    else:
        if method == "server/discover":
            if MODE == "silent_discover":
                return None
            if MODE == "die_on_discover" and STATE and not os.path.exists(STATE):
                open(STATE, "w").close()
                os._exit(1)
            return error(rid, -32601, "Method not found")
        if method == "initialize":
            version = os.environ.get("FAKE_VERSION", "2025-11-25")
            return result(rid, {"protocolVersion": version, "capabilities": {"tools": {"listChanged": True}},
                                "serverInfo": {"name": "fake", "version": "1"}})
        if method == "ping":
            return result(rid, {})
    if method == "tools/list":
        list_calls[0] += 1
        res = {"tools": TOOLS}
        if MODE == "modern":
            res.update({"resultType": "complete", "ttlMs": int(os.environ.get("FAKE_TTL", "60000")),
                        "cacheScope": "private"})
        return result(rid, res)
    if method == "tools/call":
        threading.Thread(target=call, args=(rid, params), daemon=True).start()
        return None
    return error(rid, -32601, "Method not found")


def main():
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        log(line)
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        handle(msg)
    if MODE == "stubborn":
        while True:  # ignores EOF too: only SIGKILL ends it
            time.sleep(1)


main()
