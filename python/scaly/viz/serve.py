"""The recordings browser's server (scaly.viz.serve, the scaly_viz command).

It serves exactly its static assets, the recordings' index (`/index.json`,
from the `from`-th entry on with `?from=N`, so a page polling it gets only what
is new) and one recording at a time (`/recording?id=<id>`, an id of the index),
bound to 127.0.0.1 by default: any other path, `..` or encoded traversal or
absolute path gets 404. A corrupt recordings file is served as a JSON object
with an "error" message the page shows.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

from .recording import INDEX_NAME, LEGACY_NAME, _directory, _parse_index, load_index, \
    load_recording, recording_dir

STATIC = Path(__file__).resolve().parent / "static"
# URL path -> (file name under static/, content type). Nothing else is served.
ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/viz.js": ("viz.js", "text/javascript; charset=utf-8"),
          "/diff.js": ("diff.js", "text/javascript; charset=utf-8"),
          "/viz.css": ("viz.css", "text/css; charset=utf-8"),
          "/elk.js": ("elk.js", "text/javascript; charset=utf-8")}


class IndexReader:
    """The index of a recordings directory, read incrementally: each read parses only
    the lines appended since the last (a cleared or rewritten index is read again)."""

    def __init__(self, path: Path):
        self.directory, self.legacy = _directory(path)
        self.lock = threading.Lock()
        self.offset, self.entries, self.legacy_key, self.legacy_entries = 0, [], None, []

    def read(self) -> list:
        """The entries, oldest first; ValueError for a legacy file that is not a list."""
        with self.lock:
            if self.legacy is not None:
                return load_index(self.legacy)
            old = self.directory / LEGACY_NAME
            try:
                st = old.stat()
                key = (st.st_mtime_ns, st.st_size)
            except FileNotFoundError:
                key = None
            if key != self.legacy_key:
                self.legacy_entries = load_index(old) if key else []
                self.legacy_key = key
            index = self.directory / INDEX_NAME
            try:
                with open(index, "rb") as f:
                    size = os.fstat(f.fileno()).st_size
                    if size < self.offset:
                        self.offset, self.entries = 0, []
                    f.seek(self.offset)
                    data = f.read(size - self.offset)
            except FileNotFoundError:
                self.offset, self.entries, data = 0, [], b""
            complete = data.rfind(b"\n") + 1  # a line being written waits for the next read
            self.entries.extend(_parse_index(data[:complete]))
            self.offset += complete
            return self.legacy_entries + self.entries

    def exists(self) -> bool:
        if self.legacy is not None:
            return self.legacy.exists()
        return (self.directory / INDEX_NAME).exists() or (self.directory / LEGACY_NAME).exists()


def index_payload(reader: IndexReader, start: int = 0) -> bytes:
    """The index as the page reads it: {"count", "recordings": entries from `start` on},
    with a "note" when there are none yet, or {"error": ...}."""
    where = reader.legacy or reader.directory
    try:
        entries = reader.read()
    except (OSError, ValueError) as e:
        return json.dumps({"error": f"{where} is not a readable recordings file: {e}"}).encode()
    out = {"count": len(entries), "from": start, "recordings": entries[start:]}
    if not entries:
        out["note"] = (f"No recordings yet in {where}. Mark a function with "
                       "scaly.viz.visualize and render it; this page picks it up.")
    return json.dumps(out).encode()


class VizServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, path: Path):
        """Serve the recordings at ``path``: a recordings directory, its index file, or a
        recordings.json list of the earlier layout."""
        self.recordings = Path(path)
        self.index = IndexReader(self.recordings)
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: VizServer

    def log_message(self, *args):  # quiet: the terminal shows only the URL
        pass

    def _send(self, status, body: bytes, content_type: str):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        # The raw path is compared as is: "/%2e%2e/x", "/../x" or "//etc/passwd"
        # match no entry, so they are 404 like every other unknown path.
        path, _, query = self.path.split("#", 1)[0].partition("?")
        params = parse_qs(query)
        if path == "/index.json":
            try:
                start = max(0, int(params.get("from", ["0"])[0]))
            except ValueError:
                start = 0
            return self._send(200, index_payload(self.server.index, start), "application/json")
        if path == "/recording":
            rid = params.get("id", [""])[0]
            try:
                known = {e["id"] for e in self.server.index.read()}
                if rid not in known:
                    raise KeyError(rid)
                body = json.dumps(load_recording(rid, self.server.recordings)).encode()
            except (KeyError, OSError, ValueError):
                return self._send(404, json.dumps({"error": f"no recording {rid!r}"}).encode(),
                                  "application/json")
            return self._send(200, body, "application/json")
        asset = ASSETS.get(path)
        if asset is None:
            return self._send(404, b"not found\n", "text/plain; charset=utf-8")
        name, content_type = asset
        try:
            body = (STATIC / name).read_bytes()
        except OSError:  # elk.js before scripts/setup.sh bundled it
            return self._send(404, f"{name} is not built: run scripts/setup.sh\n".encode(),
                              "text/plain; charset=utf-8")
        return self._send(200, body, content_type)

    do_HEAD = do_GET


def no_browser_reason(environ=None, platform=None) -> str | None:
    """Why no browser can be opened here, or None. On Linux and the BSDs a graphical
    browser needs a display: without DISPLAY or WAYLAND_DISPLAY, webbrowser would
    find none, or start a text browser (lynx, w3m) in the server's terminal."""
    import sys
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
            return "no display (DISPLAY and WAYLAND_DISPLAY are not set)"
    return None


def _open(url):
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error as e:
        opened, why = False, str(e)
    else:
        why = ("Python's webbrowser module found no browser, or the browser it ran failed "
               "(set BROWSER to choose one)")
    if not opened:
        print(f"*** no browser opened: {why}; open {url} yourself", flush=True)


def serve(*, host: str = "127.0.0.1", port: int = 8000, path=None,
          open_browser: bool = False) -> None:
    """Serve the recordings at ``path`` (default ``recording_dir()``; a recordings
    directory, or a recordings.json of the earlier layout) until interrupted; the
    ``scaly_viz`` command runs this."""
    recordings = Path(path) if path is not None else recording_dir()
    server = VizServer((host, port), recordings)
    url = f"http://{host}:{server.server_address[1]}"
    print(f"*** scaly viz serving {recordings} on {url}", flush=True)
    if open_browser:
        reason = no_browser_reason()
        if reason:
            print(f"*** no browser opened: {reason}; open {url} yourself", flush=True)
        else:
            threading.Timer(0.2, lambda: _open(url)).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("*** scaly viz shutting down")
    finally:
        server.server_close()


def main(argv=None):
    """The scaly_viz command: serve the recordings, optionally opening a browser."""
    parser = argparse.ArgumentParser(prog="scaly_viz", description=main.__doc__)
    parser.add_argument("--browser", action="store_true", help="open the page in a browser")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free)")
    parser.add_argument("--path", default=None, help="recordings directory, or a recordings.json of the earlier layout "
                             "(default: recording_dir())")
    args = parser.parse_args(argv)
    serve(host=args.host, port=args.port, path=args.path, open_browser=args.browser)
