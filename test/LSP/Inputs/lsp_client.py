"""A minimal LSP client for lit tests of scaly-lsp-server.

Usage: lsp_client.py <server> <file.mlir> [<line>:<character> ...]

Starts the server, sends `initialize`, `initialized` and `textDocument/didOpen`
of the file (framed JSON-RPC with Content-Length headers), prints each
diagnostic of the `textDocument/publishDiagnostics` notification as
`diagnostic <line>:<col> <severity>: <message>` (1-based), asks
`textDocument/definition` at each 1-based position given and prints
`definition <line>:<col> -> <line>:<col>`, then `shutdown` and `exit`, and
checks the server's exit status. Fails on a timeout or a malformed message.
"""

import json
import os
import select
import subprocess
import sys
import time

TIMEOUT = 60.0
SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


class Server:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buffer = b""
        self.next_id = 1

    def send(self, message):
        body = json.dumps(dict(jsonrpc="2.0", **message)).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        id_ = self.next_id
        self.next_id += 1
        self.send({"id": id_, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == id_ and "method" not in m)

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def _read_some(self, deadline):
        fd = self.proc.stdout.fileno()
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            sys.exit("lsp_client: timed out waiting for the server")
        chunk = os.read(fd, 65536)
        if not chunk:
            sys.exit("lsp_client: the server closed its output (status %s)" % self.proc.wait())
        self.buffer += chunk

    def receive(self, deadline):
        while b"\r\n\r\n" not in self.buffer:
            self._read_some(deadline)
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = None
        for line in header.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            sys.exit("lsp_client: a message without Content-Length: %r" % header)
        while len(self.buffer) < length:
            self._read_some(deadline)
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)

    def wait(self, predicate):
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self.receive(deadline)
            if predicate(message):
                return message


def main():
    server_path, path = sys.argv[1], os.path.abspath(sys.argv[2])
    positions = [tuple(int(n) for n in p.split(":")) for p in sys.argv[3:]]
    uri = "file://" + path
    server = Server([server_path])

    init = server.request("initialize", {"processId": os.getpid(), "rootUri": None,
                                         "capabilities": {}})
    capabilities = init["result"]["capabilities"]
    print("initialized definitionProvider=%s" % capabilities.get("definitionProvider"))
    server.notify("initialized", {})

    with open(path) as f:
        text = f.read()
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "mlir", "version": 1, "text": text}})
    published = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri)
    for d in sorted(published["params"]["diagnostics"],
                    key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"])):
        start = d["range"]["start"]
        print("diagnostic %d:%d %s: %s" % (start["line"] + 1, start["character"] + 1,
                                          SEVERITY.get(d.get("severity"), "?"), d["message"]))

    for line, col in positions:
        reply = server.request("textDocument/definition", {
            "textDocument": {"uri": uri}, "position": {"line": line - 1, "character": col - 1}})
        result = reply.get("result") or []
        if isinstance(result, dict):
            result = [result]
        for loc in result:
            start = loc["range"]["start"]
            print("definition %d:%d -> %d:%d%s" % (
                line, col, start["line"] + 1, start["character"] + 1,
                "" if loc["uri"] == uri else " in " + loc["uri"]))
        if not result:
            print("definition %d:%d -> none" % (line, col))

    server.request("shutdown", None)
    server.notify("exit", None)
    status = server.proc.wait(timeout=TIMEOUT)
    print("exit status %d" % status)
    return status


if __name__ == "__main__":
    sys.exit(main())
