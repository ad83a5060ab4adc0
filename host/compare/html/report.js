// strata-compare --html: draws the report held in #strata-data (host/compare/html_report.cc) with SVG and canvas, no
// library. Every drawing reduces its data to the pixel columns it has (the least and the most of each column), so a
// page of a 100k-buffer trace redraws in milliseconds and no peak, dip or OOM falls between two columns.
(function () {
  'use strict';
  const SVG = 'http://www.w3.org/2000/svg';
  const data = JSON.parse(document.getElementById('strata-data').textContent);
  const app = document.getElementById('app');
  const tooltip = document.getElementById('tooltip');
  const noScript = document.getElementById('no-script');
  if (noScript) noScript.remove();

  // Colors by contender: Strata's two rows blue, the frameworks by family.
  const COLORS = {
    'strata': '#0969da', 'strata-no-compact': '#54aeff', 'jax': '#1a7f37', 'jax+defrag': '#2da44e',
    'jax-growth': '#4ac26b', 'jax-platform': '#116329', 'jax-async': '#6fdd8b', 'tf': '#bc4c00',
    'tf-growth': '#e16f24', 'tf-async': '#fb8f44', 'torch': '#8250df', 'torch-expandable': '#a475f9',
  };
  const EXTRA = ['#bf3989', '#57606a', '#9a6700', '#0550ae', '#cf222e'];
  function colorOf(name, i) { return COLORS[name] || EXTRA[i % EXTRA.length]; }

  function el(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  // As the text report writes bytes (host/tool/text.cc HumanBytes).
  function bytes(b) {
    if (b === null || b === undefined) return '?';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = b, u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; ++u; }
    return (u === 0 ? String(v) : v.toFixed(2)) + ' ' + units[u];
  }
  function count(n) { return Number(n).toLocaleString('en-US'); }
  // The last index i with a[i] <= x (-1: none).
  function lastAtOrBelow(a, x) {
    let lo = 0, hi = a.length - 1, ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] <= x) { ans = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return ans;
  }

  function showTip(text, x, y) {
    tooltip.textContent = text;
    tooltip.hidden = false;
    const w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    tooltip.style.left = Math.max(4, Math.min(window.innerWidth - w - 4, x + 14)) + 'px';
    tooltip.style.top = Math.max(4, (y + 16 + h > window.innerHeight ? y - h - 10 : y + 16)) + 'px';
  }
  function hideTip() { tooltip.hidden = true; }

  // One workload: its header, verdict, memory chart, buffer views and text table, sharing one visible range.
  function Workload(w, index) {
    const events = Math.max(1, w.events);
    const state = { x0: 0, x1: events, selected: null };
    const section = el('section', { class: 'workload', 'data-workload': String(index) }, app);
    el('h2', {}, section, w.name);
    el('p', { class: 'summary' }, section,
      w.source + ': ' + count(w.buffers) + ' buffers, ' + count(w.events) + ' events, max load ' +
      bytes(w.max_load_bytes) + '; capacity ' + bytes(w.capacity_bytes) + (w.capacity ? ' (' + w.capacity + ')' : ''));
    if (w.page_note) el('p', { class: 'note' }, section, 'note: ' + w.page_note);
    const verdict = el('pre', { class: 'verdict' }, section);
    for (const line of w.verdict.replace(/\n$/, '').split('\n')) {
      el('span', line.indexOf('fails') >= 0 ? { class: 'fail' } : {}, verdict, line + '\n');
    }

    const toolbar = el('div', { class: 'toolbar' }, section);
    const zoomIn = el('button', { type: 'button', class: 'zoom-in', title: 'zoom in' }, toolbar, '+');
    const zoomOut = el('button', { type: 'button', class: 'zoom-out', title: 'zoom out' }, toolbar, '\u2212');
    const reset = el('button', { type: 'button', class: 'zoom-reset', title: 'the whole run' }, toolbar, 'whole run');
    const range = el('span', { class: 'range' }, toolbar);
    const legend = el('div', { class: 'legend' }, section);
    for (const [cls, label] of [['#0969da55', 'reserved (Strata: highest address used)'], ['#0969da', 'in use'],
      ['#777', 'requested (the trace, dashed)'], ['#444', 'capacity (dashed)'], ['#d1242f', 'OOM: capacity'],
      ['#e36209', 'OOM: fragmentation'], ['#8250df', 'OOM: cap'], ['#0969da', 'compaction / Defragment() (tick)']]) {
      const s = el('span', {}, legend);
      el('i', { style: 'background:' + cls }, s);
      s.appendChild(document.createTextNode(label));
    }

    // The memory chart: a strip per contender, one time axis (the trace's event index) and one byte scale.
    const LEFT = 150, RIGHT = 12, STRIP = 64, GAP = 8, TOP = 6, AXIS = 26;
    const runs = w.runs;
    let ymax = 1;
    for (const r of runs) {
      ymax = Math.max(ymax, r.capacity_bytes, r.peak_reserved_bytes, r.peak_live_bytes);
      for (const v of r.bands.rmax) ymax = Math.max(ymax, v);
    }
    if (w.live) for (const v of w.live.v) ymax = Math.max(ymax, v);  // the trace's own bytes may pass the capacity
    ymax *= 1.04;
    const height = TOP + runs.length * (STRIP + GAP) + AXIS;
    const chart = svg('svg', { class: 'memory', height: String(height), 'data-workload': w.name }, section);
    const axis = svg('g', { class: 'axis' }, chart);
    const strips = runs.map((r, i) => {
      const g = svg('g', { class: 'strip', 'data-contender': r.contender, 'data-family': r.family,
        'data-completed': String(r.completed), transform: 'translate(0,' + (TOP + i * (STRIP + GAP)) + ')' }, chart);
      const label = svg('text', { x: '4', y: '14' }, g);
      label.textContent = r.contender;
      const sub = svg('text', { x: '4', y: '28', class: 'label-sub' }, g);
      sub.textContent = r.completed ? 'completes' : 'fails (' + count(r.failed_allocs) + ')';
      const sub2 = svg('text', { x: '4', y: '42', class: 'label-sub' }, g);
      sub2.textContent = 'peak ' + bytes(r.peak_live_bytes);
      svg('line', { class: 'grid', x1: String(LEFT), x2: '100%', y1: String(STRIP), y2: String(STRIP) }, g);
      const color = colorOf(r.contender, i);
      return {
        run: r, g, color,
        reserved: svg('path', { class: 'reserved', fill: color, 'data-contender': r.contender, 'data-series': 'reserved' }, g),
        live: svg('path', { class: 'live', 'data-contender': r.contender, 'data-series': 'live' }, g),
        inUse: svg('path', { class: 'in-use', fill: color, stroke: color, 'data-contender': r.contender, 'data-series': 'in_use' }, g),
        capacity: svg('line', { class: 'capacity', 'data-contender': r.contender, 'data-bytes': String(r.capacity_bytes) }, g),
        marks: svg('g', { class: 'marks' }, g),
      };
    });
    const cursor = svg('line', { class: 'cursor', visibility: 'hidden' }, chart);
    const selectedLine = svg('line', { class: 'selected', visibility: 'hidden' }, chart);

    function width() { return Math.max(200, chart.getBoundingClientRect().width || 800); }
    function xOf(e, W) { return LEFT + (e - state.x0) / (state.x1 - state.x0) * (W - LEFT - RIGHT); }
    function eventAt(px, W) { return state.x0 + (px - LEFT) / (W - LEFT - RIGHT) * (state.x1 - state.x0); }
    function yOf(b) { return STRIP - b / ymax * (STRIP - 2); }

    // Per pixel column: the least and the most of [lo, hi] bands over the columns [x0, x1).
    function columns(e0, e1, lo, hi, W) {
      const n = Math.ceil(W - LEFT - RIGHT);
      const min = new Float64Array(n).fill(Infinity), max = new Float64Array(n).fill(-Infinity);
      const scale = n / (state.x1 - state.x0);
      let i = Math.max(0, lastAtOrBelow(e0, state.x0));
      for (; i < e0.length && e0[i] < state.x1; ++i) {
        // A band holds from its first event until the next band's (the last: one past its last event).
        const end = i + 1 < e0.length ? e0[i + 1] : e1[i] + 1;
        if (end <= state.x0) continue;
        let c0 = Math.floor((e0[i] - state.x0) * scale), c1 = Math.ceil((end - state.x0) * scale);
        c0 = Math.max(0, c0); c1 = Math.min(n, Math.max(c1, c0 + 1));
        for (let c = c0; c < c1; ++c) {
          if (lo[i] < min[c]) min[c] = lo[i];
          if (hi[i] > max[c]) max[c] = hi[i];
        }
      }
      return { n, min, max };
    }
    // A filled band between the columns' least and most values (at least a pixel high), or from zero: a polygon per
    // stretch of columns that have data, along the tops forward and back along the bottoms.
    function bandPath(cols, fromZero) {
      let d = '';
      for (let c = 0; c < cols.n;) {
        if (cols.max[c] === -Infinity) { ++c; continue; }
        let end = c;
        while (end < cols.n && cols.max[end] !== -Infinity) ++end;
        let top = '', back = '';
        for (let k = c; k < end; ++k) {
          const y = yOf(cols.max[k]);
          top += (k === c ? 'M' : 'L') + (LEFT + k) + ',' + y.toFixed(1) + 'L' + (LEFT + k + 1) + ',' + y.toFixed(1);
        }
        for (let k = end - 1; k >= c; --k) {
          const y = fromZero ? STRIP : Math.max(yOf(cols.min[k]), yOf(cols.max[k]) + 1);
          back += 'L' + (LEFT + k + 1) + ',' + y.toFixed(1) + 'L' + (LEFT + k) + ',' + y.toFixed(1);
        }
        d += top + back + 'Z';
        c = end;
      }
      return d;
    }
    function linePath(cols) {
      let d = '';
      let pen = false;
      for (let c = 0; c < cols.n; ++c) {
        if (cols.max[c] === -Infinity) { pen = false; continue; }
        const y = yOf(cols.max[c]).toFixed(1);
        d += (pen ? 'L' : 'M') + (LEFT + c) + ',' + y + 'L' + (LEFT + c + 1) + ',' + y;
        pen = true;
      }
      return d;
    }

    let pending = false;
    function redraw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; draw(); });
    }
    function draw() {
      const W = width();
      chart.setAttribute('data-x0', String(Math.round(state.x0)));
      chart.setAttribute('data-x1', String(Math.round(state.x1)));
      range.textContent = 'events ' + count(Math.round(state.x0)) + ' \u2013 ' + count(Math.round(state.x1)) +
        ' of ' + count(events) + (state.selected !== null ? '; selected event ' + count(state.selected) : '');
      const live = w.live && w.live.e.length ? columns(w.live.e, w.live.e, w.live.v, w.live.v, W) : null;
      for (const s of strips) {
        const b = s.run.bands;
        s.reserved.setAttribute('d', bandPath(columns(b.e0, b.e1, b.rmin, b.rmax, W), true));
        s.inUse.setAttribute('d', bandPath(columns(b.e0, b.e1, b.umin, b.umax, W), false));
        s.live.setAttribute('d', live ? linePath(live) : '');
        const yc = yOf(s.run.capacity_bytes).toFixed(1);
        s.capacity.setAttribute('x1', String(LEFT)); s.capacity.setAttribute('x2', String(W - RIGHT));
        s.capacity.setAttribute('y1', yc); s.capacity.setAttribute('y2', yc);
        drawMarks(s, W);
      }
      drawAxis(W);
      if (state.selected !== null) {
        const x = xOf(state.selected + 0.5, W);
        const inside = x >= LEFT && x <= W - RIGHT;
        selectedLine.setAttribute('visibility', inside ? 'visible' : 'hidden');
        selectedLine.setAttribute('x1', x); selectedLine.setAttribute('x2', x);
        selectedLine.setAttribute('y1', TOP); selectedLine.setAttribute('y2', height - AXIS);
      }
      for (const v of views) v.draw();
    }
    // OOMs: a marker on every pixel column that has one, one path per kind (a few elements per strip however many
    // OOMs, so a redraw stays fast); each strip keeps its columns' OOMs for the hover. Compactions as ticks.
    function drawMarks(s, W) {
      while (s.marks.firstChild) s.marks.firstChild.remove();
      const o = s.run.ooms;
      const byKind = {};
      s.oomColumns = new Map();  // pixel column -> indices of its OOMs
      for (let i = Math.max(0, lastAtOrBelow(o.e, state.x0 - 1)); i < o.e.length && o.e[i] < state.x1; ++i) {
        if (o.e[i] < state.x0) continue;
        const col = Math.floor(xOf(o.e[i] + 0.5, W));
        const list = s.oomColumns.get(col);
        if (list) { list.push(i); continue; }
        s.oomColumns.set(col, [i]);
        const k = byKind[o.k[i]] || (byKind[o.k[i]] = { d: '', n: 0 });
        k.d += 'M' + (col + 0.5) + ',' + (STRIP - 9) + 'l-4.5,-9h9z';
        k.n += 1;
      }
      for (const kind in byKind) {
        svg('path', { class: 'oom kind-' + kind, d: byKind[kind].d, 'data-kind': kind, 'data-columns': String(byKind[kind].n),
          'data-contender': s.run.contender }, s.marks);
      }
      const c = s.run.compactions;
      let d = '', lastCol = -1;
      for (let i = Math.max(0, lastAtOrBelow(c.e, state.x0 - 1)); i < c.e.length && c.e[i] < state.x1; ++i) {
        if (c.e[i] < state.x0) continue;
        const x = Math.floor(xOf(c.e[i] + 0.5, W));
        if (x === lastCol) continue;
        lastCol = x;
        d += 'M' + x + ',' + STRIP + 'v-6h1.5v6z';
      }
      if (d) svg('path', { class: 'compaction', d, 'data-contender': s.run.contender, 'data-count': String(c.e.length) }, s.marks);
    }
    // The OOMs under a point of the chart (client coordinates): the strip's marker row, within 5 pixels.
    function oomsAt(clientX, clientY) {
      const r = chart.getBoundingClientRect();
      const px = clientX - r.left, py = clientY - r.top;
      const i = Math.floor((py - TOP) / (STRIP + GAP));
      if (i < 0 || i >= strips.length) return null;
      const y = py - TOP - i * (STRIP + GAP);
      if (y < STRIP - 20 || y > STRIP - 7) return null;
      const s = strips[i];
      if (!s.oomColumns) return null;
      for (const dx of [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5]) {
        const list = s.oomColumns.get(Math.floor(px) + dx);
        if (list) return { run: s.run, list };
      }
      return null;
    }
    // Where the first drawn OOM of a contender is, in client coordinates (for tests and scripts).
    function locateOom(contender) {
      const k = strips.findIndex((s) => s.run.contender === contender);
      if (k < 0 || !strips[k].oomColumns || !strips[k].oomColumns.size) return null;
      const col = strips[k].oomColumns.keys().next().value;
      const r = chart.getBoundingClientRect();
      return { x: r.left + col + 0.5, y: r.top + TOP + k * (STRIP + GAP) + STRIP - 14 };
    }
    function drawAxis(W) {
      while (axis.firstChild) axis.firstChild.remove();
      const y = height - AXIS + 2;
      svg('line', { x1: String(LEFT), x2: String(W - RIGHT), y1: String(y), y2: String(y) }, axis);
      const span = state.x1 - state.x0;
      const step = Math.pow(10, Math.floor(Math.log10(span / 6)));
      const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 8) || step * 10;
      for (let e = Math.ceil(state.x0 / nice) * nice; e <= state.x1; e += nice) {
        const x = xOf(e, W);
        svg('line', { x1: String(x), x2: String(x), y1: String(y), y2: String(y + 4) }, axis);
        const t = svg('text', { x: String(x), y: String(y + 16), 'text-anchor': 'middle' }, axis);
        t.textContent = count(Math.round(e));
      }
      const t = svg('text', { x: '4', y: String(y + 16) }, axis);
      t.textContent = 'event (alloc or free)';
    }

    function setRange(x0, x1) {
      const span = Math.max(10, Math.min(events, x1 - x0));
      x0 = Math.max(0, Math.min(events - span, x0));
      state.x0 = x0; state.x1 = x0 + span;
      redraw();
    }
    function zoom(factor, at) {
      const c = at === undefined ? (state.x0 + state.x1) / 2 : at;
      setRange(c - (c - state.x0) * factor, c + (state.x1 - c) * factor);
    }
    zoomIn.addEventListener('click', () => zoom(0.5));
    zoomOut.addEventListener('click', () => zoom(2));
    reset.addEventListener('click', () => setRange(0, events));

    // The values at one event, for the hover line: each run's band that holds it.
    function valuesAt(e) {
      const lines = ['event ' + count(Math.floor(e))];
      for (const s of strips) {
        const b = s.run.bands;
        const i = lastAtOrBelow(b.e0, e);
        if (i < 0) continue;
        const same = b.umin[i] === b.umax[i] && b.rmin[i] === b.rmax[i];
        const u = same ? bytes(b.umax[i]) : bytes(b.umin[i]) + '..' + bytes(b.umax[i]);
        const r = same ? bytes(b.rmax[i]) : bytes(b.rmin[i]) + '..' + bytes(b.rmax[i]);
        lines.push(s.run.contender + ': in use ' + u + ', reserved ' + r);
      }
      return lines.join('\n');
    }
    function oomText(run, i, n) {
      const o = run.ooms;
      let t = run.contender + ': OOM (' + o.k[i] + ') at event ' + count(o.e[i]);
      if (o.b[i] !== null) t += '\nrequest: buffer ' + o.b[i] + ', ' + bytes(o.n[i]);
      if (n > 1) t += '\n' + (n - 1) + ' more OOM' + (n > 2 ? 's' : '') + ' in this pixel column';
      const f = run.first_oom;
      if (f && f.event === o.e[i]) {
        t += '\nfirst OOM: ' + bytes(f.live_bytes) + ' in use, ' + bytes(f.reserved_bytes) + ' reserved, largest free ' +
          bytes(f.largest_free_bytes) + (f.limit_bytes ? ', limit ' + bytes(f.limit_bytes) : '');
        if (f.message) t += '\n' + f.message;
      }
      if (run.advice) t += '\nwhat would have saved it: ' + run.advice;
      return t;
    }

    let drag = null;
    chart.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const W = width(), r = chart.getBoundingClientRect();
      zoom(ev.deltaY < 0 ? 0.8 : 1.25, eventAt(ev.clientX - r.left, W));
    }, { passive: false });
    chart.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, x0: state.x0, x1: state.x1, moved: false }; });
    window.addEventListener('mouseup', (ev) => {
      if (drag && !drag.moved && ev.target.closest && ev.target.closest('svg.memory') === chart) {
        const r = chart.getBoundingClientRect();
        const e = Math.floor(eventAt(ev.clientX - r.left, width()));
        if (e >= 0 && e < events) { state.selected = e; redraw(); }
      }
      drag = null;
    });
    chart.addEventListener('mousemove', (ev) => {
      const W = width(), r = chart.getBoundingClientRect();
      if (drag) {
        const dx = ev.clientX - drag.x;
        if (Math.abs(dx) > 3) drag.moved = true;
        if (drag.moved) {
          const de = dx / (W - LEFT - RIGHT) * (drag.x1 - drag.x0);
          setRange(drag.x0 - de, drag.x1 - de);
        }
      }
      const px = ev.clientX - r.left;
      if (px < LEFT || px > W - RIGHT) { cursor.setAttribute('visibility', 'hidden'); hideTip(); return; }
      cursor.setAttribute('visibility', 'visible');
      cursor.setAttribute('x1', px); cursor.setAttribute('x2', px);
      cursor.setAttribute('y1', TOP); cursor.setAttribute('y2', height - AXIS);
      const hit = oomsAt(ev.clientX, ev.clientY);
      if (hit) {
        showTip(oomText(hit.run, hit.list[0], hit.list.length), ev.clientX, ev.clientY);
      } else {
        showTip(valuesAt(eventAt(px, W)), ev.clientX, ev.clientY);
      }
    });
    chart.addEventListener('mouseleave', () => { cursor.setAttribute('visibility', 'hidden'); hideTip(); });
    chart.addEventListener('dblclick', () => setRange(0, events));

    // Buffer views: where each buffer was (address x time), for the runs that recorded it; the first two shown.
    const withPlaces = runs.filter((r) => r.places);
    const views = [];
    if (withPlaces.length) {
      el('h3', {}, section, 'Buffers: address \u00d7 time');
      const box = el('div', { class: 'buffers' }, section);
      const firstGpu = withPlaces.find((r) => r.family !== 'strata');
      const initial = [withPlaces[0], firstGpu && firstGpu !== withPlaces[0] ? firstGpu : withPlaces[1]].filter(Boolean);
      for (const r of initial) views.push(BufferView(box, r));
    } else {
      // Say why rather than draw an empty panel: a report read back from JSON (--merge) keeps no placements at all.
      el('p', { class: 'note no-buffers' }, section, w.buffer_list
        ? 'No buffer view: no run of this comparison recorded where its buffers were.'
        : 'No buffer view: this report was read back from --json reports (strata-compare --merge), which keep no ' +
          'buffer placements; strata-compare WORKLOAD --html draws them for one workload.');
    }

    // One canvas: a rectangle per place a buffer held (offset x its events), OOMs as red lines, the selected event.
    function BufferView(parent, run) {
      const box = el('div', { class: 'buffer-view' }, parent);
      const head = el('div', { class: 'head' }, box);
      const select = el('select', { 'aria-label': 'contender' }, head);
      for (const r of withPlaces) {
        const o = el('option', { value: r.contender }, select, r.contender);
        if (r === run) o.selected = true;
      }
      const info = el('span', {}, head);
      const canvas = el('canvas', { 'data-contender': run.contender }, box);
      const view = { run, canvas, draw: null, spans: null };
      function prepare() {
        const p = view.run.places;
        const m = p.b.length;
        let extent = view.run.family === 'strata' ? view.run.capacity_bytes : 0;
        for (let i = 0; i < m; ++i) extent = Math.max(extent, p.o[i] + p.n[i]);
        // Spans grouped by color, so the canvas changes its fill style a few times per redraw, not once per span.
        const groups = Array.from({ length: 10 }, () => []);
        for (let i = 0; i < m; ++i) groups[(w.buffer_list ? (w.buffer_list.id[p.b[i]] >>> 0) : p.b[i]) % 10].push(i);
        view.spans = { p, m, extent: Math.max(1, extent), groups };
        canvas.setAttribute('data-contender', view.run.contender);
        canvas.setAttribute('data-spans', String(m));
      }
      const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#86bcb6'];
      // The placements are rasterized into the canvas's pixels directly, a row of a rectangle at a time: buffers never
      // overlap in address x time, so the work is about the canvas's pixels plus the placements in view, not their
      // sum of fillRect calls (100k placements: a few milliseconds).
      const RGBA = PALETTE.map((c) => {
        const v = parseInt(c.slice(1), 16);
        return (0xff << 24 | (v & 0xff) << 16 | (v & 0xff00) | (v >> 16) & 0xff) >>> 0;  // little-endian ABGR
      });
      view.draw = function () {
        const dpr = window.devicePixelRatio || 1;
        const cw = canvas.clientWidth || 400, ch = canvas.clientHeight || 260;
        const W = Math.max(1, Math.round(cw * dpr)), H = Math.max(1, Math.round(ch * dpr));
        if (canvas.width !== W || canvas.height !== H) { canvas.width = W; canvas.height = H; }
        const g = canvas.getContext('2d');
        const img = g.createImageData(W, H);
        const px = new Uint32Array(img.data.buffer);
        px.fill(0xfff9f7f6);
        const { p, extent, groups } = view.spans;
        const sx = W / (state.x1 - state.x0), sy = H / extent;
        let shown = 0;
        for (let k = 0; k < groups.length; ++k) {
          const color = RGBA[k];
          for (const i of groups[k]) {
            if (p.t1[i] <= state.x0 || p.t0[i] >= state.x1) continue;
            let x0 = Math.floor((p.t0[i] - state.x0) * sx), x1 = Math.floor((p.t1[i] - state.x0) * sx);
            let y0 = Math.floor(H - (p.o[i] + p.n[i]) * sy), y1 = Math.floor(H - p.o[i] * sy);
            if (x1 <= x0) x1 = x0 + 1;
            if (y1 <= y0) y1 = y0 + 1;
            x0 = Math.max(0, x0); x1 = Math.min(W, x1); y0 = Math.max(0, y0); y1 = Math.min(H, y1);
            for (let y = y0; y < y1; ++y) px.fill(color, y * W + x0, y * W + x1);
            ++shown;
          }
        }
        g.putImageData(img, 0, 0);
        g.setTransform(dpr, 0, 0, dpr, 0, 0);
        const cx = cw / (state.x1 - state.x0), cy = ch / extent;
        // Every OOM of this run in view: a red line at its column (never dropped however many share it).
        g.fillStyle = 'rgba(209,36,47,0.4)';
        const o = view.run.ooms;
        for (let i = Math.max(0, lastAtOrBelow(o.e, state.x0 - 1)); i < o.e.length && o.e[i] < state.x1; ++i) {
          if (o.e[i] >= state.x0) g.fillRect(Math.floor((o.e[i] + 0.5 - state.x0) * cx), 0, 1, ch);
        }
        if (view.run.family === 'strata') {
          g.fillStyle = '#444';
          g.fillRect(0, ch - view.run.capacity_bytes * cy, cw, 1);
        }
        if (state.selected !== null) {
          g.fillStyle = '#0969da';
          g.fillRect(Math.floor((state.selected + 0.5 - state.x0) * cx), 0, 2, ch);
        }
        canvas.setAttribute('data-shown', String(shown));
        const where = { strata: ' (heap offsets)', static: ' (the plan\'s offsets)' }[view.run.family] ||
          ' (from the lowest address the policy used)';
        info.textContent = 'address 0 \u2013 ' + bytes(extent) + where + '; ' + count(view.spans.m) + ' placements' +
          selectedSummary();
      };
      // What is live at the selected event: how many buffers, their bytes, the highest address.
      function selectedSummary() {
        if (state.selected === null) return '';
        const { p, m } = view.spans;
        let n = 0, b = 0, top = 0;
        for (let i = 0; i < m; ++i) {
          if (p.t0[i] <= state.selected && state.selected < p.t1[i]) { ++n; b += p.n[i]; top = Math.max(top, p.o[i] + p.n[i]); }
        }
        return '; at event ' + count(state.selected) + ': ' + count(n) + ' buffers, ' + bytes(b) + ', highest address ' + bytes(top);
      }
      // The span under a point (the topmost drawn: the last in drawing order), within a pixel.
      view.hit = function (px, py) {
        const { p, extent, groups } = view.spans;
        const cw = canvas.clientWidth, ch = canvas.clientHeight;
        const sx = cw / (state.x1 - state.x0), sy = ch / extent;
        for (let k = groups.length - 1; k >= 0; --k) {
          const list = groups[k];
          for (let j = list.length - 1; j >= 0; --j) {
            const i = list[j];
            const x = (p.t0[i] - state.x0) * sx, x2 = x + Math.max(1, (p.t1[i] - p.t0[i]) * sx);
            const y = ch - (p.o[i] + p.n[i]) * sy, y2 = y + Math.max(1, p.n[i] * sy);
            if (px >= x - 0.5 && px <= x2 + 0.5 && py >= y - 0.5 && py <= y2 + 0.5) return i;
          }
        }
        return -1;
      };
      view.describe = function (i) {
        const p = view.spans.p, bl = w.buffer_list;
        let t = view.run.contender + ': buffer ' + (bl ? bl.id[p.b[i]] : p.b[i]);
        if (bl) t += ' (' + bytes(bl.size[p.b[i]]) + ' requested, live ' + count(bl.lower[p.b[i]]) + '..' + count(bl.upper[p.b[i]]) + ' in the trace\'s time)';
        if (bl && bl.label && bl.label[p.b[i]] >= 0) t += '\n' + bl.label_text[bl.label[p.b[i]]];
        t += '\n' + bytes(p.n[i]) + ' at offset ' + bytes(p.o[i]) + ' (' + p.o[i] + ')';
        t += '\nthere from event ' + count(p.t0[i]) + ' to ' + count(p.t1[i]);
        return t;
      };
      canvas.addEventListener('mousemove', (ev) => {
        const r = canvas.getBoundingClientRect();
        const i = view.hit(ev.clientX - r.left, ev.clientY - r.top);
        if (i < 0) hideTip(); else showTip(view.describe(i), ev.clientX, ev.clientY);
      });
      canvas.addEventListener('mouseleave', hideTip);
      canvas.addEventListener('wheel', (ev) => {
        ev.preventDefault();
        const r = canvas.getBoundingClientRect();
        zoom(ev.deltaY < 0 ? 0.8 : 1.25, state.x0 + (ev.clientX - r.left) / r.width * (state.x1 - state.x0));
      }, { passive: false });
      canvas.addEventListener('click', (ev) => {
        const r = canvas.getBoundingClientRect();
        state.selected = Math.floor(state.x0 + (ev.clientX - r.left) / r.width * (state.x1 - state.x0));
        redraw();
      });
      select.addEventListener('change', () => {
        view.run = withPlaces.find((r) => r.contender === select.value);
        prepare();
        view.draw();
      });
      prepare();
      return view;
    }

    const details = el('details', {}, section);
    el('summary', {}, details, 'The text report (strata-compare\'s table)');
    el('pre', { class: 'table' }, details, w.table);

    window.addEventListener('resize', redraw);
    draw();
    return { name: w.name, state, setRange, zoom, chart, views, draw, locateOom };
  }

  // strata-fit --html: the device x policy heat map first, each cell a link to its run (the workloads are the
  // matrix's devices, one each, in its order).
  function FitMatrix(fit) {
    const section = el('section', { class: 'fit' }, app);
    el('h2', {}, section, fit.workload + ': will it fit?');
    el('p', { class: 'summary' }, section, fit.source + ': ' + count(fit.buffers) + ' buffers, max load ' +
      bytes(fit.max_load_bytes) + '. A cell: fits with its headroom (device memory over the least it needs), or the ' +
      'first OOM\'s kind, and the setting that would have saved it. Click a cell for its run.');
    const table = el('table', { class: 'heat' }, section);
    const head = el('tr', {}, el('thead', {}, table));
    el('th', {}, head, 'policy');
    for (const d of fit.devices) el('th', { title: d.model }, head, d.name);
    const body = el('tbody', {}, table);
    const byKey = new Map(fit.cells.map((c) => [c.device + '\u0000' + c.policy, c]));
    for (const p of fit.policies) {
      const row = el('tr', {}, body);
      el('th', {}, row, p);
      fit.devices.forEach((d, di) => {
        const c = byKey.get(d.name + '\u0000' + p);
        const td = el('td', { 'data-device': d.name, 'data-policy': p }, row);
        if (!c) return;
        td.setAttribute('data-fits', String(c.fits));
        const h = c.headroom;
        let cls = c.fits ? (h === null || h >= 1.25 ? 'fits' : 'tight') : 'fails';
        td.className = cls;
        const kind = c.outcome && c.outcome.first_oom ? c.outcome.first_oom.kind : 'OOM';
        td.textContent = c.fits ? (h !== null ? 'fits ' + h.toFixed(2) + 'x' : 'fits') : kind;
        let tip = p + ' on ' + d.name + ' (' + bytes(d.total_bytes) + '): ' + (c.fits ? 'fits' : 'fails, ' + kind) +
          (c.min_total_bytes ? '; needs ' + bytes(c.min_total_bytes) : '');
        if (c.fix) tip += '\n' + (c.fix.found ? 'saved by ' + c.fix.line : c.fix.advice);
        td.title = tip;
        td.addEventListener('click', () => showRun(di, p));
      });
    }
  }
  // Scrolls to a device's run of one policy and marks its strip.
  function showRun(di, policy) {
    const s = sections[di];
    if (!s) return;
    const strip = Array.from(s.chart.querySelectorAll('g.strip')).find((g) => g.getAttribute('data-contender') === policy);
    for (const g of document.querySelectorAll('g.strip.picked')) g.classList.remove('picked');
    if (strip) { strip.classList.add('picked'); strip.scrollIntoView({ block: 'center' }); }
    else s.chart.scrollIntoView();
  }

  if (data.fit) {
    document.querySelector('header h1').textContent = 'strata-fit';
    FitMatrix(data.fit);
  }
  const sections = data.workloads.map((w, i) => Workload(w, i));
  if (data.fit) document.title = 'strata-fit: ' + data.fit.workload;
  else if (data.workloads.length === 1) document.title = 'strata-compare: ' + data.workloads[0].name;
  // For scripts and tests: the data and each workload's range and views.
  window.strataReport = { data, sections, showRun, drawnAt: performance.now() };
  document.body.setAttribute('data-ready', 'true');
})();
