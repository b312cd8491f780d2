"""`make lab`: JupyterLab opens the welcome lesson, with no news toast, no update check, nothing fetched."""

from __future__ import annotations

from . import jlab


def test_lab_opens_the_welcome_lesson_without_toasts_or_network(lab, browser, page, workshop):
    page.goto(f"{lab.base}/?token={lab.token}")
    if (workshop / "00_welcome.ipynb").exists():
        page.wait_for_url("**/lab/tree/00_welcome.ipynb*", timeout=60_000)
    page.wait_for_selector(".jp-LabShell", timeout=120_000)
    if (workshop / "00_welcome.ipynb").exists():
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
    page.wait_for_timeout(3_000)  # long enough for a news or update toast to show up
    try:
        assert jlab.visible_toasts(page) == []
        notification = page.request.get(
            f"{lab.base}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={lab.token}"
        ).json()
        defaults = {k: v.get("default") for k, v in notification["schema"]["properties"].items()}
        assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False, defaults
        assert page.request.get(f"{lab.base}/lab/api/news?token={lab.token}").json()["news"] == []
        assert browser.external == [], f"JupyterLab tried to reach the network: {browser.external}"
    finally:
        jlab.shut_down_kernels(page, lab.base, lab.token)
