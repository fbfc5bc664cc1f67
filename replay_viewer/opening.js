// @ts-check
// The record page's first two questions, asked as soon as this small module is in: the record's summary and,
// when the address names a step, that step's board. A cold load would otherwise ask them only once record.js
// and every module it imports had been fetched, linked and run (issue 29). The page loads this module `async`
// before record.js; record.js takes these answers instead of asking again, when they are still the ones it
// wants (the same step, line and reader). This module draws nothing.

// It imports nothing, so that it runs as soon as its own file is in: it reads the fragment and asks with fetch()
// as lib/address.js and lib/api.js would (a seat token as `Authorization: Bearer`); record.js reads the answers
// with lib/api.js's `answered`.

const id = location.pathname.split("/").pop();
// A shared link's ?step=N&spoilers=off (what a chat's preview reads) goes into the fragment, as lib/address.js's
// adoptQuery does, before anything reads it (record.js imports this module: it runs first).
const query = new URLSearchParams(location.search);
if (query.has("step") || query.has("spoilers")) {
  const merged = new URLSearchParams(location.hash.slice(1));
  for (const name of ["step", "spoilers"]) if (query.has(name) && !merged.has(name)) merged.set(name, query.get(name) || "");
  history.replaceState(null, "", location.pathname + (merged.toString() ? "#" + merged.toString() : ""));
}
const params = new URLSearchParams(location.hash.slice(1));
const token = params.get("token");
const raw = params.get("step");
// Only a plain step of the record's main line is asked ahead: a variation's (#line=) is read after the record.
const step = raw !== null && raw !== "" && Number.isInteger(Number(raw)) && Number(raw) >= 0 && !params.get("line")
  ? Number(raw) : null;

/**
 * @param {string} path
 * @param {RequestCache} [cache]
 * @returns {Promise<Response>}
 */
function ask(path, cache) {
  const pending = fetch(path, { headers: token ? { Authorization: "Bearer " + token } : {}, cache });
  pending.catch(() => {}); // a failure is read by record.js (as api() would say it), not reported here as unhandled
  return pending;
}

/**
 * @typedef {object} Opening
 * @property {string | null} token the seat token both were asked with
 * @property {Promise<Response> | null} record GET /api/records/{id}, until record.js takes it
 * @property {number | null} step
 * @property {Promise<Response> | null} board GET .../steps/{step}/board, until taken
 * @property {Promise<Response> | null} turns GET .../turns when the address names no step, until taken
 * @property {Promise<void> | null} first settled once the board of the first step after the setup (where a record
 *   opens without a step) is asked for, with `step` and `board` set: a shared link's first board is asked as soon
 *   as the turns are in, not after record.js has read the summary and then the turns (issue 32)
 */

/** @type {Opening} */
export const opening = {
  token,
  record: ask(`/api/records/${id}`, "no-store"),
  step,
  board: step === null ? null : ask(`/api/records/${id}/steps/${step}/board`),
  turns: step === null ? ask(`/api/records/${id}/turns`) : null,
  first: null,
};
if (opening.turns) {
  opening.first = opening.turns.then((r) => (r.ok ? r.clone().json() : null)).then((turns) => {
    if (!Array.isArray(turns) || opening.board !== null) return;
    opening.step = turns.length && Number.isInteger(turns[0].to) ? turns[0].to : 0;
    opening.board = ask(`/api/records/${id}/steps/${opening.step}/board`);
  }).catch(() => {});
}
