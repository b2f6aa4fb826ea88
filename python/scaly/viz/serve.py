"""The recordings browser's server (scaly.viz.serve, the scaly_viz command).

It serves exactly its static assets and the recordings file, bound to
127.0.0.1 by default: any other path, `..` or encoded traversal or absolute
path gets 404. A missing or corrupt recordings file is served as a JSON
object with an "error" message the page shows.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .recording import load_recordings, recording_path

STATIC = Path(__file__).resolve().parent / "static"
# URL path -> (file name under static/, content type). Nothing else is served.
ASSETS = {"/": ("index.html", "text/html; charset=utf-8"),
          "/index.html": ("index.html", "text/html; charset=utf-8"),
          "/viz.js": ("viz.js", "text/javascript; charset=utf-8"),
          "/viz.css": ("viz.css", "text/css; charset=utf-8"),
          "/elk.js": ("elk.js", "text/javascript; charset=utf-8")}


def recordings_payload(path: Path) -> bytes:
    """The recordings file as the page reads it: the list, or {"error": ...}."""
    if not path.exists():
        return json.dumps({"error": f"No recordings yet: {path} does not exist. Mark a "
                           "function with scaly.viz.visualize and render it."}).encode()
    try:
        return json.dumps(load_recordings(path)).encode()
    except (OSError, ValueError) as e:
        return json.dumps({"error": f"{path} is not a readable recordings file: {e}"}).encode()


class VizServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, recording_file: Path):
        self.recording_file = Path(recording_file)
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
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == "/recordings.json":
            return self._send(200, recordings_payload(self.server.recording_file),
                              "application/json")
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
    """Serve the recordings at ``path`` (default ``recording_path()``) until
    interrupted; the ``scaly_viz`` command runs this."""
    recording_file = Path(path) if path is not None else recording_path()
    server = VizServer((host, port), recording_file)
    url = f"http://{host}:{server.server_address[1]}"
    print(f"*** scaly viz serving {recording_file} on {url}", flush=True)
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
    parser.add_argument("--path", default=None, help="recordings file (default: recording_path())")
    args = parser.parse_args(argv)
    serve(host=args.host, port=args.port, path=args.path, open_browser=args.browser)
