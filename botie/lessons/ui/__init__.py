"""Widgets and figures for the lessons. They render what the core computed and decide nothing.

Not imported by ``botie`` itself (``import botie`` stays light); notebooks do
``from botie.lessons.ui import selection_panel, decision_panel``.

Contract with the browser tests: each panel's root widget has the DOM classes
``botie-panel`` and ``botie-<kind>-panel``; the outcome widget has
``botie-result``; every control has ``botie-control-<name>`` and a readable
description.
"""

from __future__ import annotations

from ._common import html_to_text
from .decision import DecisionPanel, decision_panel
from .evidence_panel import EvidencePanel, evidence_panel
from .figures import window_figure, window_text
from .provenance import ProvenancePanel, provenance_panel
from .routing import RoutingPanel, routing_panel
from .selection import SelectionPanel, selection_panel
from .turn import TurnPanel, turn_panel

__all__ = [
    "DecisionPanel",
    "EvidencePanel",
    "ProvenancePanel",
    "RoutingPanel",
    "SelectionPanel",
    "TurnPanel",
    "decision_panel",
    "evidence_panel",
    "html_to_text",
    "provenance_panel",
    "routing_panel",
    "selection_panel",
    "turn_panel",
    "window_figure",
    "window_text",
]
