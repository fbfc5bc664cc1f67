// @ts-check
// A double tap on a button that stores something stores it once. The first tap stores a choice; when the answer
// comes back quickly the next decision's buttons are drawn where the old ones were, and the second tap of the
// double tap (a thumb's ~100-300 ms later, at the same spot) would land on the next seat's choice: at a real table,
// where one phone enters every seat's choices, that is a second choice nobody made. The second tap is dropped
// when it is the very next tap, within DOUBLE_TAP_MS of the tap that stored and SLOP_PX of it. A keyboard's double
// Enter (or a screen reader's, whose cursor stays where the pressed button was) is the same slip: a press with no
// pointer (a click whose `detail` is 0, with no place) is dropped when it is the very next press after a press
// that stored, within DOUBLE_TAP_MS of it, unless another key came between (Tab to the next choice, an arrow: the
// reader moved on). A tap after a key press (or a key press after a tap) is never taken for its double, nor is a
// tap elsewhere, nor either one later.

export const DOUBLE_TAP_MS = 450; // a phone's own double-tap window is 300 ms (Android), a little more on iOS
export const SLOP_PX = 30; // how far apart a thumb's two taps of one double tap land

/** A press let through: when, where (a pointer's), and whether it was a key's (no place). */
/** @typedef {{t: number, x: number, y: number, key: boolean}} Press */

/**
 * Guards the regions whose taps may store something; `stored()` is called by the code that stored, while (or
 * right after) handling the tap that did it.
 * @param {Element[]} roots
 * @returns {{stored: () => void}}
 */
export function guardDoubleTaps(roots) {
  /** @type {Press | null} */
  let last = null; // the latest press let through
  /** @type {Press | null} */
  let storing = null; // the press that stored something
  const echo = (/** @type {MouseEvent} */ e, /** @type {boolean} */ key) => storing !== null && storing.key === key
    && e.timeStamp - storing.t < DOUBLE_TAP_MS && (key || Math.hypot(e.clientX - storing.x, e.clientY - storing.y) <= SLOP_PX);
  const watch = (/** @type {Event} */ event) => {
    const e = /** @type {MouseEvent} */ (event);
    const key = e.detail === 0; // a key (Enter, Space), a screen reader's press or a script: no pointer, no place
    if (echo(e, key)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    last = { t: e.timeStamp, x: e.clientX, y: e.clientY, key };
    storing = null; // a double tap is two presses in a row: a press let through ends the window (stored() may open it again)
  };
  roots.forEach((root) => root.addEventListener("click", watch, true));
  document.addEventListener("keydown", (e) => { // a key other than a press's own ends a key press's window
    if (e.key !== "Enter" && e.key !== " " && storing !== null && storing.key) storing = null;
  }, true);
  return { stored: () => { storing = last; } };
}
