#!/usr/bin/env python3
"""Drives examples/chat non-interactively against a loopback fake Ollama server.

The fake speaks Ollama's /api/chat the way the real server does (NDJSON lines, the last with
done:true): the first turn asks for list_files, the second answers from the tool result. The
check passes when chat streamed the text, showed the tool call and its result, sent the result
back as a role:"tool" message, and exited 0.

usage: chat_check.py <path to the chat executable>
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

RECEIVED = []
OTLP = []  # (path, body) of what chat's --otlp exporter posted


def ndjson_line(message, done=False, extra=None):
    line = {"model": "llama3.3", "created_at": "2026-11-30T00:00:00Z",
            "message": dict({"role": "assistant", "content": ""}, **message), "done": done}
    if extra:
        line.update(extra)
    return json.dumps(line) + "\n"


class FakeOllama(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.startswith("/v1/"):  # the same server plays the OTLP collector
            OTLP.append((self.path, body))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
            return
        RECEIVED.append((self.path, body))
        done = {"done_reason": "stop", "prompt_eval_count": 42, "eval_count": 7}
        if body["messages"][-1]["role"] == "tool":
            lines = [ndjson_line({"content": "The workspace holds "}),
                     ndjson_line({"content": "hello.txt."}),
                     ndjson_line({}, True, done)]
        else:
            call = {"function": {"name": "list_files", "arguments": {"path": "."}}}
            lines = [ndjson_line({"content": "Let me look."}),
                     ndjson_line({"tool_calls": [call]}),
                     ndjson_line({}, True, done)]
        payload = "".join(lines).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def fail(why, output=""):
    print("FAIL: " + why)
    if output:
        print("---- chat output ----\n" + output)
    sys.exit(1)


def main():
    chat = sys.argv[1]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOllama)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = "http://127.0.0.1:%d" % server.server_address[1]
    with tempfile.TemporaryDirectory() as root:
        # A repository whose root holds AGENTS.md, the workspace one folder below it, and a
        # skills folder named with --skills; HOME is empty so the user tier adds nothing.
        workspace = os.path.join(root, "ws")
        skills = os.path.join(root, "skills", "demo-skill")
        os.makedirs(os.path.join(root, ".git"))
        os.makedirs(workspace)
        os.makedirs(skills)
        os.makedirs(os.path.join(root, "home"))
        with open(os.path.join(workspace, "hello.txt"), "w") as f:
            f.write("hi\n")
        with open(os.path.join(root, "AGENTS.md"), "w") as f:
            f.write("Answer in one line.\n")
        with open(os.path.join(skills, "SKILL.md"), "w") as f:
            f.write("---\nname: demo-skill\ndescription: Shows that skills load.\n---\nBody\n")
        env = dict(os.environ, AGENTKIT_TELEMETRY="0", HOME=os.path.join(root, "home"))
        env.pop("OLLAMA_HOST", None)
        argv = [chat, "--model", "ollama/llama3.3", "--base-url", base_url,
                "--workspace", workspace, "--skills", os.path.join(root, "skills"),
                "--trust-project", "--otlp", base_url]
        run = subprocess.run(argv, input="What files are here?\n/quit\n", capture_output=True,
                             text=True, env=env, timeout=60)
    server.shutdown()
    out = run.stdout + run.stderr
    if run.returncode != 0:
        fail("chat exited %d" % run.returncode, out)
    for expected in ["Let me look.", "→ list_files", "← hello.txt",
                     "The workspace holds hello.txt.", "skill: demo-skill (folder, ", "context: ",
                     "AGENTS.md (20 bytes)"]:
        if expected not in out:
            fail("the output lacks %r" % expected, out)
    if "[tokens in 84 (cached 0) out 14 | $0.0000 | first token " not in out:
        fail("the output lacks the per-turn status line", out)
    spans = [s["name"] for path, doc in OTLP if path == "/v1/traces"
             for s in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    if "invoke_agent chat" not in spans or spans.count("chat llama3.3") != 2 \
            or "execute_tool list_files" not in spans:
        fail("the collector did not get the run's spans: %r" % spans, out)
    if len(RECEIVED) != 2:
        fail("the fake server received %d requests, expected 2" % len(RECEIVED), out)
    first, second = RECEIVED[0][1], RECEIVED[1][1]
    if RECEIVED[0][0] != "/api/chat" or first.get("stream") is not True or first.get("model") != "llama3.3":
        fail("the first request is not a streamed /api/chat call for llama3.3: %r" % (RECEIVED[0],))
    system = first["messages"][0]
    if system.get("role") != "system" or "- name: demo-skill" not in system.get("content", "") \
            or "Answer in one line." not in system.get("content", ""):
        fail("the system prompt lacks the skill or the context file: %r" % system)
    names = [t["function"]["name"] for t in first.get("tools", [])]
    if "list_files" not in names or "read_file" not in names:
        fail("the built-in tools were not offered: %r" % names)
    tool_message = second["messages"][-1]
    if tool_message.get("tool_name") != "list_files" or "hello.txt" not in tool_message.get("content", ""):
        fail("the tool result did not go back as a role:tool message: %r" % tool_message)
    assistant = second["messages"][-2]
    if assistant.get("tool_calls") != [{"function": {"name": "list_files", "arguments": {"path": "."}}}]:
        fail("the tool call was not replayed as received: %r" % assistant)
    print("PASS: chat loaded the skill and AGENTS.md, streamed the reply, ran list_files and "
          "sent its result back")


if __name__ == "__main__":
    main()
