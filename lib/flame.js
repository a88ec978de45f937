// flame.js — the script inside every SVG that zt-flame writes (lib/flame.c
// puts a line of settings before it: XPAD, WIDTH, CHARW, ICICLE, TOTAL,
// DIFF). No library and no URL: the SVG works from a file, offline.
//
// Click a frame to zoom to it (its callers stay, faded, at full width),
// "Reset Zoom" or Escape to go back. "Search" or Ctrl-F asks for a regular
// expression, colours the frames whose names match, and reports the share
// of all samples under them (a match inside a match is counted once).
// Hovering a frame shows its name, samples and share at the bottom; its
// title element is the browser's tooltip.
"use strict";
var frames = [], byG = new Map(), details, unzoomBtn, searchBtn, matchedTxt;
var zoomed = null, searchTerm = null;

function parseTitle(title) {
	var m = /^([\s\S]*) \(([0-9,]+) samples, /.exec(title);
	return m ? { name: m[1], samples: Number(m[2].replace(/,/g, "")) }
		 : { name: title, samples: 0 };
}

function init() {
	details = document.getElementById("details").firstChild;
	unzoomBtn = document.getElementById("unzoom");
	searchBtn = document.getElementById("search");
	matchedTxt = document.getElementById("matched");
	var gs = document.getElementById("frames").children;
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i], r = g.querySelector("rect"), t = g.querySelector("text");
		var title = g.querySelector("title").textContent, p = parseTitle(title);
		var f = { g: g, r: r, t: t, title: title, name: p.name, samples: p.samples,
			  x: Number(r.getAttribute("x")), w: Number(r.getAttribute("width")),
			  y: Number(r.getAttribute("y")), fill: r.getAttribute("fill") };
		frames.push(f);
		byG.set(g, f);
	}
	document.getElementById("frames").addEventListener("click", function (e) {
		var f = frameOf(e.target);
		if (f) zoom(f);
	});
	document.getElementById("frames").addEventListener("mouseover", function (e) {
		var f = frameOf(e.target);
		if (f) details.nodeValue = f.title;
	});
	document.getElementById("frames").addEventListener("mouseout", function () {
		details.nodeValue = " ";
	});
	unzoomBtn.addEventListener("click", unzoom);
	searchBtn.addEventListener("click", function () {
		if (searchTerm !== null) resetSearch();
		else askSearch();
	});
	window.addEventListener("keydown", function (e) {
		if (e.key === "F3" || (e.ctrlKey && (e.key === "f" || e.key === "F"))) {
			e.preventDefault();
			askSearch();
		} else if (e.key === "Escape") {
			unzoom();
			resetSearch();
		}
	});
	// A flame graph taller than the window (stacks cut at 128 frames stand
	// as thin towers above everything) opens at its bottom, the widest part:
	// the root and the callers that hold the time. An icicle's is its top.
	if (!ICICLE)
		window.scrollTo(0, document.documentElement.scrollHeight);
}

function frameOf(node) {
	while (node && node.parentNode) {
		if (byG.has(node)) return byG.get(node);
		node = node.parentNode;
	}
	return null;
}

// A frame's name without a perf annotation (_[k], _[j], ...), cut to fit.
function label(f, w) {
	if (f.y === rootY()) return fit("all", w);
	return fit(f.name.replace(/_\[[kwij]\]$/, ""), w);
}

function fit(name, w) {
	var chars = Math.floor(w / CHARW), cs = Array.from(name);
	if (chars < 3) return "";
	if (cs.length <= chars) return name;
	return cs.slice(0, chars - 2).join("") + "..";
}

function rootY() {
	return frames.length ? frames[0].y : 0;
}

function place(f, x, w) {
	f.r.setAttribute("x", x.toFixed(1));
	f.r.setAttribute("width", w.toFixed(1));
	f.t.setAttribute("x", (x + 3).toFixed(2));
	f.t.textContent = label(f, w);
}

function zoom(z) {
	var eps = 0.01, full = WIDTH - 2 * XPAD, ratio = full / z.w;
	var x0 = z.x, x1 = z.x + z.w;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], caller = ICICLE ? f.y < z.y : f.y > z.y;
		var inside = caller ? f.x <= x0 + eps && f.x + f.w + eps >= x1
				    : f.x + eps >= x0 && f.x + f.w <= x1 + eps;
		f.g.classList.toggle("hide", !inside);
		f.g.classList.toggle("parent", inside && caller);
		if (!inside) continue;
		if (caller) place(f, XPAD, full);
		else place(f, XPAD + (f.x - x0) * ratio, f.w * ratio);
	}
	zoomed = z;
	unzoomBtn.classList.remove("hide");
}

function unzoom() {
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i];
		f.g.classList.remove("hide", "parent");
		place(f, f.x, f.w);
	}
	zoomed = null;
	unzoomBtn.classList.add("hide");
}

function askSearch() {
	var t = window.prompt("Search for frames whose names match a regular expression (e.g. ^hot_)", searchTerm || "");
	if (t !== null && t !== "") search(t);
}

// Colour the matching frames; returns the matched share of all samples, in %.
function search(term) {
	var re;
	try {
		re = new RegExp(term);
	} catch (err) {
		matchedTxt.textContent = "bad regular expression";
		return -1;
	}
	var hits = [];
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i];
		if (f.y !== rootY() && re.test(f.name)) {
			f.r.setAttribute("fill", "rgb(230,0,230)");
			hits.push(f);
		} else {
			f.r.setAttribute("fill", f.fill);
		}
	}
	// Outermost matches only: by x, the wider (a caller) first.
	hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
	var sum = 0, end = -1;
	for (var k = 0; k < hits.length; k++) {
		if (hits[k].x >= end - 0.01) {
			sum += hits[k].samples;
			end = hits[k].x + hits[k].w;
		}
	}
	var pct = TOTAL ? 100 * sum / TOTAL : 0;
	searchTerm = term;
	searchBtn.textContent = "Reset Search";
	searchBtn.classList.add("on");
	matchedTxt.textContent = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) +
		"% (" + sum + " of " + TOTAL + " samples)";
	return pct;
}

function resetSearch() {
	for (var i = 0; i < frames.length; i++) frames[i].r.setAttribute("fill", frames[i].fill);
	searchTerm = null;
	searchBtn.textContent = "Search";
	searchBtn.classList.remove("on");
	matchedTxt.textContent = " ";
}

window.addEventListener("load", init);
