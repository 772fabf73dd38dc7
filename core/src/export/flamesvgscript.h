// Internal: the script and style embedded in the interactive flame graph SVG (written for Scorch).
#pragma once

namespace scorch::detail {

/// Placeholders replaced by the writer: @FRAME_HEIGHT@, @INVERTED@ (0/1), @XPAD@, @FONT_SIZE@, @MATCH_FILL@.
inline constexpr const char* kFlameSvgScript = R"JS(
"use strict";
var FH = @FRAME_HEIGHT@, INVERTED = @INVERTED@, XPAD = @XPAD@, FONT = @FONT_SIZE@, MATCH = "@MATCH_FILL@";
var CHAR_W = FONT * 0.6, EPS = 0.005;
var all = [], zoomed = null, pattern = null;
var ui = {};

function scorchInit() {
    ui.root = document.documentElement;
    ui.details = document.getElementById("details");
    ui.matched = document.getElementById("matched");
    ui.reset = document.getElementById("resetzoom");
    ui.search = document.getElementById("search");
    ui.unsearch = document.getElementById("resetsearch");
    ui.fullWidth = parseFloat(ui.root.getAttribute("width")) - 2 * XPAD;
    var groups = document.getElementById("frames").children;
    for (var i = 0; i < groups.length; ++i) {
        var g = groups[i];
        var rect = g.querySelector("rect"), label = g.querySelector("text"), tip = g.querySelector("title");
        var cold = g.querySelector("rect.c"); // hot/cold: the off-CPU part of the frame
        var tipText = tip ? tip.textContent : "";
        var cut = tipText.lastIndexOf(" (");
        var item = {
            g: g, rect: rect, label: label, tip: tipText,
            name: cut > 0 ? tipText.substring(0, cut) : tipText,
            merged: g.classList.contains("m"),
            x: parseFloat(rect.getAttribute("x")), w: parseFloat(rect.getAttribute("width")),
            y: parseFloat(rect.getAttribute("y")), fill: rect.getAttribute("fill"), cold: cold,
            share: cold ? parseFloat(cold.getAttribute("width")) / parseFloat(rect.getAttribute("width")) : 0
        };
        item.cx = item.x;
        item.cw = item.w;
        g.scorchIndex = all.length;
        all.push(item);
    }
    var frames = document.getElementById("frames");
    frames.addEventListener("click", function (e) {
        var item = itemOf(e.target);
        if (item) zoomTo(item);
    });
    frames.addEventListener("mouseover", function (e) {
        var item = itemOf(e.target);
        ui.details.textContent = item ? (item.merged ? item.tip : "Function: " + item.tip) : " ";
    });
    frames.addEventListener("mouseout", function () { ui.details.textContent = " "; });
    ui.reset.addEventListener("click", resetZoom);
    ui.search.addEventListener("click", askSearch);
    ui.unsearch.addEventListener("click", clearSearch);
    window.addEventListener("keydown", function (e) {
        if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) {
            e.preventDefault();
            askSearch();
        } else if (e.key === "Escape") {
            resetZoom();
        }
    });
}

function itemOf(node) {
    while (node && node !== document) {
        if (node.scorchIndex !== undefined) return all[node.scorchIndex];
        node = node.parentNode;
    }
    return null;
}

// Is a drawn at a deeper level than b (further from the roots)?
function deeper(a, b) { return INVERTED ? a.y > b.y : a.y < b.y; }

function place(item, x, w, visible, ancestor) {
    item.cx = x;
    item.cw = w;
    item.g.style.display = visible ? "" : "none";
    item.g.style.opacity = ancestor ? "0.6" : "";
    if (!visible) return;
    item.rect.setAttribute("x", x.toFixed(3));
    item.rect.setAttribute("width", w.toFixed(3));
    if (item.cold) {
        item.cold.setAttribute("x", (x + w * (1 - item.share)).toFixed(3));
        item.cold.setAttribute("width", (w * item.share).toFixed(3));
    }
    if (!item.label) return;
    item.label.setAttribute("x", (x + 3).toFixed(3));
    var fits = Math.floor((w - 6) / CHAR_W);
    var text = item.merged ? "" : item.name;
    if (fits < 3) text = "";
    else if (text.length > fits) text = text.substring(0, fits - 2) + "..";
    item.label.textContent = text;
}

function zoomTo(target) {
    zoomed = target;
    var k = ui.fullWidth / target.w;
    for (var i = 0; i < all.length; ++i) {
        var it = all[i];
        var inside = it.x >= target.x - EPS && it.x + it.w <= target.x + target.w + EPS;
        var covers = it.x <= target.x + EPS && it.x + it.w >= target.x + target.w - EPS;
        if (it === target || (covers && deeper(target, it))) {
            place(it, XPAD, ui.fullWidth, true, it !== target);
        } else if (inside && deeper(it, target)) {
            place(it, XPAD + (it.x - target.x) * k, it.w * k, true, false);
        } else {
            place(it, it.x, it.w, false, false);
        }
    }
    ui.reset.style.opacity = "1";
    if (pattern) applySearch();
}

function resetZoom() {
    zoomed = null;
    for (var i = 0; i < all.length; ++i) place(all[i], all[i].x, all[i].w, true, false);
    ui.reset.style.opacity = "0";
    if (pattern) applySearch();
}

function askSearch() {
    var text = window.prompt("Search for (regular expression):", pattern ? pattern.source : "");
    if (text === null) return;
    if (text === "") { clearSearch(); return; }
    try {
        pattern = new RegExp(text);
    } catch (err) {
        window.alert("Not a valid regular expression: " + err.message);
        return;
    }
    applySearch();
}

// Colours matching frames and reports the share of the view they cover, counting nested matches once.
function applySearch() {
    var spans = [];
    for (var i = 0; i < all.length; ++i) {
        var it = all[i];
        var hit = !it.merged && pattern.test(it.name);
        it.rect.setAttribute("fill", hit ? MATCH : it.fill);
        if (it.cold) it.cold.style.display = hit ? "none" : "";
        if (hit && it.g.style.display !== "none") spans.push([it.cx, it.cx + it.cw]);
    }
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var covered = 0, end = -Infinity;
    for (var j = 0; j < spans.length; ++j) {
        var from = Math.max(spans[j][0], end);
        if (spans[j][1] > from) covered += spans[j][1] - from;
        end = Math.max(end, spans[j][1]);
    }
    var share = 100 * covered / ui.fullWidth;
    ui.matched.textContent = "Matched: " + share.toFixed(1) + "%";
    ui.matched.style.opacity = "1";
    ui.unsearch.style.opacity = "1";
}

function clearSearch() {
    pattern = null;
    for (var i = 0; i < all.length; ++i) {
        all[i].rect.setAttribute("fill", all[i].fill);
        if (all[i].cold) all[i].cold.style.display = "";
    }
    ui.matched.style.opacity = "0";
    ui.unsearch.style.opacity = "0";
}
)JS";

inline constexpr const char* kFlameSvgStyle = R"CSS(
text { font-family: Verdana, "DejaVu Sans", sans-serif; fill: #000; }
#title { text-anchor: middle; font-size: 17px; }
#subtitle { text-anchor: middle; fill: #555; }
#frames text { pointer-events: none; }
#frames rect { stroke: #fff; stroke-width: 0.5; stroke-opacity: 0.6; }
#frames g:hover rect { stroke: #000; stroke-width: 0.8; stroke-opacity: 1; cursor: pointer; }
.button { cursor: pointer; }
.button:hover { text-decoration: underline; }
#resetzoom, #resetsearch, #matched { opacity: 0; }
#matched, #search { text-anchor: end; }
)CSS";

} // namespace scorch::detail
