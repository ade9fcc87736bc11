"""pi-check's command channel into a machine booted by qemu-system (the standard library
only): the host cannot enter a full-system emulator's namespaces as it enters nspawn's, so
a unit in the root serves commands on a port that qemu forwards to the host.

    box_agent.py serve PORT              (in the machine, as root: its pi-check-agent unit)
    box_agent.py run HOST:PORT ARGV...   (on the host) runs ARGV in the machine, its stdout
                                         and stderr streamed back as they come; exits with
                                         its status (128 + N when signal N ended it)

Only pi-check's emulated root has it; it is no part of the companion.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time
from typing import BinaryIO

# A frame: one byte (b"1" stdout, b"2" stderr, b"x" exit status) and a 4-byte length or status.
HEADER = struct.Struct("!cI")


class Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline()
        if not line:
            return  # a connection only to see whether the agent is up
        argv = json.loads(line)["argv"]
        lock = threading.Lock()

        def send(kind: bytes, data: bytes = b"", status: int = 0) -> None:
            with lock:
                try:
                    size = status if kind == b"x" else len(data)
                    self.wfile.write(HEADER.pack(kind, size) + data)
                    self.wfile.flush()
                except OSError:
                    pass  # the host went away; the command runs on regardless

        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as exc:
            send(b"2", f"box_agent: {argv[0]}: {exc}\n".encode())
            send(b"x", status=127)
            return

        def pump(stream: BinaryIO, kind: bytes) -> None:
            while chunk := os.read(stream.fileno(), 65536):
                send(kind, chunk)

        pumps = [
            threading.Thread(target=pump, args=(proc.stdout, b"1")),
            threading.Thread(target=pump, args=(proc.stderr, b"2")),
        ]
        for t in pumps:
            t.start()
        for t in pumps:
            t.join()
        code = proc.wait()
        send(b"x", status=128 - code if code < 0 else code)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def run(address: str, argv: list[str]) -> int:
    host, port = address.rsplit(":", 1)
    for attempt in range(30):  # the machine may still be starting its agent
        try:
            sock = socket.create_connection((host, int(port)), timeout=10)
            break
        except OSError as exc:
            if attempt == 29:
                print(f"box_agent: no agent on {address}: {exc}", file=sys.stderr)
                return 255
            time.sleep(2)
    sock.settimeout(None)
    sock.sendall(json.dumps({"argv": argv}).encode() + b"\n")
    stream = sock.makefile("rb")
    outs = {b"1": sys.stdout.buffer, b"2": sys.stderr.buffer}
    while header := stream.read(HEADER.size):
        if len(header) < HEADER.size:
            break
        kind, size = HEADER.unpack(header)
        if kind == b"x":
            return size
        outs[kind].write(stream.read(size))
        outs[kind].flush()
    print(f"box_agent: the connection to {address} ended before the command did", file=sys.stderr)
    return 255


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) == 2:
        with Server(("0.0.0.0", int(argv[1])), Handler) as server:
            server.serve_forever()
        return 0
    if argv[:1] == ["run"] and len(argv) > 2:
        return run(argv[1], argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
