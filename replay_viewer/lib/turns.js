// @ts-check
// Whose turn it is, said once when it changes: a player at the table who cannot see the screen hears "de la Cruz's
// political turn" (or "your turn") from a polite live region, not from every message of the live stream.

import { kindWords } from "./render.js";

/**
 * Whose decision the rules wait for, in the game's words: the seat's name as written, with what it decides
 * ("Ada O'Neil's political turn", "de la Cruz's turn: war shift"); "your ..." to the seat that reads the page.
 * @param {{seat?: number | null, kind?: string} | null | undefined} pending
 * @param {string[]} names the seats' names, by seat
 * @param {number | null} reader the seat whose view the page shows (null: the public's, the table's)
 * @returns {string} the sentence, or "" when no seat decides (the game's own step, the setup's draws)
 */
export function turnSentence(pending, names, reader) {
  const seat = pending ? pending.seat : null;
  if (seat === null || seat === undefined) return "";
  const whose = seat === reader ? "Your" : `${names[seat] || `Seat ${seat}`}'s`;
  const what = kindWords(pending);
  return (/\bturn$/.test(what) ? `${whose} ${what}` : `${whose} turn: ${what}`) + ".";
}

/**
 * A live region that says whose turn it is only when that changes: what it is first told is the page's start (read
 * with the page, not announced); the same seat told again says nothing; no seat deciding (the setup's draws) is
 * remembered but not said; the game's end is said once.
 * @param {HTMLElement} region a polite live region (role=status)
 */
export function turnCrier(region) {
  let known = /** @type {string | null} */ (null);
  return {
    /**
     * @param {number | null | undefined} seat the seat that decides now (null: none)
     * @param {string} sentence what to say if it is news
     * @param {boolean} [over] the game is over: said once, whoever's turn it was
     */
    tell(seat, sentence, over = false) {
      const key = over ? "over" : seat === null || seat === undefined ? "none" : String(seat);
      if (key === known) return;
      const first = known === null;
      known = key;
      if (!first && sentence && region.textContent !== sentence) region.textContent = sentence;
    },
  };
}
