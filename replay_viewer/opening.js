// @ts-check
// The record page's first two questions, asked as soon as this small module is in: the record's summary and,
// when the address names a step, that step's board. A cold load would otherwise ask them only once record.js
// and every module it imports had been fetched, linked and run (issue 29). The page loads this module `async`
// before record.js; record.js takes these answers instead of asking again, when they are still the ones it
// wants (the same step, line and reader). This module draws nothing.

import { hashParams } from "./lib/address.js";
import { api } from "./lib/api.js";

const id = location.pathname.split("/").pop();
const params = hashParams();
const token = params.get("token");
const raw = params.get("step");
// Only a plain step of the record's main line is asked ahead: a variation's (#line=) is read after the record.
const step = raw !== null && raw !== "" && Number.isInteger(Number(raw)) && Number(raw) >= 0 && !params.get("line")
  ? Number(raw) : null;

/**
 * @typedef {object} Opening
 * @property {string | null} token the seat token both were asked with
 * @property {Promise<import("./lib/api.js").Answer> | null} record GET /api/records/{id}, until record.js takes it
 * @property {number | null} step
 * @property {Promise<import("./lib/api.js").Answer> | null} board GET .../steps/{step}/board, until taken
 */

/** @type {Opening} */
export const opening = {
  token,
  record: api(`/api/records/${id}`, { token, cache: "no-store" }),
  step,
  board: step === null ? null : api(`/api/records/${id}/steps/${step}/board`, { token }),
};
