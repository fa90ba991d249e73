"""`read_url`: fetch an http(s) page as readable text, within byte and time limits."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from arena import __version__
from arena.tools._base import cap_text, human_size, string_arg
from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]+\+)?json$")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object")
# Elements that start a new line; inline ones (b, a, span, ...) stay within their sentence.
_BLOCK_TAGS = (
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "li",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
    "table",
    "tr",
    "caption",
    "figure",
    "figcaption",
    "form",
    "hr",
    "address",
    "details",
    "summary",
)
_CELL_TAGS = ("td", "th")


def html_to_text(html: bytes | str, encoding: str | None = None) -> tuple[str, str]:
    """(title, readable text) of an HTML document; scripts and styles are dropped."""
    from bs4 import BeautifulSoup

    if isinstance(html, bytes):
        soup = BeautifulSoup(html, "html.parser", from_encoding=encoding)
    else:
        soup = BeautifulSoup(html, "html.parser")
    for tag in soup(_DROPPED_TAGS):
        tag.decompose()
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    if soup.title:
        soup.title.decompose()
    for tag in soup.find_all("br"):
        tag.replace_with("\n")
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before("\n")
        tag.insert_after("\n")
    for tag in soup.find_all(_CELL_TAGS):
        tag.insert_after(" | ")
    lines = (" ".join(line.split()) for line in soup.get_text().splitlines())
    text = "\n".join(line for line in lines if line)
    return title, text


class ReadUrlTool:
    """GETs an http or https URL; HTML becomes text, JSON is pretty-printed, text passes through.

    Stops reading after `max_bytes` (and says so) and gives up after `timeout_s` in all.
    """

    risk = Risk.NETWORK
    needs_approval = False

    def __init__(
        self,
        *,
        max_bytes: int = 2_000_000,
        timeout_s: float = 20.0,
        max_chars: int = 40_000,
        max_redirects: int = 5,
        user_agent: str | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.max_chars = max_chars
        self.max_redirects = max_redirects
        self.user_agent = user_agent or f"BananaArena/{__version__} (read_url tool)"
        self.spec = ToolSpec(
            name="read_url",
            description=(
                "Fetch a web page or file over http(s) and return it as text (HTML converted "
                f"to text, JSON pretty-printed, PDF text extracted). Reads at most "
                f"{human_size(max_bytes)} in {timeout_s:g} s; output capped at {max_chars:,} "
                "characters."
            ),
            parameters={
                "type": "object",
                "properties": {"url": {"type": "string", "description": "An http or https URL."}},
                "required": ["url"],
            },
        )

    def _check_url(self, url: str) -> str:
        url = url.strip()
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            shown = f"'{scheme}:'" if scheme else "a URL without a scheme"
            raise ToolError(f"only http and https URLs can be read, not {shown}")
        if not parts.hostname:
            raise ToolError(f"the URL {url!r} has no host name")
        return url

    async def run(self, args: dict[str, Any]) -> ToolResult:
        url = self._check_url(string_arg(args, "url"))
        import httpx

        body = bytearray()
        truncated = False
        try:
            async with (
                asyncio.timeout(self.timeout_s),
                httpx.AsyncClient(
                    follow_redirects=True,
                    max_redirects=self.max_redirects,
                    timeout=self.timeout_s,
                    headers={"User-Agent": self.user_agent, "Accept": "*/*"},
                ) as client,
                client.stream("GET", url) as response,
            ):
                final_url = str(response.url)
                if response.status_code >= 400:
                    raise ToolError(
                        f"HTTP {response.status_code} {response.reason_phrase} from {final_url}"
                    )
                async for chunk in response.aiter_bytes():
                    room = self.max_bytes - len(body)
                    if len(chunk) > room:
                        body += chunk[:room]
                        truncated = True
                        break
                    body += chunk
                content_type = response.headers.get("content-type", "")
                charset = response.charset_encoding
                status = response.status_code
        except TimeoutError:
            raise ToolError(f"gave up on {url} after {self.timeout_s:g} s") from None
        except httpx.TimeoutException:
            raise ToolError(f"gave up on {url} after {self.timeout_s:g} s") from None
        except httpx.TooManyRedirects:
            raise ToolError(f"too many redirects from {url}") from None
        except httpx.HTTPError as exc:
            detail = str(exc) or type(exc).__name__
            raise ToolError(f"could not fetch {url}: {detail}") from None
        # Parsing a big page takes a while; keep the event loop free.
        text = await asyncio.to_thread(self._to_text, bytes(body), content_type, charset, truncated)
        header = f"URL: {final_url}"
        if truncated:
            note = (
                f"\n[stopped reading after {human_size(self.max_bytes)}; the rest of the page "
                "was not downloaded]"
            )
        else:
            note = ""
        capped, cut = cap_text(text, self.max_chars)
        return ToolResult(
            output=f"{header}\n\n{capped}{note}",
            data={
                "url": final_url,
                "status": status,
                "content_type": content_type,
                "bytes": len(body),
                "truncated": truncated or cut,
            },
        )

    def _to_text(self, body: bytes, content_type: str, charset: str | None, truncated: bool) -> str:
        mime = content_type.split(";")[0].strip().lower()
        if mime in _HTML_TYPES or (
            not mime and body.lstrip()[:15].lower().startswith(b"<!doctype html")
        ):
            title, text = html_to_text(body, charset)
            return f"Title: {title}\n\n{text}" if title else text
        if mime == "application/pdf" or body.startswith(b"%PDF-"):
            return self._pdf_text(body, truncated)
        decoded = self._decode(body, charset, mime)
        if _JSON_TYPE.match(mime) and not truncated:
            try:
                return json.dumps(json.loads(decoded), indent=2, ensure_ascii=False)
            except ValueError:
                return decoded
        return decoded

    def _decode(self, body: bytes, charset: str | None, mime: str) -> str:
        textual = (
            mime.startswith("text/")
            or _JSON_TYPE.match(mime)
            or mime.endswith("+xml")
            or mime
            in (
                "application/xml",
                "application/javascript",
                "",
            )
        )
        if not textual or b"\x00" in body[:8192]:
            raise ToolError(
                f"the URL returned {mime or 'binary data'} ({human_size(len(body))}), "
                "which cannot be shown as text"
            )
        try:
            return body.decode(charset or "utf-8")
        except (LookupError, UnicodeDecodeError):
            return body.decode("utf-8", errors="replace")

    def _pdf_text(self, body: bytes, truncated: bool) -> str:
        if truncated:
            raise ToolError(
                f"the PDF is larger than {human_size(self.max_bytes)}; it cannot be read in part"
            )
        import pypdf

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = pypdf.PdfReader(io.BytesIO(body))
            pages = [
                f"--- page {n} of {len(reader.pages)} ---\n{(page.extract_text() or '').strip()}"
                for n, page in enumerate(reader.pages, start=1)
            ]
        except Exception as exc:  # pypdf raises many kinds for broken files
            raise ToolError(f"could not read the PDF: {exc}") from None
        return "\n\n".join(pages) or "(the PDF has no pages)"
