// Runs the script embedded in a Scorch flame graph SVG against a minimal stand-in for the browser DOM, so
// that tests can drive it (click, search, reset) with node and check what it does to the frames.
// Usage: node harness.js SCRIPT FRAMES ACTIONS
//   SCRIPT   the text of the SVG's <script> element
//   FRAMES   JSON [{title, x, y, width, fill, label, merged}] in document order
//   ACTIONS  JSON [{click: i} | {search: "re"} | {resetZoom: true} | {resetSearch: true} | {key: "Escape"}]
// Prints one JSON state per action: {frames: [{display, x, width, opacity, fill, label}], matched, matchedShown}.
"use strict";
const fs = require("fs");
const [script, framesJson, actionsJson] = process.argv.slice(2).map((p) => fs.readFileSync(p, "utf8"));

class El {
    constructor(tag, attrs = {}) {
        this.tag = tag;
        this.attrs = Object.assign({}, attrs);
        this.style = {};
        this.children = [];
        this.parentNode = null;
        this.listeners = {};
        this.textContent = "";
        const classes = (attrs.class || "").split(" ").filter((c) => c);
        this.classList = { contains: (c) => classes.includes(c) };
    }
    append(child) { child.parentNode = this; this.children.push(child); return child; }
    getAttribute(name) { return name in this.attrs ? String(this.attrs[name]) : null; }
    setAttribute(name, value) { this.attrs[name] = String(value); }
    querySelector(tag) { return this.children.find((c) => c.tag === tag) || null; }
    addEventListener(type, f) { (this.listeners[type] = this.listeners[type] || []).push(f); }
    fire(type, target) { for (const f of this.listeners[type] || []) f({ target, key: undefined, preventDefault() {} }); }
}

const byId = {};
const root = new El("svg", { width: 1200 });
for (const id of ["details", "matched", "resetzoom", "search", "resetsearch"]) byId[id] = root.append(new El("text", { id }));
const frames = (byId.frames = root.append(new El("g", { id: "frames" })));
const specs = JSON.parse(framesJson);
for (const f of specs) {
    const g = frames.append(new El("g", f.merged ? { class: "m" } : {}));
    const title = g.append(new El("title"));
    title.textContent = f.title;
    g.append(new El("rect", { x: f.x, y: f.y, width: f.width, fill: f.fill }));
    const label = g.append(new El("text", { x: f.x + 3 }));
    label.textContent = f.label;
}
let promptAnswer = null;
const windowListeners = {};
const document = { documentElement: root, getElementById: (id) => byId[id] || null };
const window = {
    prompt: () => promptAnswer,
    alert: (m) => { throw new Error("alert: " + m); },
    addEventListener: (type, f) => { (windowListeners[type] = windowListeners[type] || []).push(f); },
};
new Function("document", "window", script + "\nscorchInit();")(document, window);

for (const action of JSON.parse(actionsJson)) {
    if ("click" in action) frames.fire("click", frames.children[action.click].querySelector("rect"));
    if ("search" in action) { promptAnswer = action.search; byId.search.fire("click", byId.search); }
    if (action.resetZoom) byId.resetzoom.fire("click", byId.resetzoom);
    if (action.resetSearch) byId.resetsearch.fire("click", byId.resetsearch);
    if ("key" in action)
        for (const f of windowListeners.keydown || []) f({ key: action.key, ctrlKey: false, metaKey: false, preventDefault() {} });
    console.log(JSON.stringify({
        frames: frames.children.map((g) => ({
            display: g.style.display || "",
            opacity: g.style.opacity || "",
            x: parseFloat(g.querySelector("rect").getAttribute("x")),
            width: parseFloat(g.querySelector("rect").getAttribute("width")),
            fill: g.querySelector("rect").getAttribute("fill"),
            label: g.querySelector("text").textContent,
        })),
        matched: byId.matched.textContent,
        matchedShown: byId.matched.style.opacity === "1",
    }));
}
