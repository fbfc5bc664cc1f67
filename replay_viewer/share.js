// @ts-check
// Sharing a step (loaded after the first board, as study.js): the board as a picture copied for a chat
// (GET .../board.png, the same drawing as the page's, as this reader may see it), a link to that picture, and
// a snippet that frames the compact player (/embed/records/{id}) on another site at this step.

import { recordPage as R } from "./record.js";
import { $, button, el } from "./lib/dom.js";

const box = $("share-box");
const status = el("output", "", "share-status");
const link = el("a", "open the picture");
const address = el("input", null, "share-link");
address.type = "url";
address.readOnly = true;
address.setAttribute("aria-label", "the link to this step, for a chat or a mail");
const snippet = el("textarea", null, "share-snippet");
snippet.readOnly = true;
snippet.rows = 3;
snippet.setAttribute("aria-label", "the snippet to paste into another site's page");

const picturePath = (n) => `/api/records/${R.id}/steps/${n}/board.png`;
const spoilerFree = () => new URLSearchParams(location.hash.slice(1)).get("spoilers") === "off";

// The link to step n for a chat: the step (and spoiler-free) in the query, which a chat's preview of the link reads
// (the board at that step, its sentence: api/viewer.py's card), and the page moves into its fragment. Never a token.
function linkAt(n) {
  const params = new URLSearchParams({ step: String(n) });
  if (spoilerFree()) params.set("spoilers", "off");
  return `${location.origin}/records/${R.id}?${params}`;
}

// The frame's markup at step n: what a club's page or a forum post pastes (public or all-seeing only: no token).
function frameAt(n) {
  const params = new URLSearchParams({ step: String(n) });
  if (spoilerFree()) params.set("spoilers", "off");
  const record = R.record();
  const who = record ? record.seats.map((s) => s.name).join(", ") : "a game";
  const title = `Cronaca: ${who}`.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<iframe src="${location.origin}/embed/records/${R.id}#${params}" width="720" height="620" `
    + `style="border:0;max-width:100%" title="${title}" loading="lazy"></iframe>`;
}

function update() {
  const n = R.step();
  address.value = linkAt(n);
  snippet.value = frameAt(n);
  // the link shows what anyone may see: a seat's own view needs its token, which a link does not carry
  const record = R.record();
  link.hidden = Boolean(R.token()) && !(record && record.finished);
  link.href = picturePath(n);
}

async function copyPicture() {
  const n = R.step();
  status.value = "Copying…";
  try {
    // the picture is handed over as a promise: the click's permission to write holds while it is fetched
    const blob = fetch(picturePath(n), { headers: R.token() ? { Authorization: `Bearer ${R.token()}` } : {} })
      .then((answer) => (answer.ok ? answer.blob() : Promise.reject(new Error(`the service answered ${answer.status}`))));
    await navigator.clipboard.write([new ClipboardItem({ "image/png": blob })]);
    status.value = `The board at step ${n} is copied as a picture: paste it into a chat or a mail.`;
  } catch (err) {
    status.value = `This browser would not copy a picture here (${err.message}); open the picture and save it instead.`;
  }
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(address.value);
    status.value = `The link to step ${R.step()} is copied: pasted into a chat, it shows this board.`;
  } catch (err) {
    address.select();
    status.value = `Select the link and copy it (${err.message}).`;
  }
}

async function copySnippet() {
  try {
    await navigator.clipboard.writeText(snippet.value);
    status.value = "The snippet is copied: paste it into your site's page.";
  } catch (err) {
    snippet.select();
    status.value = `Select the snippet and copy it (${err.message}).`;
  }
}

box.append(
  el("p", "A link to this step (a chat shows its board and what happened):"),
  address,
  button("copy the link", "copy-link", copyLink, "copy the link to this step"),
  el("p", "A picture of the board at this step, as you see it:"),
  button("copy a picture", "copy-picture", copyPicture, "copy this board as a PNG picture, to paste into a chat"),
  " ", link,
  el("p", "This game on your own site (a club's page, a forum post), opening at this step:"),
  snippet,
  button("copy the snippet", "copy-snippet", copySnippet, "copy the HTML above"),
  status,
);
link.target = "_blank";
link.rel = "noopener";
status.setAttribute("role", "status");
update();
document.addEventListener("cronaca:after-frame", update);
$("share", "details").addEventListener("toggle", update);
$("share", "details").hidden = false;
