// @ts-check
// The one API client of the viewer. Its contract: `api()` never throws. It answers {ok, status, body, response}:
// `body` is the parsed JSON (an object, or {} for JSON null or unreadable JSON), the text of any other answer
// (a board's SVG), or null for 204 and 304; a problem's one sentence is `body.detail`. When the service does not
// answer at all, status is 0 and body.detail says so. A page decides what a refusal means to its reader.

/**
 * @typedef {object} Answer
 * @property {boolean} ok
 * @property {number} status the HTTP status, or 0 when the service did not answer
 * @property {any} body
 * @property {Response} [response] the fetch Response (its headers: ETag), absent when the service did not answer
 */

/**
 * @typedef {object} Ask
 * @property {string} [method] GET unless named
 * @property {string | null} [token] sent as `Authorization: Bearer ...` (a seat token, an annotator or teacher key)
 * @property {any} [json] a body sent as JSON
 * @property {string} [text] a body sent as it is (its Content-Type named in `headers`)
 * @property {Record<string, string>} [headers]
 * @property {RequestCache} [cache]
 */

/**
 * @param {string} path
 * @param {Ask} [options]
 * @returns {Promise<Answer>}
 */
export async function api(path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { ...(options.headers || {}) };
  if (options.token) headers.Authorization = "Bearer " + options.token;
  /** @type {RequestInit} */
  const init = { method: options.method || "GET", headers, cache: options.cache };
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  } else if (options.text !== undefined) {
    init.body = options.text;
  }
  return answered(fetch(path, init));
}

/**
 * The answer to a request already under way, by the same contract as `api()` (the record page's opening.js asks
 * its first two questions with fetch() itself, before this module is in).
 * @param {Promise<Response>} pending
 * @returns {Promise<Answer>}
 */
export async function answered(pending) {
  let response;
  try {
    response = await pending;
  } catch (err) {
    return { ok: false, status: 0, body: { detail: "the service did not answer (" + err.message + ")" } };
  }
  if (response.status === 204 || response.status === 304) return { ok: true, status: response.status, body: null, response };
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await response.json().catch(() => ({})) : await response.text();
  return { ok: response.ok, status: response.status, body: body === null ? {} : body, response };
}

/**
 * A refusal's one sentence, as a person reads it: the rules' refusal in the table's words (`said`: players by
 * name) where the service gives one, else the problem's detail, else the status.
 * @param {Answer} answer
 * @returns {string}
 */
export const why = (answer) => (answer.body && (answer.body.said || answer.body.detail)) || `the service answered ${answer.status}`;
