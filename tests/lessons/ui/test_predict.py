"""The predict widget: named controls, nothing chosen at first, the verdict written as text."""

from botie.lessons.exercises.questions import QUESTIONS
from botie.lessons.ui.predict import predict


def test_controls_have_accessible_names_and_start_unanswered():
    w = predict("prefix-6-5-in-8")
    assert w.choice.description == "Your prediction" and w.button.description == "Check my prediction"
    assert w.choice.value is None and w.result_text() == ""
    assert "botie-predict" in w.widget._dom_classes and "botie-panel" not in w.widget._dom_classes


def test_checking_without_a_choice_asks_for_one():
    w = predict("prefix-6-5-in-8")
    w.button.click()
    assert "Choose one of the options" in w.result_text()


def test_a_wrong_then_a_right_choice_replaces_the_verdict_with_words():
    q = QUESTIONS["prefix-6-5-in-8"]
    w = predict(q.id)
    w.choice.value = (q.answer + 1) % len(q.options)
    w.button.click()
    assert w.result_text().startswith("Not quite")
    w.choice.value = q.answer
    w.button.click()
    assert w.result_text().startswith("Correct") and "Not quite" not in w.result_text()
