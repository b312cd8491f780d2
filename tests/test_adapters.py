"""botie.adapters: one whole turn through the real Anthropic and OpenAI SDKs, offline.

Each SDK runs its own request and response path against a fake server (httpx2's mock transport), with
strict response validation on, so a body the SDK parses is one it would accept from the real API. No test
here reaches the network: the transport answers every request itself.
"""

from __future__ import annotations

import json

import anthropic
import httpx2
import openai
import pytest
from hypothesis import given

import botie
from botie.actions.decision import Approval
from botie.actions.tool import inspection_tool
from botie.adapters import ANSWER_FORMAT, AnthropicModel, OpenAIModel
from botie.context.budget import Budget
from botie.context.tokens import count_tokens
from botie.errors import SettingError
from botie.lessons.content.adversarial import BUDGET
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import load_scripted_model
from botie.model import sent_text
from botie.turn import ActionRequest, StageStatus, TurnSetup, run_turn
from tests.strategies import OBSERVED_ON, events, examples, provider_budget_cases, turn_budget_labels

PAYLOAD = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
MESSAGE = "Please book a 20-minute inspection of P-2 to check the gland nuts (request r7)."
USAGE = {"input_tokens": 612, "output_tokens": 48}


#: Room for the lesson's whole pack as each provider is sent it (the answer schema and the JSON escapes cost
#: about 180 tokens more than botie's text: at lesson 06's own 950, fewer documents fit; see the counting tests).
ROOMY = Budget(1_250, 200, 150)
#: Lesson 06's ceiling (cell 05-02).
CEILING = 1_300


@pytest.fixture(scope="module")
def lesson():
    scenario = load_evidence_scenario()
    setup = TurnSetup.from_scenario(scenario, ceiling=CEILING, budget=ROOMY, schedule_assets=("P-2", "P-3"))
    script = load_scripted_model().answers[scenario.questions[0].question]
    return scenario, setup, script


def fake_server(answer):
    """A transport whose every reply comes from ``answer(body)`` (a JSON body for a 200, or a whole
    ``httpx2.Response``; it may raise an httpx2 error, as a dropped connection does); the bodies the SDK sent
    are kept in order, one per attempt."""
    seen = []

    def handle(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        said = answer(body)
        return said if isinstance(said, httpx2.Response) else httpx2.Response(200, json=said)

    return httpx2.Client(transport=httpx2.MockTransport(handle)), seen


def anthropic_client(answer, **options):
    http, seen = fake_server(answer)
    options.setdefault("_strict_response_validation", True)
    options.setdefault("max_retries", 0)
    return anthropic.Anthropic(api_key="offline", http_client=http, **options), seen


def openai_client(answer, **options):
    http, seen = fake_server(answer)
    options.setdefault("_strict_response_validation", True)
    options.setdefault("max_retries", 0)
    return openai.OpenAI(api_key="offline", http_client=http, **options), seen


def turn(scenario, setup, model):
    torque = scenario.questions[0]
    action = ActionRequest(MESSAGE, Approval("tech-ana", PAYLOAD))
    return run_turn(torque.question, scenario.candidates(0), setup, model, action=action, needed=torque.answered_by)


def same_trace(result, reference):
    """Stage for stage: the same stages, statuses and documents in play, and the same outcome and decision."""
    rows = [(s.stage, s.status, s.ids) for s in result.stages]
    assert rows == [(s.stage, s.status, s.ids) for s in reference.stages]
    assert (result.outcome, result.answer, result.decision.branch) == (
        reference.outcome,
        reference.answer,
        reference.decision.branch,
    )


# --- Anthropic ------------------------------------------------------------------------------------------


def claude(content, stop_reason="end_turn"):
    return {
        "id": "msg_offline",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": USAGE,
    }


def as_json(script):
    """The scripted answer in the format the instructions and the answer schema ask for."""
    return json.dumps({"answer": script.answer, "citations": [{"id": i, "quote": q} for i, q in script.citations]})


def claude_answers(script):
    """Answers with the scripted answer as the JSON the request's output format asks for; books on an action."""

    def answer(body):
        if "tools" in body:
            return claude(
                [{"type": "tool_use", "id": "toolu_1", "name": "propose_inspection", "input": PAYLOAD}], "tool_use"
            )
        return claude([{"type": "text", "text": as_json(script), "citations": None}])

    return answer


def test_a_whole_turn_through_the_anthropic_sdk_matches_the_scripted_trace(lesson):
    scenario, setup, script = lesson
    client, seen = anthropic_client(claude_answers(script))
    result = turn(scenario, setup, AnthropicModel("claude-test", client=client))
    same_trace(result, turn(scenario, setup, load_scripted_model()))
    assert result.reply.usage == (612, 48) and result.proposal.id == "toolu_1"
    (path, asked), (_, acted) = seen
    assert path == "/v1/messages" and asked["max_tokens"] == 150 == acted["max_tokens"]
    assert asked["system"] == result.request.instructions and "tools" not in asked
    # The prompt speaks of <evidence>, trust and {"id", "quote"} citations: the body carries exactly those.
    assert asked["messages"][-1]["content"].startswith(result.request.evidence)
    assert asked["output_config"]["format"] == {"type": "json_schema", "schema": ANSWER_FORMAT}
    assert acted["tools"] == [inspection_tool(strict=True)] and "<document" not in json.dumps(acted)
    assert acted["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}


@pytest.mark.parametrize(
    ("content", "stop", "outcome"),
    [
        ([], "refusal", "model_refused"),
        ([{"type": "text", "text": "Tighten the gland nuts to 18 N·m, exc"}], "max_tokens", "truncated"),
        ([{"type": "text", "text": ""}], "end_turn", "empty"),
        ([{"type": "text", "text": "The documents do not answer this."}], "end_turn", "no_answer"),
    ],
)
def test_an_anthropic_reply_that_is_no_answer_becomes_its_own_outcome(lesson, content, stop, outcome):
    scenario, setup, _ = lesson
    client, _ = anthropic_client(lambda body: claude(content, stop))
    result = turn(scenario, setup, AnthropicModel("claude-test", client=client))
    assert str(result.outcome) == outcome and result.answer is None and result.notice


def test_anthropic_tool_input_that_is_not_an_object_is_an_invalid_decision_not_an_exception(lesson):
    """With strict validation off (the SDK's default) a string input reaches botie as it came."""
    scenario, setup, script = lesson

    def answer(body):
        if "tools" in body:
            return claude([{"type": "tool_use", "id": "t1", "name": "propose_inspection", "input": "P-2"}], "tool_use")
        return claude_answers(script)(body)

    client, _ = anthropic_client(answer, _strict_response_validation=False)
    result = turn(scenario, setup, AnthropicModel("claude-test", client=client))
    assert str(result.decision.branch) == "invalid" and [e.field for e in result.decision.errors] == ["arguments"]


# --- OpenAI: Chat Completions -------------------------------------------------------------------------------


def gpt(message, finish_reason="stop"):
    return {
        "id": "chatcmpl-offline",
        "object": "chat.completion",
        "created": 1_780_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None, "message": message}],
        "usage": {"prompt_tokens": 612, "completion_tokens": 48, "total_tokens": 660},
    }


def gpt_call(arguments):
    call = {"id": "call_1", "type": "function", "function": {"name": "propose_inspection", "arguments": arguments}}
    return gpt({"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]}, "tool_calls")


BOOKING = json.dumps(PAYLOAD)


def gpt_answers(script, arguments=BOOKING):
    def answer(body):
        if "tools" in body:
            return gpt_call(arguments)
        content = json.dumps(
            {"answer": script.answer, "citations": [{"id": i, "quote": q} for i, q in script.citations]}
        )
        return gpt({"role": "assistant", "content": content, "refusal": None})

    return answer


def test_a_whole_turn_through_chat_completions_matches_the_scripted_trace(lesson):
    scenario, setup, script = lesson
    client, seen = openai_client(gpt_answers(script))
    result = turn(scenario, setup, OpenAIModel("gpt-test", client=client))
    same_trace(result, turn(scenario, setup, load_scripted_model()))
    assert result.reply.usage == (612, 48) and result.proposal.id == "call_1"
    (path, asked), (_, acted) = seen
    assert path == "/v1/chat/completions" and asked["max_completion_tokens"] == 150
    assert asked["messages"][0] == {"role": "system", "content": result.request.instructions}
    assert asked["messages"][-1]["content"].startswith(result.request.evidence)  # the region botie counted
    assert asked["response_format"]["json_schema"]["schema"] == ANSWER_FORMAT
    assert acted["tools"] == [inspection_tool("openai", strict=True)] and acted["parallel_tool_calls"] is False
    assert "response_format" not in acted and "<document" not in json.dumps(acted)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ("null", "arguments"),
        ('"P-2"', "arguments"),
        ('{"asset_id": "P-2", "dur', "arguments"),
        (json.dumps({**PAYLOAD, "admin": True}), "admin"),
        (json.dumps({**PAYLOAD, "duration_minutes": 20.0}), "duration_minutes"),
    ],
)
def test_openai_arguments_that_do_not_make_a_call_are_an_invalid_decision_naming_the_field(lesson, arguments, field):
    scenario, setup, script = lesson
    client, _ = openai_client(gpt_answers(script, arguments))
    result = turn(scenario, setup, OpenAIModel("gpt-test", client=client))
    assert str(result.decision.branch) == "invalid" and field in [e.field for e in result.decision.errors]


@pytest.mark.parametrize(
    ("message", "finish", "outcome"),
    [
        ({"role": "assistant", "content": None, "refusal": "I can't help with that."}, "stop", "model_refused"),
        ({"role": "assistant", "content": '{"answer": "Tighten to 18', "refusal": None}, "length", "truncated"),
        ({"role": "assistant", "content": '{"answer": "", "citations": []}', "refusal": None}, "stop", "empty"),
        ({"role": "assistant", "content": '{"answer": "18", "citations": null}', "refusal": None}, "stop", "malformed"),
    ],
)  # fmt: skip
def test_a_chat_reply_that_is_no_answer_becomes_its_own_outcome(lesson, message, finish, outcome):
    scenario, setup, _ = lesson
    client, _ = openai_client(lambda body: gpt(message, finish))
    result = turn(scenario, setup, OpenAIModel("gpt-test", client=client))
    assert str(result.outcome) == outcome and result.answer is None and result.notice


def test_a_call_cut_off_at_the_allowance_is_never_decided(lesson):
    scenario, setup, script = lesson

    def answer(body):
        if "tools" in body:
            cut = gpt_call('{"asset_id": "P-2", "duration_min')
            cut["choices"][0]["finish_reason"] = "length"
            return cut
        return gpt_answers(script)(body)

    client, _ = openai_client(answer)
    result = turn(scenario, setup, OpenAIModel("gpt-test", client=client))
    assert result.decision is None and result.stage("proposal").detail.startswith("truncated")


# --- OpenAI: Responses ------------------------------------------------------------------------------------


def response(output, status="completed", incomplete=None):
    return {
        "id": "resp_offline",
        "object": "response",
        "created_at": 1_780_000_000,
        "model": "gpt-test",
        "status": status,
        "incomplete_details": incomplete,
        "error": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "top_p": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "output": output,
        "usage": {
            "input_tokens": 612,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 48,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 660,
        },
    }


def said(*content, status="completed"):
    return {"id": "msg_1", "type": "message", "role": "assistant", "status": status, "content": list(content)}


def responses_answers(script):
    def answer(body):
        if "tools" in body:
            call = {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "propose_inspection",
                    "arguments": json.dumps(PAYLOAD), "status": "completed"}  # fmt: skip
            return response([call])
        return response([said({"type": "output_text", "text": as_json(script), "annotations": []})])

    return answer


def test_a_whole_turn_through_the_responses_api_matches_the_scripted_trace(lesson):
    scenario, setup, script = lesson
    client, seen = openai_client(responses_answers(script))
    result = turn(scenario, setup, OpenAIModel("gpt-test", api="responses", client=client))
    same_trace(result, turn(scenario, setup, load_scripted_model()))
    assert result.proposal.id == "call_9" and result.reply.usage == (612, 48)
    (path, asked), (_, acted) = seen
    assert path == "/v1/responses" and asked["instructions"] == result.request.instructions
    assert asked["max_output_tokens"] == 150 and asked["text"]["format"]["schema"] == ANSWER_FORMAT
    assert acted["tools"] == [inspection_tool("responses", strict=True)] and acted["parallel_tool_calls"] is False


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        (response([said({"type": "refusal", "refusal": "No."})]), "model_refused"),
        (response([said({"type": "output_text", "text": '{"answer": "Tigh', "annotations": []}, status="incomplete")],
                  "incomplete", {"reason": "max_output_tokens"}), "truncated"),
    ],
)  # fmt: skip
def test_a_responses_reply_that_is_no_answer_becomes_its_own_outcome(lesson, body, outcome):
    scenario, setup, _ = lesson
    client, _ = openai_client(lambda asked: body)
    result = turn(scenario, setup, OpenAIModel("gpt-test", api="responses", client=client))
    assert str(result.outcome) == outcome and result.notice


def test_strict_validation_is_on_so_a_body_the_sdk_parses_is_one_the_api_could_send():
    client, _ = anthropic_client(lambda body: {**claude([]), "usage": {"input_tokens": "many"}})
    with pytest.raises(anthropic.APIResponseValidationError):
        client.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "hi"}])
    client, _ = openai_client(lambda body: {**response([]), "status": 7})
    with pytest.raises(openai.APIResponseValidationError):
        client.responses.create(model="m", input="hi")


def test_an_unknown_api_is_refused_by_name_from_the_error_tree():
    """One ``except botie.BotieError`` catches it, naming the field, as every other bad setting."""
    with pytest.raises(botie.BotieError, match="'chat' or 'responses'") as caught:
        OpenAIModel("gpt-test", api="assistants", client=object())
    assert isinstance(caught.value, SettingError)
    assert caught.value.field == "api"


# --- a provider's failure is an outcome of the stage it hit, never an exception -------------------------------


def claude_error(status, kind, message):
    return httpx2.Response(status, json={"type": "error", "error": {"type": kind, "message": message}})


def gpt_error(status, kind, message, code=None):
    return httpx2.Response(status, json={"error": {"message": message, "type": kind, "param": None, "code": code}})


def timed_out(body):
    raise httpx2.ReadTimeout("no response in time")


def failing(make, *args):
    return lambda body: make(*args)


TOO_LONG_CLAUDE = "prompt is too long: 210512 tokens > 200000 maximum"
TOO_LONG_GPT = "This model's maximum context length is 128000 tokens"

#: Per API: each error class as that provider sends it, the outcome it must end as, the HTTP status it names and
#: how often the SDK retried first: it retries 429, 5xx and timeouts (once here: max_retries=1), never 401, 404, 400.
FAILURES = {
    "anthropic": [
        (failing(claude_error, 429, "rate_limit_error", "Too many tokens"), "rate_limited", 429, 1),
        (failing(claude_error, 529, "overloaded_error", "Overloaded"), "overloaded", 529, 1),
        (failing(claude_error, 500, "api_error", "Internal server error"), "server_error", 500, 1),
        (timed_out, "timeout", None, 1),
        (failing(claude_error, 401, "authentication_error", "invalid x-api-key"), "not_authorised", 401, 0),
        (failing(claude_error, 404, "not_found_error", "model: claude-nope"), "unknown_model", 404, 0),
        (failing(claude_error, 400, "invalid_request_error", TOO_LONG_CLAUDE), "context_too_long", 400, 0),
    ],
    "openai": [
        (failing(gpt_error, 429, "requests", "Rate limit reached", "rate_limit_exceeded"), "rate_limited", 429, 1),
        (failing(gpt_error, 503, "server_error", "The engine is currently overloaded"), "overloaded", 503, 1),
        (failing(gpt_error, 500, "server_error", "The server had an error"), "server_error", 500, 1),
        (timed_out, "timeout", None, 1),
        (failing(gpt_error, 401, "invalid_request_error", "Incorrect API key"), "not_authorised", 401, 0),
        (
            failing(gpt_error, 404, "invalid_request_error", "No model gpt-nope", "model_not_found"),
            "unknown_model",
            404,
            0,
        ),
        (
            failing(gpt_error, 400, "invalid_request_error", TOO_LONG_GPT, "context_length_exceeded"),
            "context_too_long",
            400,
            0,
        ),
    ],
}


def adapter(api, answer, **options):
    """The adapter for ``api`` ("anthropic", "chat" or "responses") over a fake server, and the bodies it sent."""
    if api == "anthropic":
        client, seen = anthropic_client(answer, **options)
        return AnthropicModel("claude-test", client=client), seen
    client, seen = openai_client(answer, **options)
    return OpenAIModel("gpt-test", api=api, client=client), seen


FAILURE_CASES = [
    pytest.param(api, *case, id=f"{api}-{case[1]}")
    for api in ("anthropic", "chat", "responses")
    for case in FAILURES["anthropic" if api == "anthropic" else "openai"]
]


@pytest.mark.parametrize(("api", "fail", "outcome", "status", "retries"), FAILURE_CASES)
def test_a_provider_failure_on_the_answer_request_is_the_answer_stages_outcome(
    lesson, api, fail, outcome, status, retries
):
    scenario, setup, _ = lesson
    model, seen = adapter(api, fail, max_retries=1)
    result = turn(scenario, setup, model)  # no exception escapes the turn
    assert str(result.outcome) == outcome and result.answer is None
    assert (
        result.stage("answer").status is StageStatus.FAILED and result.stage("citations").status is StageStatus.SKIPPED
    )
    assert result.reply.failure.status == status and result.reply.failure.retries == retries
    assert len(seen) == 2 * (1 + retries)  # the SDK's own attempts at each of the two requests
    said = "no retry" if retries == 0 else "after 1 retry"
    assert f"{said} by the SDK" in result.notice and (status is None or f"HTTP {status}" in result.notice)
    assert "answer      failed" in result.trace() and result.trace().endswith(f"-> {outcome}")


@pytest.mark.parametrize(("api", "fail", "outcome", "status", "retries"), FAILURE_CASES)
def test_a_failed_action_request_keeps_the_checked_answer_and_says_nothing_was_booked(
    lesson, api, fail, outcome, status, retries
):
    scenario, setup, script = lesson
    answers = {"anthropic": claude_answers, "chat": gpt_answers, "responses": responses_answers}[api](script)
    model, _ = adapter(api, lambda body: fail(body) if "tools" in body else answers(body), max_retries=1)
    result = turn(scenario, setup, model)
    assert str(result.outcome) == "answered" and result.answer == script.answer  # checked, and kept
    assert result.decision is None and result.proposal is None
    proposal = result.stage("proposal")
    assert proposal.status is StageStatus.FAILED and proposal.detail.startswith(outcome)
    assert "nothing was decided or booked" in proposal.detail
    assert result.stage("decision").status is StageStatus.SKIPPED


@pytest.mark.parametrize(("api", "fail", "outcome", "status", "retries"), FAILURE_CASES)
def test_a_failed_action_request_tells_the_technician_no_booking_was_made(lesson, api, fail, outcome, status, retries):
    """Not only the trace: the answer's notice stays None (the answer stands) and the action notice says why."""
    scenario, setup, script = lesson
    answers = {"anthropic": claude_answers, "chat": gpt_answers, "responses": responses_answers}[api](script)
    model, _ = adapter(api, lambda body: fail(body) if "tools" in body else answers(body), max_retries=1)
    result = turn(scenario, setup, model)
    assert str(result.outcome) == "answered" and result.notice is None
    assert result.action_notice is not None and result.action_notice.startswith(f"no booking was made: {outcome}")
    assert status is None or f"HTTP {status}" in result.action_notice


def test_an_exception_that_is_not_the_providers_is_raised_as_the_bug_it_is(lesson):
    scenario, setup, _ = lesson

    class Broken:
        class messages:
            @staticmethod
            def create(**body):
                raise KeyError("a bug in our own code")

    with pytest.raises(KeyError):
        turn(scenario, setup, AnthropicModel("claude-test", client=Broken()))


# --- each provider is sent what was counted -------------------------------------------------------------------

APIS = ("anthropic", "chat", "responses")
MAX_TOKENS = {"anthropic": "max_tokens", "chat": "max_completion_tokens", "responses": "max_output_tokens"}


def said_nothing(api):
    """A server that answers every request with an uncited sentence (or no call): the request is the point."""
    if api == "anthropic":
        return lambda body: claude([{"type": "text", "text": "Seen.", "citations": None}])
    if api == "chat":
        return lambda body: gpt({"role": "assistant", "content": "Seen.", "refusal": None})
    return lambda body: response([said({"type": "output_text", "text": "Seen.", "annotations": []})])


def sent_tokens(body):
    """The captured body's text counted with the workshop's counter (cl100k_base), as the turn counts it."""
    return count_tokens(sent_text(body))


@pytest.mark.parametrize("api", APIS)
def test_at_lesson_06s_budget_each_provider_is_sent_a_body_within_the_total(api):
    """Before: the answer schema went uncounted (Chat Completions: 933 tokens against 900, with the tag of then).

    Now, at 950 with the asset in every tag: Anthropic 700 + 150, Chat Completions 717 + 150, Responses 710 + 150,
    five documents each."""
    scenario = load_evidence_scenario()
    setup = TurnSetup.from_scenario(scenario, ceiling=CEILING, budget=BUDGET, schedule_assets=("P-2", "P-3"))
    model, seen = adapter(api, said_nothing(api))
    result = turn(scenario, setup, model)
    (_, asked), _ = seen
    assert asked == model.render(result.request)  # what was counted is what went
    assert sent_tokens(asked) == result.request.tokens and asked[MAX_TOKENS[api]] == BUDGET.output_reserve
    assert sent_tokens(asked) + asked[MAX_TOKENS[api]] <= BUDGET.total
    assert len(result.context_ids) < 7  # the pack botie's text alone would fit: 7 documents
    assert "the body sent to the provider" in result.stage("request").detail


def test_the_trace_says_cl100k_is_an_estimate_for_claude(lesson):
    scenario, setup, _ = lesson
    model, _ = adapter("anthropic", said_nothing("anthropic"))
    assert "an estimate for Claude" in turn(scenario, setup, model).stage("request").detail


@pytest.mark.parametrize("api", APIS)
@examples(25)
@given(case=provider_budget_cases())
def test_property_the_body_each_provider_is_sent_plus_max_tokens_is_within_the_total(api, case):
    records, allowed, budget = case
    setup = TurnSetup("tech-ana", allowed, OBSERVED_ON, budget, ceiling=100_000, schedule_assets=allowed)
    model, seen = adapter(api, said_nothing(api))
    result = run_turn("What torque do the gland nuts need?", records, setup, model)
    events(turn_budget_labels(result))
    if result.selection.selected_ids:  # documents priced as this provider is sent them: the selection fits
        assert str(result.outcome) != "too_large", result.notice
    if result.request is None:
        assert seen == []  # nothing was sent
        return
    ((_, asked),) = seen
    assert asked == model.render(result.request) and sent_tokens(asked) == result.request.tokens
    assert sent_tokens(asked) + asked[MAX_TOKENS[api]] <= budget.total


# --- the prompt matches the body ------------------------------------------------------------------------------


def user_text(api, body):
    return body["input" if api == "responses" else "messages"][-1]["content"]


def system_text(api, body):
    """The instructions as each API carries them: Anthropic's ``system``, Responses' ``instructions``, or Chat
    Completions' first (system or developer) message."""
    if api == "anthropic":
        return body["system"]
    return body["instructions"] if api == "responses" else body["messages"][0]["content"]


@pytest.mark.parametrize("api", APIS)
def test_every_provider_is_sent_the_evidence_region_the_instructions_describe(lesson, api):
    """Before: Claude's body had document blocks and no <evidence>, trust, version or conflict notes."""
    scenario, setup, _ = lesson
    model, seen = adapter(api, said_nothing(api))
    result = turn(scenario, setup, model)
    sent = user_text(api, seen[0][1])
    assert sent == f"{result.request.evidence}\n\nQuestion: {result.request.question}"
    assert '<evidence>\n<conflict between="forum-8812" and="man-p2-r4-s3.2">' in sent
    assert '<document id="man-p2-r4-s3.2" asset="P-2" version="rev 4" trust="approved">' in sent


@pytest.mark.parametrize("api", APIS)
def test_every_provider_is_told_each_documents_asset_and_the_system_prompt_names_the_attribute(lesson, api):
    """Seed 000: the asset a passage is about must not be lost on the way to any model, and the prompt that
    describes the tag's attributes names it too."""
    scenario, setup, _ = lesson
    model, seen = adapter(api, said_nothing(api))
    result = turn(scenario, setup, model)
    body = seen[0][1]
    tags = [line for line in user_text(api, body).splitlines() if line.startswith("<document ")]
    assert len(tags) == len(result.request.documents) == len(result.context_ids) > 0
    for tag, doc in zip(tags, result.request.documents, strict=True):
        assert tag.startswith(f'<document id="{doc.id}" asset="{doc.asset}" version=')
    assert system_text(api, body) == result.request.instructions
    assert "asset and trust attributes" in result.request.instructions


@pytest.mark.parametrize("api", APIS)
def test_an_answer_in_the_format_the_prompt_asks_for_is_checked_not_withheld(lesson, api):
    """Before: a Claude answering with the {"id", "quote"} JSON its prompt asks for was withheld, citing nothing."""
    scenario, setup, script = lesson
    answers = {"anthropic": claude_answers, "chat": gpt_answers, "responses": responses_answers}[api](script)
    model, _ = adapter(api, answers)
    result = turn(scenario, setup, model)
    assert str(result.outcome) == "answered" and result.answer == script.answer
    assert result.citations.ok and len(result.citations.verified) == len(script.citations)


# --- edge replies -----------------------------------------------------------------------------------------------


def test_a_chat_reply_with_no_choices_is_an_empty_outcome_not_an_index_error(lesson):
    scenario, setup, _ = lesson
    model, _ = adapter(
        "chat", lambda body: {**gpt({"role": "assistant", "content": "x", "refusal": None}), "choices": []}
    )
    result = turn(scenario, setup, model)
    assert str(result.outcome) == "empty" and "no choices" in result.notice


def test_claude_cut_off_at_its_context_window_is_not_taken_as_a_complete_answer(lesson):
    scenario, setup, script = lesson
    model, _ = adapter(
        "anthropic", lambda body: claude([{"type": "text", "text": as_json(script)}], "model_context_window_exceeded")
    )
    result = turn(scenario, setup, model)
    assert str(result.outcome) == "context_too_long" and result.answer is None and "context window" in result.notice


def test_a_content_filter_on_responses_is_reported_as_its_cause(lesson):
    scenario, setup, _ = lesson
    cut = response([], "incomplete", {"reason": "content_filter"})
    model, _ = adapter("responses", lambda body: cut)
    result = turn(scenario, setup, model)
    assert str(result.outcome) == "model_refused" and "content filter" in result.notice


def claude_stream(script):
    """The server-sent events of one streamed Claude answer (what the Messages API sends when asked to stream)."""
    start = {**claude([]), "stop_reason": None, "usage": {"input_tokens": 612, "output_tokens": 1}}
    events = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": as_json(script)}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 48},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    text = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    return httpx2.Response(200, content=text.encode(), headers={"content-type": "text/event-stream"})


def test_a_large_allowance_is_streamed_instead_of_refused_by_the_sdk(lesson):
    """Before: an allowance of 64,000 made the Anthropic SDK raise 'Streaming is required'."""
    scenario, _, script = lesson
    setup = TurnSetup.from_scenario(
        scenario, ceiling=100_000, budget=Budget(100_000, 200, 64_000), schedule_assets=("P-2", "P-3")
    )
    model, seen = adapter(
        "anthropic", lambda body: claude_stream(script) if body.get("stream") else claude_answers(script)(body)
    )
    result = turn(scenario, setup, model)
    assert seen[0][1]["stream"] is True and seen[0][1]["max_tokens"] == 64_000
    assert str(result.outcome) == "answered" and result.reply.usage == (612, 48)


# --- the provider's own count, from its token-count endpoint (offline here) -----------------------------------


@pytest.mark.parametrize(
    ("api", "path", "counted"),
    [
        ("anthropic", "/v1/messages/count_tokens", {"input_tokens": 812}),
        ("responses", "/v1/responses/input_tokens", {"object": "response.input_tokens", "input_tokens": 812}),
    ],
)
def test_the_providers_token_count_endpoint_is_asked_with_the_body_the_turn_counts(lesson, api, path, counted):
    scenario, setup, _ = lesson
    model, seen = adapter(api, lambda body: counted)
    request = turn(scenario, setup, model).request
    seen.clear()
    assert model.provider_count(request) == 812
    ((asked_path, asked),) = seen
    sent = model.render(request)
    assert asked_path == path and asked == {k: v for k, v in sent.items() if k != MAX_TOKENS[api]}


def test_chat_completions_has_no_count_endpoint_and_a_failed_count_is_a_failure_not_an_exception(lesson):
    scenario, setup, _ = lesson
    model, seen = adapter("chat", said_nothing("chat"))
    request = turn(scenario, setup, model).request
    seen.clear()
    assert model.provider_count(request) is None and seen == []  # nothing asked
    model, _ = adapter("anthropic", lambda body: claude_error(429, "rate_limit_error", "Too many requests"))
    failure = model.provider_count(request)
    assert str(failure.kind) == "rate_limited" and failure.status == 429
