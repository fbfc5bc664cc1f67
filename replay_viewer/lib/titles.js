// @ts-check
// The titles' display names, from the catalog (GET /api/titles): the viewer keeps no list of its own. Asked once
// per page; when the request fails, a title is shown by its id.

import { api } from "./api.js";

/**
 * @typedef {object} Title
 * @property {string} id
 * @property {string} name
 * @property {{min: number, max: number}} seats
 */

/** @type {Promise<Title[]> | null} */
let asked = null;
/** @type {Map<string, Title>} */
const known = new Map();

/**
 * Every catalogued title (an empty list when the service could not say), asked once per page.
 * @returns {Promise<Title[]>}
 */
export function loadTitles() {
  if (!asked) {
    asked = api("/api/titles").then((answer) => {
      const titles = answer.ok && Array.isArray(answer.body.titles) ? answer.body.titles : [];
      titles.forEach((t) => known.set(t.id, t));
      return titles;
    });
  }
  return asked;
}

/**
 * A title's display name once loadTitles() has answered; its id before then or when the catalog lacks it.
 * @param {string} id
 * @returns {string}
 */
export const titleName = (id) => (known.get(id) || { name: id }).name;
