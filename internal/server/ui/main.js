// jsprof view: the page. State that matters (thread, window, range, view,
// transforms, tab, search, selected function) lives in the URL: reload,
// back/forward and a copied link give the same view. After the first
// complete render <html data-state="ready">; on failure data-state="error"
// with the message in #error.

import { get } from './api.js';
import { el, clear } from './dom.js';
import { parseState, formatState, transformParams, crumbLabel } from './view.js';
import { fmtMs, fmtPct, matcher, categoryColor } from './format.js';
import { FlameChart } from './flamechart.js';
import { ActivityGraph } from './activity.js';
import { TreeTable, FunctionsTable, renderFunction } from './tables.js';
import { FlameGraph } from './flamegraph.js';
import { Tracks } from './tracks.js';
import { EventTracks } from './eventtracks.js';
import { Ruler } from './ruler.js';
import { indexDiff, legendSteps, fmtDelta } from './diffscale.js';

const $ = (id) => document.getElementById(id);
const root = document.documentElement;

let info = null;
let state = parseState(location.search);
let shownThread = null;
let flame, activity, treeTable, funcTable, graph, tracks, events, ruler;
let renders = 0;

function setState(patch, push = true) {
  state = { ...state, ...patch };
  const url = formatState(state);
  if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
}

function fail(e) {
  root.dataset.state = 'error';
  const box = $('error');
  box.hidden = false;
  box.textContent = e && e.message ? e.message : String(e);
}

async function waitLoaded() {
  for (;;) {
    const st = await get('status', { wait: 1 });
    if (st.state === 'ready') { $('loading').hidden = true; return; }
    if (st.state === 'error') throw new Error(st.error);
    $('loading').hidden = false;
    const pct = st.size > 0 ? Math.min(100, (100 * st.read) / st.size) : 0;
    $('progress').value = pct;
    $('loading-text').textContent = st.size > 0 ? `Loading ${(st.read / 1e6).toFixed(1)} of ${(st.size / 1e6).toFixed(1)} MB` : `Loading ${(st.read / 1e6).toFixed(1)} MB`;
  }
}

function thread() {
  const t = state.t === '' ? info.default : Number(state.t);
  return info.threads[t] ? t : info.default;
}

function params() { return transformParams(state); }

function setup() {
  $('file').textContent = info.file;
  $('file').title = `${info.file} (${info.format})`;
  if (info.diff) $('file').after(el('span', { id: 'diff-name', class: 'diffname', title: info.diff }, `vs ${info.diff}`));
  const sel = $('thread');
  for (const th of info.threads) {
    const label = `${th.processName ? th.processName + ' · ' : ''}${th.name || 'thread'} (${th.pid}:${th.tid}) · ${th.samples} samples`;
    sel.append(el('option', { value: String(th.index) }, label));
  }
  const pick = (t) => { setState({ t: String(t), from: '', to: '', rfrom: '', rto: '', fn: '', root: '', crumbs: [] }); render(); };
  sel.addEventListener('change', () => pick(sel.value));
  tracks = new Tracks({ root: $('tracks'), threads: info.threads, categories: info.categories, onSelect: pick });
  $('view').addEventListener('change', () => { setState({ view: $('view').value, fn: '', root: '' }); render(); });
  $('total').addEventListener('change', () => { setState({ total: $('total').value }); render(); });
  let searchTimer = 0;
  $('search').addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { setState({ q: $('search').value }, false); render(); }, 150);
  });
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => { setState({ tab: b.dataset.tab }); render(); });
  }
  $('clear-range').addEventListener('click', () => { setState({ rfrom: '', rto: '', fn: '', root: '' }); activity.setRange(null); render(); });
  const tip = $('tooltip');
  flame = new FlameChart({
    canvas: $('flame'), scroller: $('flame-scroll'), tooltip: tip, categories: info.categories,
    onWindow: (win) => {
      activity.setWindow(win);
      ruler.setWindow(win);
      events.setWindow(win);
      showWindow(win);
      clearTimeout(flame.urlTimer);
      flame.urlTimer = setTimeout(() => setState({ from: win.from.toFixed(3), to: win.to.toFixed(3) }, false), 200);
    },
    onSelect: (e) => selectByName(e),
    onError: fail,
  });
  ruler = new Ruler({ canvas: $('ruler'), widthOf: () => flame.width() });
  $('timeline').classList.toggle('with-events', (info.eventThreads || []).length > 0);
  events = new EventTracks({
    root: $('event-tracks'), threads: info.eventThreads || [], sampled: info.threads, categories: info.categories, tooltip: tip,
    widthOf: () => flame.width(), onWindow: (win) => flame.setWindow(win), onError: fail,
  });
  activity = new ActivityGraph({
    canvas: $('activity'), tooltip: tip, categories: info.categories,
    onRange: (r) => {
      const from = Math.max(0, r.from / 1000), to = Math.max(from + 0.001, r.to / 1000);
      setState({ rfrom: from.toFixed(3), rto: to.toFixed(3), fn: '', root: '' });
      flame.setWindow({ from: r.from, to: r.to });
      render();
    },
  });
  treeTable = new TreeTable({ root: $('panel-table'), onSelect: (r) => selectFunc(r.func) });
  funcTable = new FunctionsTable({ root: $('panel-table'), onSelect: (r) => selectFunc(r.func) });
  graph = new FlameGraph({
    canvas: $('graph'), tooltip: tip,
    onZoom: (r) => { setState({ root: r ? String(r.id) : '' }); render(); },
  });
  window.addEventListener('popstate', () => { state = parseState(location.search); render(); });
  let resizeTimer = 0;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { flame.fetch(); events.fetch(); ruler.draw(); activity.setThread(thread(), flame.bounds); }, 100); });
  // Test and benchmark hooks (read-only views of what was drawn).
  Object.defineProperty(window, '__jsprof', {
    value: Object.freeze({
      drawn: () => flame.drawn(),
      eventsDrawn: () => events.drawn(),
      ruler: () => ruler.last,
      renders: () => flame.renders.slice(),
      window: () => ({ ...flame.win }),
      state: () => ({ ...state }),
      zoom: (factor, at = 0.5) => { flame.key({ key: factor < 1 ? 'w' : 's', preventDefault() {} }); return flame.fetch(); },
      setWindow: (from, to) => {
        flame.setWindow({ from, to }, false); // the ruler, tracks and header follow
        clearTimeout(events.fetchTimer); // fetched here, now
        return Promise.all([flame.fetch(), events.fetch()]).then(([f]) => f);
      },
      draw: () => { flame.draw(); return flame.renders[flame.renders.length - 1]; },
    }),
  });
}

// showWindow says which part of the thread the flame chart shows.
function showWindow(win) {
  $('window').textContent = `${fmtMs(win.from / 1000)} – ${fmtMs(win.to / 1000)} (${fmtMs((win.to - win.from) / 1000)})`;
}

// selectFunc shows a function's sandwich (func is a function id of the
// current tree).
function selectFunc(func) {
  setState({ fn: String(func) });
  return renderDetail();
}

// selectByName selects the function of a flame-chart entry: the first
// row of the function list with its name and place.
async function selectByName(e) {
  const d = await get('functions', [['t', thread()], ...params(), ['q', e.name], ['limit', '200']]);
  const r = d.rows.find((x) => x.name === e.name && x.url === e.url && x.line === e.line && x.col === e.col && !!x.event === !!e.event) || d.rows[0];
  if (r) await selectFunc(r.func);
}

async function renderDetail() {
  const box = $('detail');
  if (state.fn === '') { clear(box); box.append(el('div', { class: 'note' }, 'Select a function (a row or a flame-chart box) to see its callers, callees and lines.')); return; }
  const push = (c) => { setState({ crumbs: [...state.crumbs, c], fn: '', root: '' }); render(); };
  const actions = [
    ['Focus', (f) => push('focus:' + matcher(f))],
    ['Merge', (f) => push('merge:' + matcher(f))],
    ['Drop', (f) => push('drop:' + matcher(f))],
    ['Collapse recursion', () => push('cr')],
  ];
  try {
    await renderFunction(box, thread(), params(), state.fn, actions, (r) => selectFunc(r.func));
  } catch (e) {
    clear(box);
    box.append(el('div', { class: 'note' }, e.message));
  }
}

function renderCrumbs() {
  const box = $('crumbs');
  clear(box);
  const items = [['All', []], ...state.crumbs.map((c, i) => [crumbLabel(c), state.crumbs.slice(0, i + 1)])];
  items.forEach(([label, crumbs], i) => {
    if (i > 0) box.append(el('span', { class: 'sep' }, '›'));
    const last = i === items.length - 1;
    box.append(el('button', { type: 'button', class: last ? 'crumb cur' : 'crumb', disabled: last, onclick: () => { setState({ crumbs, fn: '', root: '' }); render(); } }, label));
  });
  const ranged = state.rfrom !== '' || state.rto !== '';
  $('range').textContent = ranged ? `range ${fmtMs(Number(state.rfrom))} – ${fmtMs(Number(state.rto))}` : '';
  $('clear-range').hidden = !ranged;
}

async function renderSummary() {
  const s = await get('summary');
  const box = $('panel-table');
  clear(box);
  const t = thread();
  const body = el('tbody');
  s.threads.forEach((th, i) => {
    const total = Object.values(th.categories).reduce((a, b) => a + b, 0);
    const bar = el('div', { class: 'catbar' });
    for (const c of info.categories) {
      const v = th.categories[c.name];
      if (!v) continue;
      const seg = el('span', { title: `${c.name}: ${fmtMs(v)} (${fmtPct(v, total)})` });
      seg.style.background = categoryColor(c.color);
      seg.style.width = (100 * v) / total + '%';
      bar.append(seg);
    }
    const cats = info.categories.filter((c) => th.categories[c.name]).map((c) => `${c.name} ${fmtMs(th.categories[c.name])}`).join(' · ');
    body.append(el('tr', { class: i === t ? 'sel' : '' },
      el('td', {}, `${th.name} (${th.pid}:${th.tid})`), el('td', { class: 'n' }, fmtMs(th.sampledMs)), el('td', { class: 'n' }, String(th.samples)),
      el('td', { class: 'n' }, `${(th.meanIntervalUs).toFixed(0)} µs`), el('td', {}, bar, el('div', { class: 'cats' }, cats))));
  });
  box.append(el('table', { class: 'tree summary' }, el('thead', {}, el('tr', {}, el('th', {}, 'Thread'), el('th', { class: 'n' }, 'Time'), el('th', { class: 'n' }, 'Samples'), el('th', { class: 'n' }, 'Interval'), el('th', {}, 'Categories (samples)'))), body));
  const diags = el('ul', { class: 'diags' });
  for (const d of s.diagnostics) diags.append(el('li', {}, `${d.message} (${d.count}×, ${d.code})`));
  if (!s.diagnostics.length) diags.append(el('li', {}, 'No oddities: the input was read as is.'));
  box.append(el('h4', {}, 'Diagnostics'), diags);
}

// loadDiff fetches /api/diff (jsprof view --diff) for the thread and
// transforms, or returns null without a diff.
async function loadDiff(t, p) {
  if (!info.diff) return null;
  return indexDiff(await get('diff', [['t', t], ...p]));
}

// renderLegend shows the differential flame graph's scale.
function renderLegend(diff) {
  const box = $('diff-legend');
  box.hidden = !diff;
  if (!diff) return;
  clear(box);
  box.append(el('span', {}, `Self time change, ${info.file} → ${info.diff}: ${fmtDelta(-diff.maxDelta)} (blue, less)`));
  for (const [v, fill] of legendSteps(diff.maxDelta)) {
    const sw = el('span', { class: 'sw', title: fmtDelta(v) });
    sw.style.background = fill;
    box.append(sw);
  }
  box.append(el('span', {}, `${fmtDelta(diff.maxDelta)} (red, more); grey: no change`));
}

// render brings the page in line with the state.
async function render() {
  try {
    const t = thread();
    $('thread').value = String(t);
    $('view').value = state.view || 'all';
    $('total').value = state.total || '';
    if ($('search').value !== state.q) $('search').value = state.q;
    for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('cur', b.dataset.tab === state.tab);
    renderCrumbs();
    const th = info.threads[t];
    const bounds = { min: th.fromUs, max: Math.max(th.toUs, th.fromUs + 0.001) };
    const win = state.from !== '' && state.to !== '' ? { from: Number(state.from), to: Number(state.to) } : null;
    const jobs = [];
    if (shownThread === null) jobs.push(tracks.load(t));
    tracks.select(t);
    if (shownThread !== t) {
      shownThread = t;
      jobs.push(flame.setThread(t, bounds, win), activity.setThread(t, bounds), events.setThread(t, bounds, flame.win));
    } else if (win && (win.from !== flame.win.from || win.to !== flame.win.to)) {
      flame.win = win;
      events.win = { ...win };
      jobs.push(flame.fetch(), events.fetch());
    }
    const range = state.rfrom !== '' ? { from: Number(state.rfrom) * 1000, to: Number(state.rto) * 1000 } : null;
    activity.setRange(range);
    ruler.range = range;
    ruler.setWindow(flame.win);
    flame.search = state.q;
    flame.draw();
    const p = params();
    const tab = state.tab || 'calltree';
    $('panel-table').hidden = tab === 'flamegraph';
    $('graph-wrap').hidden = tab !== 'flamegraph';
    $('total-wrap').hidden = tab !== 'functions';
    const diff = tab === 'functions' || tab === 'flamegraph' ? await loadDiff(t, p) : null;
    funcTable.diff = graph.diff = diff;
    if (tab === 'calltree' || tab === 'bottomup') jobs.push(treeTable.load(t, p, tab === 'bottomup'));
    else if (tab === 'functions') jobs.push(funcTable.load(t, p, state.q, state.total));
    else if (tab === 'flamegraph') { renderLegend(diff); jobs.push(graph.load(t, p, state.root)); }
    else if (tab === 'summary') jobs.push(renderSummary());
    jobs.push(renderDetail());
    await Promise.all(jobs);
    activity.setWindow(flame.win);
    ruler.setWindow(flame.win);
    showWindow(flame.win);
    root.dataset.renders = String(++renders);
    // Ready after the first complete render, and again after a render
    // that recovers from an error (a transform that matched nothing).
    $('error').hidden = true;
    root.dataset.state = 'ready';
  } catch (e) {
    fail(e);
  }
}

async function boot() {
  try {
    await waitLoaded();
    info = await get('info');
    if (!info.threads.length) throw new Error('the profile has no thread to show');
    setup();
    await render();
  } catch (e) {
    fail(e);
  }
}

boot();
