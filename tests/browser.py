"""The report as its readers see it: every page loaded in headless Chromium, MathJax finished.

Used by tests/test_report_browser.py and by ``make screens``:

    python tests/browser.py build/report build/report-screens   # one PNG per page

The browser is Debian's ``chromium`` (``apt-get install chromium``), driven by playwright's
Python package through the Chrome DevTools protocol; nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
MATHJAX_TIMEOUT_MS = 60_000

# In the page: wait until MathJax has typeset everything it was given (or there is no MathJax).
WAIT_FOR_MATHJAX = """() => new Promise(resolve => {
    if (!window.MathJax || !MathJax.Hub) { resolve("no MathJax"); return; }
    MathJax.Hub.Queue(() => resolve("typeset"));
})"""
IMAGES = """() => Array.from(document.images).map(image => ({
    src: image.getAttribute("src").slice(0, 60),
    loaded: image.complete && image.naturalWidth > 0,
}))"""

LINKS = "() => Array.from(document.links).map(link => link.href)"


def _missing_file(url: str) -> bool:
    """A link to a local file (its fragment and query aside) that does not exist."""
    parts = urlsplit(url)
    return parts.scheme == "file" and not Path(url2pathname(parts.path)).exists()


def find_chromium() -> str | None:
    """The path of a Chromium on this machine (``$CHROMIUM`` first), or None."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass(frozen=True)
class RenderedPage:
    """One page after MathJax: its visible text, its typeset formulas and images."""

    name: str
    text: str  # document.body.innerText, as a reader sees it
    prose: str  # the text of the markdown cells alone
    math_elements: int  # MathJax output elements (.MathJax, .MathJax_Display, ...)
    math_errors: int  # MathJax's own error marks
    images: list[dict]  # {src, loaded}
    console_errors: list[str]
    failed_requests: list[str]  # files of the report that could not be loaded
    broken_links: list[str]  # links to a file that is not there (a reader's click fails)
    network_requests: list[str]  # anything asked of the network (http, https)


@contextmanager
def browser(executable: str | None = None) -> Iterator:
    """A headless Chromium (fresh profile) under playwright, closed on exit."""
    from playwright.sync_api import sync_playwright

    executable = executable or find_chromium()
    if executable is None:
        raise FileNotFoundError("no Chromium found (apt-get install chromium)")
    with (
        tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile,
        sync_playwright() as playwright,
    ):
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=DESKTOP,
        )
        try:
            yield context
        finally:
            context.close()


def load(context, path: Path, screenshot: Path | None = None) -> RenderedPage:
    """Open ``path`` (a file), wait for MathJax, read what a reader sees."""
    page = context.new_page()
    console_errors, failed, network = [], [], []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on(
        "requestfailed",
        lambda request: None if request.url == "about:blank" else failed.append(request.url),
    )
    page.on(
        "request",
        lambda request: (
            network.append(request.url)
            if request.url.startswith(("http:", "https:", "ws:", "wss:"))
            else None
        ),
    )
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.wait_for_function("document.readyState === 'complete'")
    page.evaluate(WAIT_FOR_MATHJAX)
    rendered = RenderedPage(
        name=path.name,
        text=page.evaluate("document.body.innerText"),
        prose=page.evaluate(
            "Array.from(document.querySelectorAll('.jp-MarkdownOutput'))"
            ".map(cell => cell.innerText).join('\\n')"
        ),
        math_elements=page.evaluate(
            "document.querySelectorAll('.MathJax, .MathJax_Display, .MathJax_SVG, mjx-container')"
            ".length"
        ),
        math_errors=page.evaluate("document.querySelectorAll('.MathJax_Error, merror').length"),
        images=page.evaluate(IMAGES),
        broken_links=[link for link in page.evaluate(LINKS) if _missing_file(link)],
        console_errors=console_errors,
        failed_requests=failed,
        network_requests=network,
    )
    if screenshot is not None:
        page.screenshot(path=str(screenshot), full_page=True)
    page.close()
    return rendered


def load_report(folder, screens=None) -> dict[str, RenderedPage]:
    """Every page of a report folder, by file name (screenshots into ``screens`` if given)."""
    folder = Path(folder)
    if screens is not None:
        screens = Path(screens)
        screens.mkdir(parents=True, exist_ok=True)
    pages = {}
    with browser() as context:
        for path in sorted(folder.glob("*.html")):
            shot = None if screens is None else screens / path.with_suffix(".png").name
            pages[path.name] = load(context, path, shot)
    return pages


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tests/browser.py REPORT_FOLDER SCREENS_FOLDER", file=sys.stderr)
        return 2
    pages = load_report(argv[0], argv[1])
    for name, page in pages.items():
        broken = sum(not image["loaded"] for image in page.images)
        print(
            f"{argv[1]}/{Path(name).with_suffix('.png').name}: {page.math_elements} formulas, "
            f"{len(page.images)} images ({broken} not loaded), {page.math_errors} math errors, "
            f"{len(page.broken_links)} broken links"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
