// Reading and moving through every page with the keyboard alone.

// A box that scrolls sideways can only be scrolled from the keyboard if it can take focus.
// Material does this for its own code blocks; these are the other boxes that can scroll:
// notebook code cells and outputs, display formulas and tables wider than a phone's screen.
// Each takes focus only while it overflows, so the tab order holds no needless stops.
const SCROLLERS = [
  ".jupyter-wrapper .highlight-ipynb",
  ".jupyter-wrapper .jp-OutputArea-output pre",
  ".md-typeset div.arithmatex",
  ".md-typeset__scrollwrap",
].join(", ");

const scrollFocus = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    const overflows =
      target.scrollWidth > target.clientWidth || target.scrollHeight > target.clientHeight;
    if (overflows) target.setAttribute("tabindex", "0");
    else target.removeAttribute("tabindex");
  }
});

// Material shows the palette toggle as the label after the current palette's radio button
// but leaves every radio button unchecked, so Tab enters the group at the first one; in the
// dark palette that one's label is hidden and the focus ring is drawn around nothing.
// Checking the current palette's radio button makes Tab land on the visible toggle.
function checkCurrentPalette() {
  const scheme = document.body.getAttribute("data-md-color-scheme");
  for (const input of document.querySelectorAll("input.md-option[name='__palette']")) {
    if (input.getAttribute("data-md-color-scheme") === scheme) input.checked = true;
  }
}

document$.subscribe(({ body }) => {
  scrollFocus.disconnect();
  for (const box of body.querySelectorAll(SCROLLERS)) {
    if (!box.hasAttribute("tabindex")) scrollFocus.observe(box); // never undo the page's own
  }
  checkCurrentPalette();
});
