"""The course's web site (`kit site`), built from the committed notebooks and read in a real browser.

Headless Debian Chromium driven by Selenium (as tests/test_lab_browser.py) visits every page: no console error, every
image decodes, every link inside the site resolves, formulas are typeset by MathJax (served from the site), and the
search page finds a word of notebook 03. A screenshot of each page goes to `runs/site/`.
"""

import functools
import http.server
import json
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from kit import notebooks
from tests.test_lab_browser import headless_chromium

pytestmark = pytest.mark.one_backend

ROOT = Path(__file__).resolve().parent.parent
#: Every notebook's page (kit/notebooks.py).
STEMS = [nb.stem for nb in notebooks.NOTEBOOKS]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built into a temporary folder and served on localhost."""
    pytest.importorskip("myst_nb", reason="the site's packages are not installed (the kit's `site` extra)")
    import kit.course_site

    folder = tmp_path_factory.mktemp("site")
    index = Path(kit.course_site.build_site(out=folder / "html", staging=folder / "src"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(index.parent))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.handle_error = lambda *a: None  # the browser closing a connection early is not the site's fault
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", index.parent
    finally:
        server.shutdown()
        server.server_close()  # the listening socket too (an unclosed one is a ResourceWarning, an error here)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = headless_chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


def _pages(html_root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(html_root))
        for p in html_root.rglob("*.html")
        if not p.relative_to(html_root).parts[0][0] == "_"
    )


def _load(driver, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.readyState") == "complete")


def test_the_site_has_every_notebook_guide_and_the_api(site):
    _, html_root = site
    pages = _pages(html_root)
    for name in STEMS:
        assert f"{name}.html" in pages
        text = (html_root / f"{name}.html").read_text()
        nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
        figures = sum("image/png" in o.get("data", {}) for c in nb["cells"] for o in c.get("outputs", []))
        assert "Run this yourself" in text and text.count("<img") >= figures  # the box, and every figure
    assert "docs/own-data.html" in pages and "api.html" in pages and "search.html" in pages
    assert "kit.analysis.verdict_table" in (html_root / "api.html").read_text()  # from the docstrings
    assert "<details" in (html_root / "00_start_here.html").read_text()  # exercise solutions collapsed


def test_every_page_loads_clean_in_a_real_browser(site, browser):
    from selenium.webdriver.common.by import By

    base, html_root = site
    shots = ROOT / "runs" / "site"
    shots.mkdir(parents=True, exist_ok=True)
    problems, links = [], set()
    for page in _pages(html_root):
        _load(browser, f"{base}/{page}")
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        problems += [f"{page}: console error {m}" for m in errors]
        broken = browser.execute_script(
            "return [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
        )
        problems += [f"{page}: image does not decode {src}" for src in broken]
        for a in browser.find_elements(By.CSS_SELECTOR, "a[href]"):
            href = a.get_attribute("href") or ""
            if href.startswith(base):
                links.add(urllib.parse.urldefrag(href)[0])
        browser.save_screenshot(str(shots / (page.replace("/", "__").removesuffix(".html") + ".png")))
    for link in sorted(links):
        try:
            urllib.request.urlopen(link, timeout=10).close()
        except OSError as exc:
            problems.append(f"broken link {link}: {exc}")
    assert not problems, "\n".join(problems[:40])
    unlinked = (
        {f"{base}/{page}" for page in _pages(html_root)} - links - {f"{base}/search.html", f"{base}/genindex.html"}
    )
    assert not unlinked, f"pages no other page links to: {sorted(unlinked)}"  # navigation reaches every page


#: How many of a page's formulas (``.math``: MyST's ``$$ ... $$`` and ``$...$``) MathJax has not typeset yet.
UNTYPESET = "return [...document.querySelectorAll('.math')].filter(e => !e.querySelector('mjx-container')).length"


def test_formulas_are_typeset(site, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, _ = site
    _load(browser, f"{base}/docs/statistics.html")
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, "mjx-container"))
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "$$" not in body and "\\frac" not in body
    assert browser.execute_script("return !!window.MathJax && !!MathJax.startup") is True
    for page in STEMS:
        _load(browser, f"{base}/{page}.html")  # each notebook's "how it works" formulas, every one typeset
        formulas = browser.execute_script("return document.querySelectorAll('div.math').length")
        assert formulas >= 2, f"{page}: {formulas} display formulas"
        WebDriverWait(browser, 60).until(lambda d: d.execute_script(UNTYPESET) == 0, f"{page}: formulas left as TeX")


def test_search_finds_a_word_of_notebook_03(site, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, _ = site
    _load(browser, f"{base}/search.html?q=BiMPM")

    def hits(d):
        found = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "#search-results a")]
        return found if any("03_stack_and_finetune" in h for h in found) else False

    assert WebDriverWait(browser, 60).until(hits)
