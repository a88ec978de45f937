// flame-browser.js — open a zt-flame SVG in headless Chromium and use it as a
// person would, through the DevTools protocol (Node's own WebSocket; run
// with node --experimental-websocket on Node 20). For tests/0700-flame.bats.
//
//   node --experimental-websocket tests/flame-browser.js SVG FRAME REGEX PNG
//
// It loads SVG, moves the mouse over FRAME (a frame's name) and reads the
// details line, clicks FRAME and reads the DOM (FRAME's box, its siblings,
// its callers, the Reset Zoom button), clicks "Search" and answers the
// prompt with REGEX, reads the "Matched" line, clicks "Reset Zoom", reads
// FRAME's box again and saves a screenshot of the whole page to PNG.
// Prints one JSON object, with where the page opened scrolled to (scroll).
// The window is the graph's size, or FLAME_WINDOW_HEIGHT pixels high when
// that is less.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const [svg, frameName, regex, png] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "zt-flame-chromium-"));
const browser = spawn(chromium, [
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--hide-scrollbars", "--user-data-dir=" + profile, "--remote-debugging-port=0",
	"about:blank",
], { stdio: ["ignore", "ignore", "pipe"], detached: true });

function finish(code, out) {
	if (out) process.stdout.write(JSON.stringify(out, null, 1) + "\n");
	browser.removeAllListeners("exit");
	/* The whole group: chromium's helpers keep writing into the profile
	 * directory after the main process is gone. */
	try { process.kill(-browser.pid, "SIGKILL"); } catch (e) { browser.kill("SIGKILL"); }
	try {
		fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
	} catch (e) {
		console.error("flame-browser: could not remove " + profile + ": " + e.message);
	}
	process.exit(code);
}
setTimeout(() => { console.error("flame-browser: timed out"); finish(1); }, 40000);

let stderr = "", started = false;
browser.stderr.on("data", (d) => {
	stderr += d;
	const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
	if (m && !started) {
		started = true;
		run(m[1]).then((out) => finish(0, out), (err) => {
			console.error("flame-browser: " + (err && err.stack || err));
			finish(1);
		});
	}
});
browser.on("exit", (code) => {
	console.error("flame-browser: chromium exited (" + code + "): " + stderr.slice(-2000));
	process.exit(1);
});

async function run(url) {
	const ws = new WebSocket(url);
	await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
	let id = 0;
	const waiting = new Map(), listeners = [];
	ws.onmessage = (m) => {
		const msg = JSON.parse(m.data);
		if (msg.id && waiting.has(msg.id)) {
			const w = waiting.get(msg.id);
			waiting.delete(msg.id);
			if (msg.error) w.fail(new Error(JSON.stringify(msg.error)));
			else w.ok(msg.result);
		} else if (msg.method) {
			for (const l of listeners) l(msg);
		}
	};
	let session;
	const send = (method, params = {}) => new Promise((ok, fail) => {
		const m = { id: ++id, method, params };
		if (session) m.sessionId = session;
		waiting.set(m.id, { ok, fail });
		ws.send(JSON.stringify(m));
	});
	const event = (name) => new Promise((ok) => {
		listeners.push(function l(msg) {
			if (msg.method === name) {
				listeners.splice(listeners.indexOf(l), 1);
				ok(msg.params);
			}
		});
	});
	const js = async (expr) => {
		const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true });
		if (r.exceptionDetails) throw new Error(expr + ": " + JSON.stringify(r.exceptionDetails));
		return r.result.value;
	};
	const mouse = async (type, x, y) => send("Input.dispatchMouseEvent",
		{ type, x, y, button: type === "mouseMoved" ? "none" : "left", clickCount: 1 });
	const click = async (p) => {
		await mouse("mouseMoved", p.x, p.y);
		await mouse("mousePressed", p.x, p.y);
		await mouse("mouseReleased", p.x, p.y);
	};

	const { targetId } = await send("Target.createTarget", { url: "about:blank" });
	session = (await send("Target.attachToTarget", { targetId, flatten: true })).sessionId;
	await send("Page.enable");
	await send("Runtime.enable");
	const size = fs.readFileSync(svg, "utf8").match(/<svg[^>]* width="(\d+)" height="(\d+)"/);
	await send("Emulation.setDeviceMetricsOverride",
		{ width: Number(size[1]), deviceScaleFactor: 1, mobile: false,
		  // The window fits the graph, unless FLAME_WINDOW_HEIGHT makes it
		  // shorter (a tall graph on a screen).
		  height: Math.min(Number(size[2]), Number(process.env.FLAME_WINDOW_HEIGHT) || Infinity) });
	const loaded = event("Page.loadEventFired");
	await send("Page.navigate", { url: "file://" + path.resolve(svg) });
	await loaded;

	// The frame's <g>, found by its title; its geometry and centre on screen.
	const find = `(function () {
		var gs = document.querySelectorAll("#frames > g");
		for (var i = 0; i < gs.length; i++) {
			var t = gs[i].querySelector("title").textContent;
			if (t.indexOf(${JSON.stringify(frameName + " (")}) === 0) return gs[i];
		}
		return null;
	})()`;
	const box = (g) => `(function (g) {
		var r = g.querySelector("rect"), b = r.getBoundingClientRect();
		return { x: Number(r.getAttribute("x")), width: Number(r.getAttribute("width")),
			 y: Number(r.getAttribute("y")), cx: b.left + b.width / 2, cy: b.top + b.height / 2,
			 label: g.querySelector("text").textContent, cls: g.getAttribute("class") || "" };
	})(${g})`;
	const out = { frame: frameName };
	// Where the graph opened: a tall flame graph at its widest part.
	out.scroll = await js(`({ y: window.scrollY, inner: window.innerHeight,
		height: document.documentElement.scrollHeight })`);
	out.frames = await js(`document.querySelectorAll("#frames > g").length`);
	out.before = await js(box(find));
	await mouse("mouseMoved", out.before.cx, out.before.cy);
	out.details = await js(`document.getElementById("details").textContent`);

	await click({ x: out.before.cx, y: out.before.cy });
	out.after = await js(box(find));
	// Every frame's state after the zoom: hidden, a faded caller, or shown.
	out.zoomed = await js(`Array.from(document.querySelectorAll("#frames > g")).map(function (g) {
		var r = g.querySelector("rect");
		return { title: g.querySelector("title").textContent, cls: g.getAttribute("class") || "",
			 x: Number(r.getAttribute("x")), width: Number(r.getAttribute("width")),
			 y: Number(r.getAttribute("y")) };
	})`);
	out.unzoomHidden = await js(`document.getElementById("unzoom").classList.contains("hide")`);

	const dialog = event("Page.javascriptDialogOpening");
	// The buttons sit at the top: a person scrolls up to them.
	const search = await js(`(function () { document.getElementById("search").scrollIntoView();
		var b = document.getElementById("search").getBoundingClientRect();
		return { x: b.left + b.width / 2, y: b.top + b.height / 2 }; })()`);
	await mouse("mouseMoved", search.x, search.y);
	await mouse("mousePressed", search.x, search.y);
	const releasing = mouse("mouseReleased", search.x, search.y);
	out.prompt = (await dialog).message;
	await send("Page.handleJavaScriptDialog", { accept: true, promptText: regex });
	await releasing;
	out.matched = await js(`document.getElementById("matched").textContent`);
	out.highlighted = await js(`Array.from(document.querySelectorAll("#frames rect"))
		.filter(function (r) { return r.getAttribute("fill") === "rgb(230,0,230)"; }).length`);

	const reset = await js(`(function () { document.getElementById("unzoom").scrollIntoView();
		var b = document.getElementById("unzoom").getBoundingClientRect();
		return { x: b.left + b.width / 2, y: b.top + b.height / 2 }; })()`);
	await click(reset);
	out.reset = await js(box(find));
	out.unzoomHiddenAfterReset = await js(`document.getElementById("unzoom").classList.contains("hide")`);

	// The whole page after the reset, wherever the clicks scrolled it: a
	// deep stack makes the graph taller than the window. (Zoomed, only
	// hot_a's row is in full colour: under 5% of a graph made taller by a
	// deep stack in the loader.)
	const page = await js(`({ w: document.documentElement.scrollWidth,
		h: document.documentElement.scrollHeight })`);
	const shot = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true,
		clip: { x: 0, y: 0, width: page.w, height: page.h, scale: 1 } });
	fs.writeFileSync(png, Buffer.from(shot.data, "base64"));

	return out;
}
