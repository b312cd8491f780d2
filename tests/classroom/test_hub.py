"""A class on one hub: three learners get the workshop through nbgitpuller, run a check, answer a
prediction and the concept check in their kernels, and the instructor's room shows the right rows, where
the room is stuck, how it predicted and what it learned (read in Chromium after logging in through the
hub); learners cannot read each other's progress; stopping the hub with servers, kernels and services
running leaves no process behind.

One hub for the whole module (127.0.0.1, dummy authenticator, local process spawner), stopped at the
end with every process it started. Select it with ``-m hub``; it needs the ``classroom`` extra.
"""

from __future__ import annotations

import json
import os
import stat
import time
from urllib.parse import quote

import pytest

from tests.notebooks.test_notebooks import ROOT

pytestmark = [pytest.mark.hub, pytest.mark.slow]

LEARNERS = ("ana", "bo", "cy")
INSTRUCTOR = "lee"
PROGRESS = "botie-workshop/notebooks/botie-progress.json"
LESSON = "botie-workshop/notebooks/01_which_records.ipynb"

RIGHT = """
from botie.lessons import check, hint
def permitted(records, allowed_assets):
    return [r for r in records if r.asset in allowed_assets]
check(permitted)
"""
WRONG = """
from botie.lessons import check, hint
def permitted(records, allowed_assets):
    return list(records)
for _ in range(3):
    check(permitted)
hint("permitted"); hint("permitted")
"""
STUB = """
from botie.lessons import check
def permitted(records, allowed_assets):
    raise NotImplementedError("your code here")
check(permitted)
"""
CODE = {"ana": RIGHT, "bo": WRONG, "cy": STUB}
#: Each learner commits to a prediction in lesson 01 (option 1, "only the first (6)", is right).
QUESTION = "prefix-6-5-in-8"
CHOICE = {"ana": 1, "bo": 0, "cy": 0}
PREDICT = """
from botie.lessons.exercises.predict import answer
print(answer({question!r}, {choice}).correct)
"""
#: The concept check: ana knows every idea before and after; bo none before, all after; cy takes only the first,
#: and misses everything. Per idea: 1 of 3 right before, 2 of 2 after, gain (2 - 1) / (2 - 1) = 1 over ana and bo.
CONCEPT_CHECKS = {"ana": (True, True), "bo": (False, True), "cy": (False, None)}
CONCEPT = """
from botie.lessons.exercises.concept_check import answer_check
from botie.lessons.exercises.concepts import CONCEPTS
def options(right):
    return {{c: k.question.answer if right else (k.question.answer + 1) % len(k.question.options)
            for c, k in CONCEPTS.items()}}
answer_check("before", options({before}))
if {after} is not None:
    answer_check("after", options({after}))
"""
CHROMIUM = os.environ.get("BOTIE_CHROMIUM", "/usr/bin/chromium")


def _require_classroom() -> None:
    try:
        import jupyterhub  # noqa: F401
        import nbgitpuller  # noqa: F401
        import psutil  # noqa: F401
    except ImportError as exc:
        pytest.fail(
            f"the hub test needs the classroom extra ({exc}). Fix: make classroom-env "
            '(or pip install -e ".[classroom]")',
            pytrace=False,
        )


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    _require_classroom()
    from tools.hub_driver import LocalHub, workshop_repo

    tmp = tmp_path_factory.mktemp("hub")
    bare = workshop_repo(ROOT, tmp)
    local = LocalHub(ROOT, tmp, LEARNERS, (INSTRUCTOR,), refresh=3)
    with local:
        client, operator = local.client, local.operator
        tokens = {}
        for user in LEARNERS:
            client.start_server(operator, user)
            tokens[user] = client.token_for(operator, user)
        tokens[INSTRUCTOR] = client.token_for(operator, INSTRUCTOR)
        yield {
            "client": client,
            "operator": operator,
            "room": local.room_token,
            "tokens": tokens,
            "bare": bare,
            "homes": tmp / "homes",
            "sockets": local.sockets,  # LocalHub puts each learner's kernel sockets in k-<learner> here
            "log": local.log_path,
            "local": local,
        }
        local.remember_processes()
    assert local.seen, "the test never saw the hub's processes, so it could not check they all ended"
    seen = " ".join(local.seen_commands.values())
    for piece in ("jupyterhub-singleuser", "ipykernel_launcher", "room_service", "jupyterhub_idle_culler", "proxy"):
        assert piece in seen, f"the hub was stopped without a running {piece}, so this did not show it stops"
    assert not local.left_behind, f"processes left behind after the hub stopped: {local.left_behind_text()}"
    # each learner's server shut its own kernels down (rather than leaving them to notice it had gone)
    assert local.log_path.read_text().count("Shutting down 1 kernel") >= len(LEARNERS) - 1  # bo's stopped earlier


@pytest.fixture(scope="module")
def classroom(hub):
    """Each learner pulls the workshop with nbgitpuller, opens lesson 01 and runs a check in its kernel."""
    client, tokens = hub["client"], hub["tokens"]
    printed = {}
    for user in LEARNERS:
        client.git_pull(user, tokens[user], f"file://{hub['bare']}", "learner", "botie-workshop")
        kernel = client.open_notebook(user, tokens[user], LESSON)
        before, after = CONCEPT_CHECKS[user]
        code = (
            CODE[user]
            + CONCEPT.format(before=before, after=after)
            + PREDICT.format(question=QUESTION, choice=CHOICE[user])
        )
        run = client.execute(user, tokens[user], kernel, code)
        assert run.error is None, f"{user}'s kernel raised {run.error}: {run.stdout}"
        printed[user] = run.stdout
    hub["local"].remember_processes()  # servers and kernels are all up now
    return printed


def _room(hub) -> dict:
    status, rows = hub["client"].request("GET", "/services/botie-room/api/room", hub["tokens"][INSTRUCTOR])
    assert status == 200, hub["log"].read_text()[-4000:]
    return {row["learner"]: row for row in rows}


def test_learners_get_the_learner_edition_without_solutions(hub, classroom):
    home = hub["homes"] / "ana" / "botie-workshop"
    assert (home / "notebooks" / "01_which_records.ipynb").is_file()
    assert not (home / "notebooks" / "instructor").exists() and not (home / "tests").exists()
    for notebook in (home / "notebooks").glob("*.ipynb"):
        assert "# BEGIN SOLUTION" not in notebook.read_text()


def test_each_kernel_ran_its_check(classroom):
    assert "cases passed. Well done!" in classroom["ana"]
    assert classroom["bo"].count("cases passed.") == 3 and "Hint 2 of" in classroom["bo"]
    assert "permitted: not yet." in classroom["cy"]
    assert [classroom[u].splitlines()[-1] for u in LEARNERS] == ["True", "False", "False"]


def test_kernels_talk_to_their_server_over_sockets_in_the_learners_own_folder(hub, classroom):
    """No TCP port is picked for a kernel, so none can be taken by another connection before it binds."""
    for user in LEARNERS:
        folder = hub["sockets"] / f"k-{user}"
        assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0, f"{folder} is open to others"
        (connection,) = folder.glob("kernel-*.json")  # each learner has one kernel open
        info = json.loads(connection.read_text())
        assert info["transport"] == "ipc" and info["ip"] == str(folder / f"{connection.stem}-ipc")
        sockets = [p for p in folder.iterdir() if stat.S_ISSOCK(p.stat().st_mode)]
        assert len(sockets) == 5  # shell, iopub, stdin, control, heartbeat
        assert all(len(str(p).encode()) <= 107 for p in sockets)


def test_the_room_shows_three_rows_with_the_right_results(hub, classroom):
    room = _room(hub)
    assert sorted(room) == sorted(LEARNERS)  # the instructor is not a row
    ana, bo, cy = (room[u]["entries"]["permitted"] for u in LEARNERS)
    assert (ana["status"], ana["attempts"], room["ana"]["stuck"]) == ("passed", 1, [])
    assert (bo["status"], bo["attempts"], bo["hints"], room["bo"]["stuck"]) == ("not yet", 3, 2, ["permitted"])
    assert (cy["status"], cy["attempts"], cy["hints"]) == ("not yet", 1, 1)
    assert all(room[u]["state"] == "progress read" and room[u]["last_activity"] for u in LEARNERS)
    status, page = hub["client"].request("GET", "/services/botie-room/", hub["tokens"][INSTRUCTOR])
    assert status == 200 and 'data-refresh="3"' in page and "class='stuck'" in page


def test_the_summary_and_the_poll_count_the_room_without_names(hub, classroom):
    client, token = hub["client"], hub["tokens"][INSTRUCTOR]
    status, summary = client.request("GET", "/services/botie-room/api/summary?lesson=01", token)
    assert status == 200 and summary["learners"] == 3
    permitted = next(e for e in summary["exercises"] if e["name"] == "permitted")
    # ana passed, bo failed three times (stuck), cy only ran the stub (not started)
    counts = (permitted["passed"], permitted["trying"], permitted["stuck"], permitted["not_started"])
    assert counts == (1, 0, 1, 1) and permitted["stuck_learners"] == ["bo"]
    (poll,) = summary["polls"]
    assert (poll["question"], poll["counts"], poll["answer"]) == (QUESTION, [2, 1, 0, 0], None)
    assert sorted(poll) == ["answer", "counts", "lesson", "options", "question", "unrecorded"]  # nobody's name
    status, revealed = client.request("GET", f"/services/botie-room/api/summary?lesson=01&reveal={QUESTION}", token)
    assert status == 200 and revealed["polls"][0]["answer"] == 1


def test_the_concept_check_is_counted_per_idea_with_its_gain_and_no_names(hub, classroom):
    client, token = hub["client"], hub["tokens"][INSTRUCTOR]
    status, summary = client.request("GET", "/services/botie-room/api/summary", token)
    assert status == 200
    concepts = summary["concepts"]
    assert len(concepts) == len({c["concept"] for c in concepts}) >= 9
    for c in concepts:
        counts = (c["before_answered"], c["before_right"], c["after_answered"], c["after_right"], c["answered_both"])
        assert counts == (3, 1, 2, 2, 2) and c["gain"] == 1.0, c
    status, text = client.request("GET", "/services/botie-room/api/concepts.csv", token)
    lines = text.splitlines()
    assert status == 200 and lines[0].startswith("concept,idea,lesson,section") and len(lines) == len(concepts) + 1
    assert all(line.endswith(",3,1,0.333,2,2,1.000,2,1,2,1.000") for line in lines[1:])
    assert not any(name in text for name in ("ana", ",bo,", "cy,"))
    assert client.request("GET", "/services/botie-room/api/concepts.csv", hub["tokens"]["bo"])[0] == 403


def test_the_instructor_logs_in_through_the_hub_and_reads_the_room_in_a_browser(hub, classroom):
    """Chromium: the hub's login form, the OAuth hop to the service, then the summary and a poll as shown."""
    from playwright.sync_api import sync_playwright

    assert os.access(CHROMIUM, os.X_OK), f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)"
    target = quote("/services/botie-room/?lesson=01", safe="")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{hub['client'].url}/hub/login?next={target}")
            page.fill("#username_input", INSTRUCTOR)
            page.fill("#password_input", "any")
            page.click("#login_submit")
            page.wait_for_url(lambda url: url.endswith("/services/botie-room/?lesson=01"), timeout=60_000)
            assert page.locator("h1").inner_text() == "The room: 3 learners"
            row = page.locator("table.summary tbody tr", has_text="01.1 permitted")
            assert row.locator("td.n").all_inner_texts() == ["1", "0", "1", "1"]  # stuck, trying, passed, not started
            assert row.locator("td.who").inner_text() == "bo"
            poll = page.locator(f"section[aria-labelledby='poll-{QUESTION}']")
            assert poll.locator("td.n").all_inner_texts() == ["2", "67%", "1", "33%", "0", "0%", "0", "0%"]
            assert poll.locator("tr.right").count() == 0
            poll.get_by_role("link", name="Reveal the answer").click()
            right = page.locator(f"section[aria-labelledby='poll-{QUESTION}'] tr.right th")
            assert right.inner_text() == "only the first (6) (right answer)"
            # what the room learned: every idea 1 of 3 right before, 2 of 2 after, gain +1.00
            ideas = page.locator("table.concepts tbody tr")
            assert ideas.count() >= 9
            for i in range(ideas.count()):
                cells = ideas.nth(i).locator("td.n").all_inner_texts()
                assert cells == ["1 of 3 (33%)", "2 of 2 (100%)", "+1.00", "2\nright: 1 then 2"], cells
        finally:
            browser.close()


def test_a_learner_cannot_read_another_learners_progress_or_the_room(hub, classroom):
    client, tokens = hub["client"], hub["tokens"]
    assert client.request("GET", f"/user/ana/api/contents/{PROGRESS}", tokens["ana"])[0] == 200
    assert client.request("GET", f"/user/ana/api/contents/{PROGRESS}", tokens["bo"])[0] == 403
    assert client.request("GET", "/services/botie-room/api/room", tokens["bo"])[0] == 403


def test_the_rooms_token_reads_files_and_nothing_else(hub, classroom):
    client, token = hub["client"], hub["room"]
    assert client.request("GET", f"/user/ana/api/contents/{PROGRESS}", token)[0] == 200
    assert client.request("POST", "/user/ana/api/kernels", token, {"name": "python3"})[0] == 403  # no code
    assert (
        client.request(
            "PUT", f"/user/ana/api/contents/{PROGRESS}", token, {"type": "file", "format": "text", "content": "{}"}
        )[0]
        == 403
    )  # no writes
    status, users = client.request("GET", "/hub/api/users", token)
    assert status == 200 and sorted(u["name"] for u in users) == sorted(LEARNERS)
    assert client.request("POST", "/hub/api/users/ana/tokens", token, {})[0] == 403


def test_a_corrupt_file_and_a_stopped_server_show_as_such(hub, classroom):
    client, tokens = hub["client"], hub["tokens"]
    status, _ = client.request(
        "PUT",
        f"/user/cy/api/contents/{PROGRESS}",
        tokens["cy"],
        {"type": "file", "format": "text", "content": "{half a file"},
    )
    assert status == 200
    client.stop_server(hub["operator"], "bo")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        room = _room(hub)
        if room["bo"]["state"] == "server stopped":
            break
        time.sleep(1)
    assert room["bo"]["state"] == "server stopped"
    assert room["cy"]["state"] == "progress file unreadable" and room["cy"]["entries"] == {}
    assert room["ana"]["state"] == "progress read"  # the others are unaffected
    print(json.dumps({u: room[u]["state"] for u in room}))
