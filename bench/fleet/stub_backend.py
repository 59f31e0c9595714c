#!/usr/bin/env python3
"""An OpenAI-shaped transcription backend that answers at once (or after --latency seconds),
for measuring Steno itself: memory, requeue and fleet efficiency without a model's cost.

It reads the whole multipart upload, counts requests, and answers verbose_json with one
segment and one word per request. GET /stats returns {"requests": N}.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()
requests = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    latency = 0.0

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = json.dumps({"requests": requests}).encode() if self.path == "/stats" else b"ok"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        global requests
        length = int(self.headers.get("Content-Length", "0"))
        remaining = length
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 16))
            if not chunk:
                break
            remaining -= len(chunk)
        with lock:
            requests += 1
        if self.latency:
            time.sleep(self.latency)
        body = json.dumps({
            "task": "transcribe", "language": "english", "duration": 1.0, "text": "Steno.",
            "segments": [{"id": 0, "start": 0.0, "end": 1.0, "text": "Steno."}],
            "words": [{"word": "Steno.", "start": 0.0, "end": 1.0}],
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True,
                        help="0: a free port the system picks, written to --port-file")
    parser.add_argument("--port-file", help="where to write the port once it is bound")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    Handler.latency = args.latency
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.port_file:
        # Written whole, then renamed: a reader never sees half a number.
        with open(args.port_file + ".new", "w") as f:
            f.write(str(server.server_port))
        os.rename(args.port_file + ".new", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
