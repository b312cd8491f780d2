"""Real-browser fixtures: the system Chromium (through Playwright) against servers started on 127.0.0.1.

One JupyterLab and one browser (a fresh profile in a temp dir) for the whole
of tests/browser, a new page per test. Both are package-scoped, so they are
gone before the rest of the suite (nbval) runs. Nothing leaves the machine: every request that is
not to 127.0.0.1 is aborted and recorded, and a test can assert there were none.

Where Chromium, Playwright or Voila is missing, these tests fail and print the fix: a
suite that silently skipped them would pass without having looked at a browser. Set
``BOTIE_SKIP_BROWSER=1`` to skip them instead, on a machine that cannot have a browser (the
README says so); ``BOTIE_REQUIRE_BROWSER=1`` (set by .ci/run) overrides that opt-out.
On a failure, a screenshot of the page is saved and its path printed.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import servers

CHROMIUM = os.environ.get("BOTIE_CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("BOTIE_REQUIRE_BROWSER", "") not in ("", "0")
OPT_OUT = os.environ.get("BOTIE_SKIP_BROWSER", "") not in ("", "0") and not REQUIRE
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_SHOTS: list[Path] = []


def _unavailable() -> str | None:
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        return f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does this)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]')"
    return None


def _skip_or_fail(reason: str) -> None:
    if OPT_OUT:
        pytest.skip(f"{reason}; skipped because BOTIE_SKIP_BROWSER is set")
    pytest.fail(
        f"the browser tests cannot run: {reason}. To skip them on this machine instead: "
        "make test BOTIE_SKIP_BROWSER=1 (or make test-fast, which leaves them out)",
        pytrace=False,
    )


@pytest.fixture(scope="package")
def browser_ready() -> None:
    reason = _unavailable()
    if reason:
        _skip_or_fail(reason)


@pytest.fixture(scope="package")
def voila_ready(browser_ready: None) -> None:
    if importlib.util.find_spec("voila") is None:
        _skip_or_fail("Voila is not installed (pip install -e '.[present]')")


def shots_dir() -> Path:
    if not _SHOTS:
        _SHOTS.append(Path(tempfile.mkdtemp(prefix="botie-browser-failures-")))
    return _SHOTS[0]


@pytest.fixture(scope="package")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser")


@pytest.fixture(scope="package")
def workshop(scratch: Path) -> Path:
    """The scratch copy of notebooks/ that the servers serve."""
    return servers.copy_workshop(scratch / "workshop")


@pytest.fixture(scope="package")
def lab(browser_ready: None, workshop: Path, scratch: Path) -> Iterator[servers.Server]:
    server = servers.jupyterlab(workshop, scratch)
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(f"JupyterLab did not start: {exc}")
    yield server
    server.stop()


class Browser:
    """The Playwright persistent context plus the record of what it tried to fetch from outside."""

    def __init__(self, context) -> None:
        self.context = context
        self.external: list[str] = []


@pytest.fixture(scope="package")
def browser(browser_ready: None, scratch: Path) -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="profile-", dir=scratch)
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        context.set_default_timeout(30_000)
        found = Browser(context)

        def local_only(route) -> None:
            url = route.request.url
            if url.startswith(f"http://{servers.HOST}:") or url.startswith(("data:", "blob:")):
                route.continue_()
            else:
                found.external.append(url)
                route.abort()

        context.route("**/*", local_only)
        yield found
        context.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest):
    page = browser.context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    request.node._botie_page = page
    yield page
    page.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    page = getattr(item, "_botie_page", None)
    if report.when != "call" or not report.failed or page is None or page.is_closed():
        return
    path = shots_dir() / f"{item.name.replace('/', '_').replace('[', '-').replace(']', '')}.png"
    try:
        page.screenshot(path=str(path), full_page=True)
        note = f"screenshot of the page at the failure: {path}"
    except Exception as exc:  # a dead page must not hide the real failure
        note = f"could not take a screenshot: {exc}"
    print(f"\n{item.nodeid}: {note}")
    report.sections.append(("browser screenshot", note))
    server = getattr(item, "funcargs", {}).get("lab")  # a test function's fixtures (pytest.Function)
    if server is not None:  # what the server said went wrong, if anything
        errors = [
            line
            for line in server.log_tail(2000).splitlines()
            if line.startswith("[E ") or line.lstrip().startswith(("struct.error", "AttributeError"))
        ]
        report.sections.append(("JupyterLab server errors", "\n".join(errors[-20:]) or "(none logged)"))
