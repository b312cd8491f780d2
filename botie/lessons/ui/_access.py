"""What a screen reader and a keyboard need from a panel, which ipywidgets' own controls do not give.

ipywidgets 8 draws a slider as a noUiSlider handle (``role="slider"``) with no
accessible name, and gives no way to set ARIA attributes from Python (the
long-open upstream issue jupyter-widgets/ipywidgets#2650). Text boxes,
dropdowns and date pickers are named by their ``<label for>``; sliders and
toggle-button groups are not, and nothing announces a new result.

Rather than replace every control with a custom one (and lose the
``IntSlider``/``Dropdown`` API that lessons and tests use), each panel carries
one small anywidget, :class:`Access`, whose front end:

- names every control in its panel from a Python-side map (``names``): the
  slider handle and its typed readout get ``aria-label``, a toggle-button row
  becomes a labelled group whose buttons say which one is pressed, a radio group a named ``radiogroup``;
- is itself the panel's live region (``role="status"``, ``aria-live="polite"``):
  the panel writes a one-sentence summary into ``message`` on every refresh, so
  a screen reader speaks the outcome without reading the whole table again;
- makes the keyboard focus visible inside panels, in light and dark themes.

anywidget ships its front end inside the wheel (a prebuilt JupyterLab
extension, also loaded by Notebook 7 and Voila), so this works offline.
"""

from __future__ import annotations

import anywidget
import traitlets

ANNOUNCE_CLASS = "botie-announce"

_ESM = """
const PREFIX = "botie-control-";

function nameControls(panel, names) {
  for (const control of panel.querySelectorAll("[class*='" + PREFIX + "']")) {
    const key = [...control.classList].find(c => c.startsWith(PREFIX)).slice(PREFIX.length);
    const name = names[key];
    if (!name) continue;
    for (const handle of control.querySelectorAll("[role='slider']")) handle.setAttribute("aria-label", name);
    for (const readout of control.querySelectorAll(".widget-readout")) {
      readout.setAttribute("role", "textbox");
      readout.setAttribute("aria-label", name + ", typed value");
    }
    for (const input of control.querySelectorAll("input, select, textarea")) {
      if (!(input.labels && input.labels.length) && !input.getAttribute("aria-label")) {
        input.setAttribute("aria-label", name);
      }
    }
    // A radio group (the concept check's questions): one named group, its options named by their labels.
    if (control.querySelector("input[type='radio']")) {
      control.setAttribute("role", "radiogroup");
      control.setAttribute("aria-label", name);
    }
    const buttons = control.querySelectorAll(".widget-toggle-button");
    if (buttons.length) {
      control.setAttribute("role", "group");
      control.setAttribute("aria-label", name);
      // ipywidgets shows the chosen option by a class (a colour) only; say it in words too.
      for (const b of buttons) b.setAttribute("aria-pressed", String(b.classList.contains("mod-active")));
    }
  }
}

function render({ model, el }) {
  el.classList.add("botie-announce");
  el.setAttribute("role", "status");
  el.setAttribute("aria-live", "polite");
  const say = () => { el.textContent = model.get("message"); };
  say();
  model.on("change:message", say);

  let observer = null;
  let timer = null;
  let tries = 0;
  const label = (panel) => nameControls(panel, model.get("names") || {});
  // The view is drawn before the notebook attaches it to the page: wait until it has a panel around it.
  const attach = () => {
    const panel = el.closest(".botie-panel, .botie-concepts");
    if (!panel) {
      if (tries++ < 600) timer = setTimeout(attach, 100);
      return;
    }
    label(panel);
    // ipywidgets redraws parts of a control (a toggle button's class, a slider on a new range): label again.
    observer = new MutationObserver(() => label(panel));
    observer.observe(panel, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
    model.on("change:names", () => label(panel));
  };
  attach();
  return () => {
    if (timer) clearTimeout(timer);
    if (observer) observer.disconnect();
  };
}

export default { render };
"""

# The live region is read aloud, not shown: the visible result says the same at length.
# Focus rings use the theme's main text colour, so they show on light and dark backgrounds;
# !important because ipywidgets' own input styles remove the outline on focus.
_CSS = """
.botie-announce {
  position: absolute !important; width: 1px !important; height: 1px !important;
  padding: 0 !important; margin: -1px !important; overflow: hidden !important;
  clip: rect(0 0 0 0) !important; white-space: nowrap !important; border: 0 !important;
}
.botie-panel :focus-visible,
.botie-concepts :focus-visible,
.botie-panel .noUi-handle:focus {
  outline: 3px solid var(--jp-ui-font-color0, #000) !important;
  outline-offset: 2px !important;
}
"""


class Access(anywidget.AnyWidget):
    """One per panel: the accessible names of its controls, and its live region."""

    _esm = _ESM
    _css = _CSS
    #: ``botie-control-<name>`` suffix -> the name a screen reader says for that control
    names = traitlets.Dict().tag(sync=True)
    #: the sentence announced when the panel's result changes
    message = traitlets.Unicode("").tag(sync=True)
