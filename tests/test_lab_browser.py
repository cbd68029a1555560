"""`kit lab` in a real browser: JupyterLab on the notebooks, notebook 00's first cell run in headless Chromium.

The first screen must not ask about JupyterLab's news feed (the announcements plugin's prompt, off in kit lab).

Debian's `chromium` and `chromium-driver` packages drive it (Selenium from PyPI with the system binaries: nothing
downloads a browser); `.ci/run` installs them, elsewhere the test is skipped with what to install. A screenshot of the
page after the cell ran is written to `runs/lab/`.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.one_backend

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
#: What JupyterLab's announcements plugin asks on the first screen unless kit lab turns it off (kit/lab.py).
NEWS_PROMPT = "Would you like to get notified about official Jupyter news?"
#: Flags for a headless Chromium as root on a machine without a network (its background calls would be refused).
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1000",
)  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_server(url: str, server, log: Path, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            pytest.fail(f"kit lab stopped (exit {server.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"JupyterLab did not answer at {url} in {timeout:.0f} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def lab_server(tmp_path):
    """`kit lab` (torch, smoke) on a copy of notebook 00, on a free port with a token; stopped after the test."""
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed (the kit's `notebooks` extra)")
    folder = tmp_path / "notebooks"
    folder.mkdir()
    notebook = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text())
    for cell in notebook["cells"]:  # without its published outputs: what the page shows is what this run printed
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (folder / "00_start_here.ipynb").write_text(json.dumps(notebook))  # a copy: JupyterLab autosaves what it runs
    port, token = _free_port(), "kit-lab-test"
    jupyter = {f"JUPYTER_{k}_DIR": str(tmp_path / k.lower()) for k in ("CONFIG", "DATA", "RUNTIME")}
    env = os.environ | jupyter | {"KIT_OUT": str(tmp_path / "out"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "ws")}
    command = [sys.executable, "-m", "kit.cli", "lab", "--backend", "torch", "--scale", "smoke", "--no-browser"]
    command += ["--port", str(port), "--token", token, "--notebooks", str(folder)]
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        server = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_server(f"http://127.0.0.1:{port}/api/status?token={token}", server, log)
        yield f"http://127.0.0.1:{port}", token, log
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture
def browser(tmp_path):
    driver = headless_chromium(tmp_path / "chromium")
    try:
        yield driver
    finally:
        driver.quit()


def headless_chromium(profile, console_log: bool = False):
    """Debian's Chromium, headless, driven by Selenium with the system chromedriver (skips when either is missing).

    Args:
        profile: an empty folder for the browser's profile.
        console_log: keep the pages' console messages (``driver.get_log("browser")``).
    """
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("no Chromium: apt-get install chromium chromium-driver (Debian's; .ci/run installs them)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="Selenium is not installed (the kit's `dev` extra)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))


def test_kit_lab_runs_notebook_00s_first_cell_in_a_real_browser(lab_server, browser):
    from selenium.common.exceptions import (
        ElementNotInteractableException,
        StaleElementReferenceException,
        TimeoutException,
    )
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    url, token, log = lab_server
    assert "kernels run with KERAS_BACKEND=torch, KIT_SCALE=smoke" in log.read_text()
    browser.get(f"{url}/lab/tree/00_start_here.ipynb?token={token}")
    wait = WebDriverWait(browser, 180, poll_frequency=0.5)
    first_code_cell = ".jp-Notebook .jp-CodeCell"

    def run_first_code_cell(d):  # the page re-renders while it loads: find the cell afresh on each try
        try:
            cell = d.find_elements(By.CSS_SELECTOR, first_code_cell)[0]
            d.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
            prompt = cell.find_element(By.CSS_SELECTOR, ".jp-InputArea-prompt")
            ActionChains(d).click(prompt).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
            return True  # JupyterLab queues the cell until the kernel is up
        except (IndexError, StaleElementReferenceException, ElementNotInteractableException):
            return False

    wait.until(run_first_code_cell)

    def header(d):
        try:
            text = (
                d.find_elements(By.CSS_SELECTOR, first_code_cell)[0]
                .find_element(By.CSS_SELECTOR, ".jp-OutputArea")
                .text
            )
        except (IndexError, StaleElementReferenceException):
            return False
        return text if "outputs go to" in text else False

    shots = ROOT / "runs" / "lab"
    shots.mkdir(parents=True, exist_ok=True)
    printed = False
    try:
        for _ in range(5):  # a keypress that reached the page before the notebook was ready is lost: press again
            try:
                printed = WebDriverWait(browser, 60, poll_frequency=0.5).until(header)
                break
            except TimeoutException:
                wait.until(run_first_code_cell)
        assert printed, "the first cell printed no header in 5 minutes (screenshot in runs/lab/)"
    finally:
        browser.save_screenshot(str(shots / "00_start_here_first_cell.png"))  # what the page showed, even on failure
    assert "backend torch | scale smoke" in printed, printed
    assert "devices: CPU" in printed and "outputs go to" in printed
    page = browser.find_element(By.TAG_NAME, "body").text + browser.page_source
    assert NEWS_PROMPT not in page, "JupyterLab asks about its news feed on the first screen (kit/lab.py's page config)"
