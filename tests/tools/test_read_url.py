"""read_url against a local HTTP server: schemes, limits, and HTML to text."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from arena.tools import ReadUrlTool, html_to_text
from engines.agent.tools import Risk, ToolError
from tests.tools.test_files import make_pdf

PAGE = b"""<!doctype html>
<html><head><title>Banana  facts</title>
<style>body { color: yellow; }</style>
<script>var secret = "do not show";</script></head>
<body><h1>Bananas</h1><p>Bananas are <b>berries</b>.</p>
<noscript>enable javascript</noscript>
<ul><li>Yellow</li><li>Green</li></ul></body></html>"""

BIG_CHUNK = b"A" * 65536
BIG_CHUNKS = 160  # 10 MB if anyone read it all


class Site:
    """Records how much of /big it managed to send before the client hung up."""

    def __init__(self) -> None:
        self.big_sent = 0
        self.stop = threading.Event()


def make_handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):
            pass

        def send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = self.path
            if path == "/page.html":
                self.send(200, "text/html; charset=utf-8", PAGE)
            elif path == "/data.json":
                self.send(200, "application/json", b'{"fruit":"banana","count":[1,2,3]}')
            elif path == "/plain.txt":
                self.send(200, "text/plain; charset=utf-8", "Plain café text".encode())
            elif path == "/redirect":
                self.send_response(302)
                self.send_header("Location", "/page.html")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif path == "/missing":
                self.send(404, "text/plain", b"not here")
            elif path == "/image.png":
                self.send(200, "image/png", b"\x89PNG\r\n\x1a\n" + bytes(200))
            elif path == "/doc.pdf":
                self.send(200, "application/pdf", make_pdf(["Remote banana report"]))
            elif path == "/big":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(BIG_CHUNK) * BIG_CHUNKS))
                self.end_headers()
                try:
                    for _ in range(BIG_CHUNKS):
                        self.wfile.write(BIG_CHUNK)
                        site.big_sent += len(BIG_CHUNK)
                except (BrokenPipeError, ConnectionResetError):
                    pass
            elif path == "/slow":
                site.stop.wait(10)
                self.send(200, "text/plain", b"finally")
            else:
                self.send(404, "text/plain", b"no route")

    return Handler


@pytest.fixture
def site() -> Iterator[tuple[str, Site]]:
    state = Site()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/file.txt",
        "data:text/plain,hello",
        "javascript:alert(1)",
        "gopher://example.com/",
        "example.com/no-scheme",
        "http:///no-host",
    ],
)
async def test_only_http_and_https(url):
    with pytest.raises(ToolError, match="only http and https|no host"):
        await ReadUrlTool().run({"url": url})


async def test_html_becomes_text_without_scripts_or_styles(site):
    base, _ = site
    result = await ReadUrlTool().run({"url": f"{base}/page.html"})
    assert result.output.startswith(f"URL: {base}/page.html\n\nTitle: Banana facts\n\n")
    assert result.output.endswith("Bananas\nBananas are berries.\nYellow\nGreen")
    for hidden in ("do not show", "color: yellow", "enable javascript", "<b>"):
        assert hidden not in result.output
    assert result.citable and result.data["status"] == 200


async def test_redirects_are_followed(site):
    base, _ = site
    result = await ReadUrlTool().run({"url": f"{base}/redirect"})
    assert result.data["url"] == f"{base}/page.html"
    assert "Banana facts" in result.output


async def test_json_and_plain_text_pass_through(site):
    base, _ = site
    data = await ReadUrlTool().run({"url": f"{base}/data.json"})
    assert data.output.endswith(json.dumps({"fruit": "banana", "count": [1, 2, 3]}, indent=2))
    plain = await ReadUrlTool().run({"url": f"{base}/plain.txt"})
    assert plain.output.endswith("Plain café text")


async def test_pdf_text_is_extracted(site):
    base, _ = site
    result = await ReadUrlTool().run({"url": f"{base}/doc.pdf"})
    assert "Remote banana report" in result.output


async def test_byte_limit_stops_reading(site):
    base, state = site
    result = await ReadUrlTool(max_bytes=100_000, max_chars=1_000_000).run({"url": f"{base}/big"})
    assert result.data["bytes"] == 100_000
    assert result.data["truncated"] is True
    assert "stopped reading after" in result.output
    assert result.output.count("A") == 100_000
    time.sleep(0.2)
    # The client hung up early: nowhere near the 10 MB went over the wire.
    assert state.big_sent < len(BIG_CHUNK) * BIG_CHUNKS


async def test_time_limit(site):
    base, _ = site
    started = time.monotonic()
    with pytest.raises(ToolError, match="gave up .* after 0.5 s"):
        await ReadUrlTool(timeout_s=0.5).run({"url": f"{base}/slow"})
    assert time.monotonic() - started < 3


async def test_http_errors_and_binary_bodies(site):
    base, _ = site
    with pytest.raises(ToolError, match="HTTP 404"):
        await ReadUrlTool().run({"url": f"{base}/missing"})
    with pytest.raises(ToolError, match="image/png"):
        await ReadUrlTool().run({"url": f"{base}/image.png"})


async def test_unreachable_host():
    with pytest.raises(ToolError, match="could not fetch"):
        await ReadUrlTool(timeout_s=5).run({"url": "http://127.0.0.1:9/"})


def test_html_to_text_directly():
    title, text = html_to_text("<title>T</title><p>a<script>x()</script>b</p><style>p{}</style>")
    assert (title, text) == ("T", "ab")
    _, table = html_to_text(
        "<table><tr><th>fruit</th><th>colour</th></tr><tr><td>banana</td><td>yellow</td></tr>"
        "</table><p>one<br>two</p><div>three <a href='#'>link</a> four</div>"
    )
    assert table == "fruit | colour |\nbanana | yellow |\none\ntwo\nthree link four"
    assert ReadUrlTool().risk is Risk.NETWORK
