// @ts-check
// The address's fragment (#step=N&token=...&key=...&spoilers=off&line=...): what a link reopens. Secrets (a seat
// token, an annotator or teacher key) ride here, never in the query string, so they never reach a server's log.

/** The fragment's parameters, read afresh (a reader may have changed the address). */
export const hashParams = () => new URLSearchParams(location.hash.slice(1));

/**
 * One parameter of the fragment, or null.
 * @param {string} name
 * @returns {string | null}
 */
export const fromHash = (name) => hashParams().get(name);

/**
 * The fragment with `step` set to n, every other parameter kept as it is.
 * @param {number} n
 * @returns {string}
 */
export function withStep(n) {
  const params = hashParams();
  params.set("step", String(n));
  return "#" + params.toString();
}

/**
 * The step the fragment asks for as a whole number (0 when it asks for none or for no number).
 * @returns {number}
 */
export const stepInHash = () => Number.parseInt(hashParams().get("step") || "0", 10);

/**
 * A shared link's step in its query (`?step=N&spoilers=off`, what a chat's preview of the link reads: a fragment
 * never reaches the server) moved into the fragment, where the page reads it, and the query dropped. A step the
 * fragment names wins. opening.js does the same in its own lines (it imports nothing).
 */
export function adoptQuery() {
  const query = new URLSearchParams(location.search);
  if (!query.has("step") && !query.has("spoilers")) return;
  const params = hashParams();
  for (const name of ["step", "spoilers"]) if (query.has(name) && !params.has(name)) params.set(name, query.get(name) || "");
  history.replaceState(null, "", location.pathname + (params.toString() ? "#" + params.toString() : ""));
}
