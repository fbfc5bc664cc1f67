// @ts-check
// A double tap on a button that stores something stores it once. The first tap stores a choice; when the answer
// comes back quickly the next decision's buttons are drawn where the old ones were, and the second tap of the
// double tap (a thumb's ~100-300 ms later, at the same spot) would land on the next seat's choice: at a real table,
// where one phone enters every seat's choices, that is a second choice nobody made. The second tap is dropped
// when it is the very next tap, within DOUBLE_TAP_MS of the tap that stored and SLOP_PX of it. A keyboard's Enter or Space
// (a click with no pointer: `detail` 0) is never taken for a double tap, nor is a tap elsewhere, nor one later.

export const DOUBLE_TAP_MS = 450; // a phone's own double-tap window is 300 ms (Android), a little more on iOS
export const SLOP_PX = 30; // how far apart a thumb's two taps of one double tap land

/**
 * Guards the regions whose taps may store something; `stored()` is called by the code that stored, while (or
 * right after) handling the tap that did it.
 * @param {Element[]} roots
 * @returns {{stored: () => void}}
 */
export function guardDoubleTaps(roots) {
  /** @type {{t: number, x: number, y: number} | null} */
  let last = null; // the latest pointer tap let through
  /** @type {{t: number, x: number, y: number} | null} */
  let storing = null; // the tap that stored something
  const echo = (/** @type {MouseEvent} */ e) => storing !== null && e.timeStamp - storing.t < DOUBLE_TAP_MS
    && Math.hypot(e.clientX - storing.x, e.clientY - storing.y) <= SLOP_PX;
  const watch = (/** @type {Event} */ event) => {
    const e = /** @type {MouseEvent} */ (event);
    if (e.detail === 0) return; // a key or a script, not a finger
    if (echo(e)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    last = { t: e.timeStamp, x: e.clientX, y: e.clientY };
    storing = null; // a double tap is two taps in a row: a tap let through ends the window (stored() may open it again)
  };
  roots.forEach((root) => root.addEventListener("click", watch, true));
  return { stored: () => { storing = last; } };
}
