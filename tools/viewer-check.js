#!/usr/bin/env node
// viewer-check: opens a profile in speedscope, in headless chromium, and
// checks from the page that given function names are on the screen.
//
// usage: node tools/viewer-check.js --speedscope DIR [--screenshot FILE.png]
//            [--timeout SECONDS] [--workdir DIR] PROFILE NAME...
//
//   --speedscope DIR   speedscope's static build (the npm package's
//                      dist/release/, tools/viewers.conf says where
//                      tools/install-deps.sh --viewers puts it)
//   --screenshot FILE  the page as the check left it, PNG
//   --timeout SECONDS  bound of every wait (default 30); the whole run is
//                      bounded by 4 times it
//   --workdir DIR      chromium's profile and chromedriver's log go there
//                      (default: a temporary directory, removed at the end)
//
// It serves DIR and PROFILE on 127.0.0.1 (a free port, node's http module),
// starts chromedriver and, through its W3C WebDriver HTTP API (node's own
// fetch, no other package), headless chromium; opens
// index.html#profileURL=<PROFILE's URL>; waits until speedscope has loaded
// it; clicks the toolbar's Sandwich tab, whose table lists the functions as
// DOM rows (the flame charts are canvases); and looks for the names there.
// A name is on the screen when the glyphs of its table cell are inside the
// window, not cut off by the cell's ellipsis, and the element at their centre
// is that cell (nothing covers them). A file with several threads (Chrome
// trace JSON) is one speedscope profile per thread: each is visited in turn
// (key 'n') until one shows every name.
//
// Exit 0 when one profile shows every name, 1 otherwise (one line on stderr:
// what is missing, what the page showed, or why the profile did not load),
// 2 on a usage error. chromedriver and chromium are stopped on every way
// out, signals included.
'use strict';

const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');

const ME = 'viewer-check';
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'; // W3C WebDriver's element key

function usage(msg) {
	if (msg) process.stderr.write(`${ME}: ${msg}\n`);
	process.stderr.write(
		`usage: node tools/viewer-check.js --speedscope DIR [--screenshot FILE.png] ` +
			`[--timeout SECONDS] [--workdir DIR] PROFILE NAME...\n`,
	);
	process.exit(2);
}

function parseArgs(argv) {
	const o = { timeout: 30, names: [] };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const val = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
		if (a === '--speedscope') o.speedscope = val();
		else if (a === '--screenshot') o.screenshot = val();
		else if (a === '--timeout') o.timeout = Number(val());
		else if (a === '--workdir') o.workdir = val();
		else if (a === '-h' || a === '--help') usage();
		else if (a.startsWith('--')) usage(`unknown option ${a}`);
		else if (!o.profile) o.profile = a;
		else o.names.push(a);
	}
	if (!o.speedscope || !o.profile || o.names.length === 0) usage();
	if (!(o.timeout > 0)) usage('--timeout takes a number of seconds');
	if (!fs.existsSync(path.join(o.speedscope, 'index.html')))
		usage(`no index.html in ${o.speedscope} (tools/install-deps.sh --viewers installs speedscope)`);
	if (!fs.statSync(o.profile, { throwIfNoEntry: false })?.isFile()) usage(`no file ${o.profile}`);
	return o;
}

const opt = parseArgs(process.argv.slice(2));
const WAIT_MS = opt.timeout * 1000;
const T0 = Date.now();
// VIEWER_CHECK_DEBUG=1: each step, with the milliseconds since the start, on stderr
const debug = process.env.VIEWER_CHECK_DEBUG ? (m) => process.stderr.write(`${ME} +${Date.now() - T0}ms: ${m}\n`) : () => {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function which(cmd, candidates) {
	for (const c of candidates) if (fs.existsSync(c)) return c;
	for (const d of (process.env.PATH || '').split(':')) {
		const p = path.join(d, cmd);
		try {
			fs.accessSync(p, fs.constants.X_OK);
			return p;
		} catch {}
	}
	return null;
}
// Debian's /usr/bin/chromium is a shell wrapper adding flags of its own
// (extensions, /etc/chromium.d); the binary behind it takes only ours.
const CHROMIUM = process.env.CHROMIUM || which('chromium', ['/usr/lib/chromium/chromium']);
const CHROMEDRIVER = process.env.CHROMEDRIVER || which('chromedriver', ['/usr/bin/chromedriver']);
if (!CHROMIUM) usage('no chromium (tools/install-deps.sh --viewers installs it)');
if (!CHROMEDRIVER) usage('no chromedriver (tools/install-deps.sh --viewers installs chromium-driver)');

// ------------------------------------------------------------ cleanup
// Everything started is undone here, once, whatever the way out.
const st = { server: null, driver: null, session: null, port: 0, tmp: null, workdir: null };
let cleaned = null;

// Pids of the processes below pid, read from /proc (chromium's helpers
// are chromedriver's grandchildren).
function descendants(pid) {
	const kids = new Map();
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		let stat;
		try {
			stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
		} catch {
			continue;
		}
		const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
		if (!kids.has(ppid)) kids.set(ppid, []);
		kids.get(ppid).push(Number(d));
	}
	const out = [];
	const walk = (p) => (kids.get(p) || []).forEach((k) => (out.push(k), walk(k)));
	walk(pid);
	return out;
}

// Processes whose command line names our work directory: chromedriver
// (--log-path) and chromium (--user-data-dir), wherever they were reparented.
function oursByCmdline() {
	if (!st.workdir) return [];
	const out = [];
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
		try {
			if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(st.workdir + path.sep)) out.push(Number(d));
		} catch {}
	}
	return out;
}

function killAll(sig) {
	const pids = new Set(oursByCmdline());
	if (st.driver && st.driver.exitCode === null && st.driver.signalCode === null) {
		pids.add(st.driver.pid);
		descendants(st.driver.pid).forEach((p) => pids.add(p));
		try {
			process.kill(-st.driver.pid, sig); // its process group (spawned detached)
		} catch {}
	}
	for (const p of pids) {
		try {
			process.kill(p, sig);
		} catch {}
	}
	return pids.size;
}

async function cleanup() {
	if (cleaned) return cleaned;
	cleaned = (async () => {
		if (st.session) {
			// chromedriver closes chromium itself; bounded, then by force
			await wd('DELETE', '', undefined, 5000).catch(() => {});
			st.session = null;
			debug('session closed');
		}
		for (let i = 0; i < 20 && killAll('SIGTERM') > 0; i++) await sleep(100);
		for (let i = 0; i < 20 && killAll('SIGKILL') > 0; i++) await sleep(100);
		if (st.server) {
			st.server.closeAllConnections();
			st.server.close();
			st.server = null;
		}
		if (st.tmp) fs.rmSync(st.tmp, { recursive: true, force: true });
	})();
	return cleaned;
}

// At the very end, whatever the way out: synchronous kills only. It also
// catches what main() may have started while an interrupted cleanup ran.
process.on('exit', () => killAll('SIGKILL'));
let exiting = false;
async function finish(code, line, sig) {
	if (exiting) return;
	exiting = true;
	if (line) process.stderr.write(`${ME}: ${line}\n`);
	await cleanup().catch(() => {});
	debug('stopped');
	if (sig) {
		// Dies of the signal, as the shell that runs it expects: a script
		// interrupted with Ctrl-C stops there, it does not go on.
		killAll('SIGKILL');
		process.removeAllListeners(sig);
		process.kill(process.pid, sig);
	}
	process.exit(code);
}
for (const [sig, code] of [
	['SIGINT', 130],
	['SIGTERM', 143],
	['SIGHUP', 129],
])
	process.on(sig, () => finish(code, `${path.basename(opt.profile)}: interrupted (${sig})`, sig));
// The whole run is bounded, whatever hangs.
setTimeout(
	() => finish(1, `${path.basename(opt.profile)}: no result in ${4 * opt.timeout} s; stopped`),
	4 * WAIT_MS,
).unref();

// ------------------------------------------------------------ HTTP server
// What the page reports besides its DOM: speedscope says what went wrong
// with a load in the console and in alert() (which would block WebDriver),
// and names the importer it picked with console.log("Importing as ...").
const PROBE = `<script>
(function () {
	var p = window.__viewerCheck = { errors: [], alerts: [], importer: null };
	function text(args) {
		return Array.prototype.map.call(args, function (a) {
			return a instanceof Error ? (a.stack || String(a)) : String(a);
		}).join(' ').slice(0, 400);
	}
	var log = console.log, error = console.error;
	console.log = function () {
		var t = text(arguments);
		if (/^Import(ing as|ing from) /.test(t)) p.importer = t;
		for (var i = 0; i < arguments.length; i++)
			if (arguments[i] instanceof Error) p.errors.push(t);
		return log.apply(console, arguments);
	};
	console.error = function () { p.errors.push(text(arguments)); return error.apply(console, arguments); };
	window.alert = function (m) { p.alerts.push(String(m)); };
	window.addEventListener('error', function (e) { p.errors.push(String(e.message)); });
	window.addEventListener('unhandledrejection', function (e) { p.errors.push('unhandled: ' + String(e.reason)); });
})();
</script>
`;
const TYPES = {
	'.html': 'text/html; charset=utf-8',
	'.js': 'text/javascript',
	'.css': 'text/css',
	'.json': 'application/json',
	'.png': 'image/png',
	'.ico': 'image/x-icon',
	'.woff2': 'font/woff2',
	'.wasm': 'application/wasm',
	'.txt': 'text/plain; charset=utf-8',
};

function serve() {
	const root = path.resolve(opt.speedscope);
	const profileName = path.basename(opt.profile);
	const server = http.createServer((req, res) => {
		const url = new URL(req.url, 'http://127.0.0.1');
		let file = null;
		let body = null;
		if (url.pathname === `/profile/${encodeURIComponent(profileName)}`) file = opt.profile;
		else if (url.pathname === '/speedscope/index.html') {
			body = fs
				.readFileSync(path.join(root, 'index.html'), 'utf8')
				.replace(/<script\b/, PROBE + '<script');
		} else if (url.pathname.startsWith('/speedscope/')) {
			const f = path.resolve(root, '.' + decodeURIComponent(url.pathname.slice('/speedscope'.length)));
			if (f.startsWith(root + path.sep)) file = f;
		}
		const headers = { 'Cache-Control': 'no-store' };
		if (body !== null) {
			res.writeHead(200, { ...headers, 'Content-Type': TYPES['.html'] });
			return res.end(body);
		}
		if (!file || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
			res.writeHead(404, headers);
			return res.end('not found');
		}
		headers['Content-Type'] = TYPES[path.extname(file)] || 'application/octet-stream';
		res.writeHead(200, headers);
		fs.createReadStream(file).pipe(res);
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve(server));
	});
}

function freePort() {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.once('error', reject);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
	});
}

// ------------------------------------------------------------ WebDriver
async function wd(method, what, body, ms = WAIT_MS) {
	const url = `http://127.0.0.1:${st.port}/session${st.session ? '/' + st.session : ''}${what}`;
	let res;
	try {
		res = await fetch(url, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(ms),
		});
	} catch (e) {
		if (e.name !== 'TimeoutError') throw new Error(`WebDriver ${method} ${what || '/session'}: ${e.message}`);
		throw new Error(`WebDriver ${method} ${what || '/session'}: no answer in ${ms / 1000} s (the page is busy, or hangs)`);
	}
	const json = await res.json().catch(() => ({}));
	if (!res.ok || (json.value && json.value.error)) {
		const v = json.value || {};
		throw new Error(`WebDriver ${method} ${what || '/session'}: ${v.error || res.status}: ${(v.message || '').split('\n')[0]}`);
	}
	return json.value;
}
const run = (fn, ...args) => wd('POST', '/execute/sync', { script: `return (${fn}).apply(null, arguments)`, args });
// The same, bounded by MS: for what is said about a page that may hang.
const runQuick = (ms, fn, ...args) =>
	wd('POST', '/execute/sync', { script: `return (${fn}).apply(null, arguments)`, args }, ms);
const key = (k, mod) =>
	wd('POST', '/actions', {
		actions: [
			{
				type: 'key',
				id: 'keyboard',
				actions: mod
					? [{ type: 'keyDown', value: mod }, { type: 'keyDown', value: k }, { type: 'keyUp', value: k }, { type: 'keyUp', value: mod }]
					: [{ type: 'keyDown', value: k }, { type: 'keyUp', value: k }],
			},
		],
	});
const CTRL = '\uE009';
const ESCAPE = '\uE00C';

async function startBrowser() {
	st.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'viewer-check.'));
	st.workdir = opt.workdir ? path.resolve(opt.workdir) : st.tmp;
	fs.mkdirSync(st.workdir, { recursive: true });
	const log = path.join(st.workdir, 'chromedriver.log');
	// chromium's crash handler double-forks away from chromedriver, and it and
	// NSS keep files under $HOME whatever --user-data-dir says: a home of its
	// own keeps them out of the real one and puts the work directory in every
	// command line, which is how cleanup finds them all.
	const home = path.join(st.workdir, 'home');
	fs.mkdirSync(home, { recursive: true });
	let out = '';
	for (let attempt = 0; ; attempt++) {
		st.port = await freePort();
		if (exiting) throw new Error('stopping');
		// detached: its own process group, which chromium joins; killed as one
		st.driver = spawn(CHROMEDRIVER, [`--port=${st.port}`, `--log-path=${log}`], {
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: {
				...process.env,
				HOME: home,
				XDG_CONFIG_HOME: path.join(home, '.config'),
				XDG_CACHE_HOME: path.join(home, '.cache'),
			},
		});
		st.driver.stdout.on('data', (d) => (out = (out + d).slice(-2000)));
		st.driver.stderr.on('data', (d) => (out = (out + d).slice(-2000)));
		st.driver.on('error', (e) => (out += String(e)));
		const t0 = Date.now();
		let ready = false;
		while (Date.now() - t0 < WAIT_MS && st.driver.exitCode === null) {
			try {
				const r = await fetch(`http://127.0.0.1:${st.port}/status`, { signal: AbortSignal.timeout(2000) });
				if ((await r.json()).value.ready) {
					ready = true;
					break;
				}
			} catch {}
			await sleep(100);
		}
		if (ready) {
			debug(`chromedriver ready on port ${st.port}`);
			break;
		}
		killAll('SIGKILL');
		// the port may have been taken between our probe and its bind: once more
		if (attempt >= 1) throw new Error(`chromedriver did not start: ${out.trim().split('\n').pop() || 'no output'}`);
	}
	const args = [
		'--headless=new',
		'--no-sandbox', // as root, chromium refuses to start with its sandbox
		'--window-size=1600,1000',
		'--force-device-scale-factor=1',
		'--hide-scrollbars',
		`--user-data-dir=${path.join(st.workdir, 'chromium')}`,
		'--no-first-run',
		'--no-default-browser-check',
		'--disable-extensions',
		'--disable-sync',
		'--disable-background-networking',
		'--disable-component-update',
		'--disable-crash-reporter', // no crashpad handler, a process of its own
		'--disable-breakpad',
		'--disable-dev-shm-usage', // containers have a small /dev/shm
		// speedscope needs WebGL; without a GPU that is SwiftShader, which
		// chromium no longer falls back to on its own
		'--use-angle=swiftshader',
		'--enable-unsafe-swiftshader',
	];
	const caps = {
		'goog:chromeOptions': { binary: CHROMIUM, args },
		unhandledPromptBehavior: 'accept',
		timeouts: { script: WAIT_MS, pageLoad: WAIT_MS, implicit: 0 },
	};
	const v = await wd('POST', '', { capabilities: { alwaysMatch: caps } });
	st.session = v.sessionId;
	debug(`chromium started (${v.capabilities.browserVersion})`);
}

// ------------------------------------------------------------ in the page
// Functions below run in the page (executeScript): no closure over this file.

// Has speedscope loaded the profile, failed, or is it still at it?
function pageState() {
	const p = window.__viewerCheck || { errors: [], alerts: [] };
	const body = (document.body && document.body.innerText) || '';
	const idx = Array.from(document.querySelectorAll('span')).find((s) => /^\(\d+\/\d+\)$/.test(s.textContent));
	return {
		title: document.title,
		failed: /Something went wrong/.test(body) || p.alerts.length > 0,
		// speedscope names the page after the profile a moment before it
		// shows it; the toolbar's view tabs come with the profile (and the
		// "(i/N)" of several, with them)
		loaded:
			/. - speedscope$/.test(document.title) &&
			Array.from(document.querySelectorAll('body *')).some(
				(e) => e.childElementCount <= 1 && e.textContent.trim().endsWith('Sandwich') && e.getClientRects().length > 0,
			),
		body: body.replace(/\s+/g, ' ').trim().slice(0, 160),
		errors: p.errors.slice(0, 3),
		alerts: p.alerts.slice(0, 3),
		importer: p.importer,
		// "(2/3)" beside the profile's name when there are several
		profile: idx ? idx.parentElement.textContent.trim() : null,
		index: idx ? Number(idx.textContent.match(/\d+/)[0]) : 1,
		count: idx ? Number(idx.textContent.match(/\/(\d+)/)[1]) : 1,
	};
}

// The Sandwich view's rows: for each name, is it on the screen, and if not,
// why, and its cell (WebDriver hands it back as an element reference); the
// names of the rows the window shows; does the list scroll.
function lookFor(names) {
	const vw = window.innerWidth;
	const vh = window.innerHeight;
	// The cell's text is the name; speedscope's trace-event import appends
	// the event's args: "tgt_outer {"object":"calls"}".
	// Its rows only: the profile selector, hidden, is a table too. The
	// header "Symbol Name" is in a table of its own, above the rows' list.
	const th = Array.from(document.querySelectorAll('th')).find((h) => h.textContent.trim() === 'Symbol Name');
	const view = th ? th.closest('table').parentElement : null;
	const cells = view ? Array.from(view.querySelectorAll('tr td:last-child')) : [];
	const textOf = (c) => c.textContent.trim();
	// The box of the first n characters of the cell's text.
	function glyphs(cell, n) {
		const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
		const range = document.createRange();
		let seen = 0;
		let started = false;
		let node;
		while ((node = walker.nextNode())) {
			const t = node.data;
			if (!started) {
				const lead = seen === 0 ? t.length - t.trimStart().length : 0;
				if (t.trim() === '') continue;
				range.setStart(node, lead);
				started = true;
				seen = -lead;
			}
			if (seen + t.length >= n) {
				range.setEnd(node, n - seen);
				return range.getBoundingClientRect();
			}
			seen += t.length;
		}
		return null;
	}
	function onScreen(cell, name) {
		const r = glyphs(cell, name.length);
		if (!r || r.width < 1 || r.height < 1) return 'no box';
		if (r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh) return 'outside the window';
		const cr = cell.getBoundingClientRect();
		const cs = getComputedStyle(cell);
		if (r.right > cr.right - parseFloat(cs.paddingRight) - parseFloat(cs.borderRightWidth) + 0.5)
			return 'cut off by the column';
		if (!cell.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return 'hidden';
		const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
		if (!top || !cell.contains(top)) return 'covered';
		return null;
	}
	const found = {};
	const cellOf = {};
	for (const name of names) {
		const cell = cells.find((c) => textOf(c) === name || textOf(c).startsWith(name + ' '));
		cellOf[name] = cell || null;
		found[name] = cell ? onScreen(cell, name) || 'ok' : 'no row';
	}
	const shown = cells
		.filter((c) => {
			const r = c.getBoundingClientRect();
			return r.bottom > 0 && r.top < vh && r.height > 0;
		})
		.map(textOf);
	// Does the table scroll, so that rows may be out of the window, or not
	// drawn at all (speedscope draws only those near the window)?
	let list = cells.length ? cells[0].parentElement : null;
	while (list && list !== document.body && !/auto|scroll/.test(getComputedStyle(list).overflowY))
		list = list.parentElement;
	const scrolls = !!list && list !== document.body && list.scrollHeight > list.clientHeight + 1;
	return { found, shown, rows: cells.length, scrolls, cellOf };
}

// The element whose own text is TEXT, innermost first, and visible.
function byText(text) {
	const all = Array.from(document.querySelectorAll('body *')).filter(
		(e) => Array.from(e.childNodes).some((n) => n.nodeType === 3 && n.data.trim() === text) && e.getClientRects().length > 0,
	);
	return all[0] || null;
}

// ------------------------------------------------------------ the check
async function waitFor(what, fn) {
	const t0 = Date.now();
	let last;
	while (Date.now() - t0 < WAIT_MS) {
		last = await fn();
		if (last.done) return last;
		await sleep(150);
	}
	last.timedOut = `${what}: nothing after ${opt.timeout} s`;
	return last;
}

function describe(s) {
	const bits = [];
	if (s.alerts.length) bits.push(`alert: ${s.alerts.join(' | ')}`);
	if (s.errors.length) bits.push(`console: ${s.errors.join(' | ')}`);
	bits.push(`page: "${s.body || '(empty)'}"`);
	return bits.join('; ');
}

const SETTLE_MS = 600;
const shownRows = (look) =>
	'rows on screen: ' +
	(look.shown.length ? look.shown.slice(0, 8).join(', ') + (look.shown.length > 8 ? ', ...' : '') : '(none)');
const allOk = (look) => look.rows > 0 && opt.names.every((n) => look.found[n] === 'ok');

// NAME typed into speedscope's search box: 'ok' when its row is then on
// the screen, else why not. The box is closed again (Escape), unless keepOpen.
async function viaSearch(name, keepOpen = false) {
	await key('f', CTRL);
	// speedscope focuses its box once drawn (the profile selector has a
	// hidden one of its own): keys go to the focused element
	const box = await waitFor('the search box', async () => {
		const ok = await run(() => {
			const el = document.activeElement;
			return !!el && el.tagName === 'INPUT' && el.getClientRects().length > 0;
		});
		return { done: ok };
	});
	if (box.timedOut) return 'no search box';
	await key('a', CTRL); // what an earlier search left is replaced
	await wd('POST', '/actions', {
		actions: [
			{
				type: 'key',
				id: 'keyboard',
				actions: Array.from(name).flatMap((c) => [
					{ type: 'keyDown', value: c },
					{ type: 'keyUp', value: c },
				]),
			},
		],
	});
	let found;
	for (let t0 = Date.now(); Date.now() - t0 < SETTLE_MS; await sleep(150)) {
		found = (await run(lookFor, [name])).found[name];
		if (found === 'ok') break;
	}
	if (!keepOpen) await key(ESCAPE);
	return found;
}

async function sandwich() {
	const el = await run(byText, 'Sandwich');
	if (!el) throw new Error('no Sandwich tab in the toolbar');
	await wd('POST', `/element/${el[ELEMENT]}/click`, {});
}

async function main() {
	const file = path.basename(opt.profile);
	st.server = await serve();
	const base = `http://127.0.0.1:${st.server.address().port}`;
	await startBrowser();
	const profileURL = `${base}/profile/${encodeURIComponent(file)}`;
	await wd('POST', '/url', { url: `${base}/speedscope/index.html#profileURL=${encodeURIComponent(profileURL)}` });

	debug('page opened');
	const s = await waitFor('loading', async () => {
		const v = await run(pageState);
		return { ...v, done: v.loaded || v.failed };
	});
	debug(`loaded: ${s.loaded}, ${s.count} profile(s), ${s.importer}`);
	if (!s.loaded) {
		await shoot();
		return finish(1, `${file}: speedscope did not load it${s.timedOut ? ' in ' + opt.timeout + ' s' : ''}; ${describe(s)}`);
	}

	// Each profile (thread) in turn, from the one speedscope opens with,
	// until one shows every name; then its first name's row is selected,
	// which draws its callers and callees beside the table, and shot.
	const seen = [];
	let state = s;
	for (let i = 0; i < state.count && state.index > 1; i++) {
		const before = state.index;
		await key('p');
		state = await waitFor('the previous profile', async () => {
			const v = await run(pageState);
			return { ...v, done: v.index !== before };
		});
	}
	for (let visited = 0; visited < state.count; visited++) {
		await sandwich();
		// The table is there once it has rows; names still missing then get
		// a moment more (layout, fonts) before they count as missing.
		let look = await waitFor('the Sandwich table', async () => {
			const v = await run(lookFor, opt.names);
			return { ...v, done: v.rows > 0 };
		});
		for (let t0 = Date.now(); !allOk(look) && !look.timedOut && Date.now() - t0 < SETTLE_MS; ) {
			await sleep(150);
			look = await run(lookFor, opt.names);
		}
		// A long table renders only the rows near the window: a name not
		// among them is typed into speedscope's search box (Ctrl+F), which
		// keeps only the matching rows, and looked for again.
		const searched = [];
		for (const n of opt.names) {
			if (!look.scrolls || !['no row', 'outside the window'].includes(look.found[n])) continue;
			const r = await viaSearch(n);
			debug(`search for ${n}: ${r}`);
			if (r === 'ok') searched.push(n);
			look.found[n] = r === 'ok' ? 'ok' : `${look.found[n]}, and ${r} with the search box`;
		}
		const missing = opt.names.filter((n) => look.found[n] !== 'ok');
		const where = state.count > 1 ? `profile "${state.profile}"` : `profile "${state.title.replace(/ - speedscope$/, '')}"`;
		debug(`${where}: ${JSON.stringify(look.found)}, ${look.rows} rows drawn, scrolls: ${look.scrolls}`);
		if (look.rows === 0) {
			seen.push(`${where}: the Sandwich table has no rows; ${describe(await run(pageState))}`);
		} else if (missing.length > 0) {
			seen.push(`${where}: ${missing.map((n) => `${n} ${look.found[n]}`).join(', ')}; ${shownRows(look)}`);
		} else {
			// Selected, the first name's row draws its callers and callees
			// beside the table: the names are looked for once more, in the
			// state the screenshot shows (those found with the search box
			// may be out of the window again: they count as found).
			if (searched.includes(opt.names[0])) await viaSearch(opt.names[0], true);
			const cell = (await run(lookFor, [opt.names[0]])).cellOf[opt.names[0]];
			if (cell) await wd('POST', `/element/${cell[ELEMENT]}/click`, {});
			await sleep(500);
			look = await run(lookFor, opt.names);
			for (const n of searched) look.found[n] = 'ok';
			await shoot();
			if (allOk(look)) {
				const how = state.importer ? ` (${state.importer.replace(/^Importing /, 'imported ')})` : '';
				const typed = searched.length ? ` (${searched.join(', ')} with its search box)` : '';
				process.stdout.write(
					`${ME}: ${file}: speedscope${how} shows ${opt.names.join(', ')} in the Sandwich view of ${where}${typed}` +
						`${opt.screenshot ? '; screenshot ' + opt.screenshot : ''}\n`,
				);
				return finish(0);
			}
			const lost = opt.names.filter((n) => look.found[n] !== 'ok').map((n) => `${n} ${look.found[n]}`);
			return finish(1, `${file}: ${where}, ${opt.names[0]} selected: ${lost.join(', ')}; ${shownRows(look)}`);
		}
		if (visited + 1 >= state.count) break;
		const before = state.index;
		await key('n');
		state = await waitFor('the next profile', async () => {
			const v = await run(pageState);
			return { ...v, done: v.index !== before };
		});
		if (state.timedOut) {
			seen.push(`key 'n' did not go past profile ${before} of ${state.count}`);
			break;
		}
	}
	await shoot();
	return finish(1, `${file}: not on the screen: ${seen.join(' / ')}`);
}

async function shoot(ms = WAIT_MS) {
	if (!opt.screenshot || !st.session) return;
	const png = await wd('GET', '/screenshot', undefined, ms);
	fs.mkdirSync(path.dirname(path.resolve(opt.screenshot)), { recursive: true });
	fs.writeFileSync(opt.screenshot, Buffer.from(png, 'base64'));
}

main().catch(async (e) => {
	let extra = '';
	if (st.session) {
		await shoot(3000).catch(() => {});
		const s = await runQuick(3000, pageState).catch(() => null);
		if (s) extra = `; ${describe(s)}`;
	}
	finish(1, `${path.basename(opt.profile)}: ${e.message}${extra}`);
});
