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

from botie.actions.decision import Approval
from botie.actions.tool import inspection_tool
from botie.adapters import ANSWER_FORMAT, AnthropicModel, OpenAIModel, openai_tool
from botie.lessons.content.adversarial import BUDGET
from botie.lessons.content.scenarios import load_evidence_scenario
from botie.lessons.content.scripted import load_scripted_model
from botie.turn import ActionRequest, TurnSetup, run_turn

PAYLOAD = {"asset_id": "P-2", "duration_minutes": 20, "start": "2026-04-02T09:00Z", "request_id": "r7"}
MESSAGE = "Please book a 20-minute inspection of P-2 to check the gland nuts (request r7)."
USAGE = {"input_tokens": 612, "output_tokens": 48}


@pytest.fixture(scope="module")
def lesson():
    scenario = load_evidence_scenario()
    setup = TurnSetup.from_scenario(scenario, ceiling=1_200, answer_allowance=150, budget=BUDGET)
    script = load_scripted_model().answers[scenario.questions[0].question]
    return scenario, setup, script


def fake_server(answer):
    """A transport whose every reply comes from ``answer(body)``; the bodies the SDK sent are kept in order."""
    seen = []

    def handle(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        return httpx2.Response(200, json=answer(body))

    return httpx2.Client(transport=httpx2.MockTransport(handle)), seen


def anthropic_client(answer, **options):
    http, seen = fake_server(answer)
    options.setdefault("_strict_response_validation", True)
    return anthropic.Anthropic(api_key="offline", http_client=http, max_retries=0, **options), seen


def openai_client(answer, **options):
    http, seen = fake_server(answer)
    options.setdefault("_strict_response_validation", True)
    return openai.OpenAI(api_key="offline", http_client=http, max_retries=0, **options), seen


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


def claude_answers(script):
    """Answers with the scripted answer, each quote a citation into the document block that holds it."""

    def answer(body):
        if "tools" in body:
            return claude(
                [{"type": "tool_use", "id": "toolu_1", "name": "propose_inspection", "input": PAYLOAD}], "tool_use"
            )
        blocks = body["messages"][-1]["content"]
        titles = [b["title"] for b in blocks if b["type"] == "document"]
        citations = [
            {
                "type": "char_location",
                "cited_text": quote,
                "document_index": titles.index(cid),
                "document_title": cid,
                "start_char_index": 0,
                "end_char_index": len(quote),
            }
            for cid, quote in script.citations
        ]
        return claude([{"type": "text", "text": script.answer, "citations": citations}])

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
    documents = [b for b in asked["messages"][-1]["content"] if b["type"] == "document"]
    assert [d["title"] for d in documents] == list(result.context_ids)
    assert all(d["citations"] == {"enabled": True} for d in documents)
    assert acted["tools"] == [inspection_tool()] and not any(
        b.get("type") == "document" for b in acted["messages"][-1]["content"]
    )


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
    assert acted["tools"] == [openai_tool(inspection_tool())]
    assert acted["tools"][0]["function"]["parameters"] == inspection_tool("openai")["function"]["parameters"]
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


def test_a_whole_turn_through_the_responses_api_matches_the_scripted_trace(lesson):
    scenario, setup, script = lesson

    def answer(body):
        if "tools" in body:
            call = {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "propose_inspection",
                    "arguments": json.dumps(PAYLOAD), "status": "completed"}  # fmt: skip
            return response([call])
        text = json.dumps({"answer": script.answer, "citations": [{"id": i, "quote": q} for i, q in script.citations]})
        return response([said({"type": "output_text", "text": text, "annotations": []})])

    client, seen = openai_client(answer)
    result = turn(scenario, setup, OpenAIModel("gpt-test", api="responses", client=client))
    same_trace(result, turn(scenario, setup, load_scripted_model()))
    assert result.proposal.id == "call_9" and result.reply.usage == (612, 48)
    (path, asked), (_, acted) = seen
    assert path == "/v1/responses" and asked["instructions"] == result.request.instructions
    assert asked["max_output_tokens"] == 150 and asked["text"]["format"]["schema"] == ANSWER_FORMAT
    assert acted["tools"] == [openai_tool(inspection_tool(), responses=True)]


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


def test_an_unknown_api_is_refused_by_name():
    with pytest.raises(ValueError, match="'chat' or 'responses'"):
        OpenAIModel("gpt-test", api="assistants", client=object())
