// @ts-check
// An interactive page for /api/openapi.json, served with the API so it works offline:
// every operation with its parameters, a body editor and a Send button. Send shows the raw answer (status,
// type and text), so it asks with fetch itself rather than through lib/api.js, which parses answers.

import { api } from "./lib/api.js";
import { $, el } from "./lib/dom.js";

(async () => {
  const spec = (await api("/api/openapi.json")).body;
  $("about").textContent = `${spec.info.title} ${spec.info.version} — ${spec.info.description || ""}`;
  const ops = $("ops");

  function skeleton(schema) {
    if (!schema) return {};
    if (schema.$ref) return skeleton(spec.components.schemas[schema.$ref.split("/").pop()]);
    if (schema.type === "object" || schema.properties) {
      const out = {};
      Object.entries(schema.properties || {}).forEach(([k, v]) => {
        if (!v.readOnly) out[k] = skeleton(v);
      });
      return out;
    }
    if (schema.type === "array") return [];
    if (schema.type === "integer" || schema.type === "number") return 0;
    if (schema.type === "boolean") return false;
    return schema.default ?? "";
  }

  Object.entries(spec.paths).forEach(([path, methods]) => {
    Object.entries(methods).forEach(([method, op]) => {
      if (!["get", "post", "put", "delete", "patch"].includes(method)) return;
      const box = el("details", undefined, "op");
      const summary = el("summary");
      summary.appendChild(el("span", method, `method ${method}`));
      summary.appendChild(el("code", path));
      summary.appendChild(el("span", "  " + (op.summary || "")));
      box.appendChild(summary);
      if (op.description) box.appendChild(el("p", op.description));
      const params = [...(methods.parameters || []), ...(op.parameters || [])];
      const inputs = {};
      params.forEach((p) => {
        const label = el("label", `${p.name} (${p.in}${p.required ? ", required" : ""}) `);
        const input = el("input");
        inputs[p.name] = { input, where: p.in };
        label.appendChild(input);
        box.appendChild(label);
      });
      let body = null;
      const content = op.requestBody && op.requestBody.content && op.requestBody.content["application/json"];
      if (content) {
        body = el("textarea");
        body.value = JSON.stringify(skeleton(content.schema), null, 2);
        box.appendChild(el("label", "body (JSON)")).appendChild(body);
      }
      const send = el("button", "Send");
      const answer = el("pre", undefined, "answer");
      box.appendChild(send);
      box.appendChild(answer);
      send.addEventListener("click", async () => {
        let url = path;
        const query = new URLSearchParams();
        Object.entries(inputs).forEach(([name, { input, where }]) => {
          if (where === "path") url = url.replace(`{${name}}`, encodeURIComponent(input.value));
          else if (where === "query" && input.value !== "") query.set(name, input.value);
        });
        if ([...query].length) url += "?" + query;
        /** @type {Record<string, string>} */
        const headers = {};
        const token = $("token", "input").value.trim();
        if (token) headers.Authorization = "Bearer " + token;
        /** @type {RequestInit} */
        const init = { method: method.toUpperCase(), headers };
        if (body) {
          headers["Content-Type"] = "application/json";
          init.body = body.value;
        }
        const response = await fetch(url, init);
        const text = await response.text();
        let shown = text;
        try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
        answer.textContent = `${response.status} ${response.statusText}  (${response.headers.get("content-type")})\n\n${shown}`;
      });
      ops.appendChild(box);
    });
  });
})();
