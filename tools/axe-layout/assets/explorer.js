// The Axe layout explorer page (served by `axe-layout serve`, embedded by `axe-layout show --html`).
// Every layout fact comes from the server's JSON (tools/axe-layout/src/explore.rs); this script only draws it,
// except the bank view, whose counting rule is bankAccesses() below (and the page's "What is counted").
"use strict";
(function () {
  const BOOT = window.AXE_BOOT;
  const $ = (id) => document.getElementById(id);
  const STATIC_NOTE =
    "this file holds the answers for the layout it was written for; editing needs `axe-layout serve`";

  const state = {
    layoutText: "",
    view: null,
    colorAxes: new Set(),
    labelAxes: new Set(),
    access: 0,
    accesses: null,
    tmaEdited: false,
  };

  // ---- answers ------------------------------------------------------------------------------------------
  function requestKey(endpoint, request) {
    return endpoint + "\n" + JSON.stringify(request, Object.keys(request).sort());
  }

  async function api(endpoint, request) {
    if (BOOT.mode === "static") {
      const answer = BOOT.responses[requestKey(endpoint, request)];
      return answer || { error: { field: null, column: null, message: STATIC_NOTE, text: STATIC_NOTE } };
    }
    try {
      const response = await fetch("/api/" + endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(request),
      });
      return await response.json();
    } catch (e) {
      const m = "the server did not answer (" + e + "); is `axe-layout serve` still running?";
      return { error: { field: null, column: null, message: m, text: m } };
    }
  }

  // ---- errors: under the field at fault, with a caret at the column ------------------------------------------
  function clearErrors(prefix, fields, general) {
    for (const f of fields) {
      const box = $(prefix + f + "-error");
      if (box) box.textContent = "";
      const input = $(prefix + f);
      if (input) input.removeAttribute("aria-invalid");
    }
    $(general).textContent = "";
  }

  function showError(prefix, error, general) {
    const input = error.field ? $(prefix + error.field) : null;
    const box = error.field ? $(prefix + error.field + "-error") : null;
    if (!input || !box) {
      const pre = document.createElement("pre");
      pre.textContent = error.text;
      $(general).replaceChildren(pre);
      return;
    }
    input.setAttribute("aria-invalid", "true");
    const head = document.createElement("div");
    head.className = "error-message";
    head.textContent = (error.column ? "column " + error.column + ": " : "") + error.message;
    box.replaceChildren(head);
    if (error.column) {
      const pre = document.createElement("pre");
      pre.className = "caret";
      pre.dataset.column = error.column;
      const chars = Array.from(input.value);
      pre.textContent = input.value + "\n" + " ".repeat(Math.min(error.column - 1, chars.length)) + "^";
      box.appendChild(pre);
      const at = chars.slice(0, error.column - 1).join("").length;
      try { input.setSelectionRange(at, Math.min(at + 1, input.value.length)); } catch (e) { /* not a text input */ }
    }
  }

  // ---- colours ------------------------------------------------------------------------------------------
  // A colour is a function of a key (an integer): golden-angle hues, so neighbouring keys differ.
  function colorOf(key) {
    const hue = (((key * 137.508) % 360) + 360) % 360;
    const light = 80 - 8 * (Math.floor(key / 45) % 2);
    return "hsl(" + hue.toFixed(2) + ", 72%, " + light + "%)";
  }

  // ---- grids: one table, roving tab stop, arrow keys -------------------------------------------------------
  function rowLabel(shape, r) {
    if (shape.length <= 2) return String(r);
    const lead = shape.slice(0, -1);
    const idx = [];
    for (let i = lead.length - 1; i >= 0; i--) {
      idx.unshift(r % lead[i]);
      r = Math.floor(r / lead[i]);
    }
    return "(" + idx.join(",") + ")";
  }

  // cell(r, c) -> {label, sub, color, title, data: {...}, classes: [...]}
  function drawGrid(table, shape, rows, cols, cell, onFocus) {
    const body = document.createDocumentFragment();
    const head = document.createElement("tr");
    const corner = document.createElement("th");
    corner.className = "row";
    head.appendChild(corner);
    for (let c = 0; c < cols; c++) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = c;
      head.appendChild(th);
    }
    body.appendChild(head);
    for (let r = 0; r < rows; r++) {
      const tr = document.createElement("tr");
      const th = document.createElement("th");
      th.className = "row";
      th.scope = "row";
      th.textContent = rowLabel(shape, r);
      tr.appendChild(th);
      for (let c = 0; c < cols; c++) {
        const info = cell(r, c);
        const td = document.createElement("td");
        td.tabIndex = r === 0 && c === 0 ? 0 : -1;
        td.dataset.r = r;
        td.dataset.c = c;
        td.textContent = info.label;
        if (info.sub !== undefined) {
          const sub = document.createElement("span");
          sub.className = "sub";
          sub.textContent = info.sub;
          td.appendChild(sub);
        }
        if (info.color) td.style.backgroundColor = info.color;
        if (info.title) td.title = info.title;
        for (const [k, v] of Object.entries(info.data || {})) td.dataset[k] = v;
        for (const k of info.classes || []) td.classList.add(k);
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    table.replaceChildren(body);
    table.dataset.rows = rows;
    table.dataset.cols = cols;
    // focusin has no on-property: one listener per table, calling the latest grid's handler.
    table.axeOnFocus = onFocus;
    if (!table.axeWired) {
      table.axeWired = true;
      table.addEventListener("focusin", (e) => {
        const td = e.target.closest("td");
        if (!td) return;
        for (const other of table.querySelectorAll('td[tabindex="0"]')) if (other !== td) other.tabIndex = -1;
        td.tabIndex = 0;
        table.axeOnFocus(+td.dataset.r, +td.dataset.c, td);
      });
    }
    table.onmouseover = (e) => {
      const td = e.target.closest("td");
      if (td) onFocus(+td.dataset.r, +td.dataset.c, td);
    };
    table.onkeydown = (e) => {
      const td = e.target.closest("td");
      if (!td) return;
      let r = +td.dataset.r, c = +td.dataset.c;
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
        PageUp: [-8, 0], PageDown: [8, 0] };
      if (moves[e.key]) { r += moves[e.key][0]; c += moves[e.key][1]; }
      else if (e.key === "Home") c = 0;
      else if (e.key === "End") c = cols - 1;
      else return;
      e.preventDefault();
      r = Math.max(0, Math.min(rows - 1, r));
      c = Math.max(0, Math.min(cols - 1, c));
      const next = table.rows[r + 1].cells[c + 1];
      td.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    };
  }

  // ---- the layout view --------------------------------------------------------------------------------------
  function pointText(p) {
    return Object.keys(p).map((k) => k + "=" + p[k]).join(" ");
  }

  function points(r, c) {
    const v = state.view;
    return v.points[r * v.shown_cols + c];
  }

  function drawAxisControls() {
    const v = state.view;
    const table = document.createElement("table");
    const head = table.insertRow();
    for (const t of ["axis", "kind", "colour", "label"]) {
      const th = document.createElement("th");
      th.textContent = t;
      head.appendChild(th);
    }
    // A shared-memory layout can also be coloured by the bank of each element (its first 4-byte word, with the
    // bank view's element size): the pseudo-axis "bank".
    const rows = v.axes.slice();
    if (sharedLayout(v)) rows.push({ name: BANK, kind: "bank of the element's address", pseudo: true });
    for (const axis of rows) {
      const row = table.insertRow();
      row.insertCell().textContent = axis.name;
      row.insertCell().textContent = axis.kind + (axis.unit ? " (" + axis.unit + " in " + axis.within + ")" : "");
      for (const [which, set] of [["color", state.colorAxes], ["label", state.labelAxes]]) {
        if (axis.pseudo && which === "label") { row.insertCell(); continue; }
        const box = document.createElement("input");
        box.type = "checkbox";
        box.id = which + "-axis-" + axis.name;
        box.checked = set.has(axis.name);
        box.setAttribute("aria-label", (which === "color" ? "colour by " : "label with ") + axis.name);
        box.onchange = () => {
          if (box.checked) set.add(axis.name); else set.delete(axis.name);
          drawLayoutGrid();
        };
        row.insertCell().appendChild(box);
      }
    }
    $("axis-table").replaceChildren(table);
    $("axis-controls").hidden = v.axes.length === 0;
  }

  const BANK = "#bank";

  function sharedLayout(v) {
    return v.axes.length === 1 && v.axes[0].kind === "memory";
  }

  // The value of colour axis `a` at coordinate p: the coordinate's value, or for the bank pseudo-axis the bank of
  // the element's first byte.
  function colorValue(v, p, a) {
    if (a !== BANK) return p[a] || 0;
    const bytes = +$("elem-bytes").value;
    return (((Math.floor((p[v.axes[0].name] * bytes) / 4)) % 32) + 32) % 32;
  }

  function drawLayoutGrid() {
    const v = state.view;
    const colorAxes = v.axes.map((a) => a.name).concat(sharedLayout(v) ? [BANK] : [])
      .filter((n) => state.colorAxes.has(n));
    const labelAxes = v.axes.map((a) => a.name).filter((n) => state.labelAxes.has(n));
    // Mixed-radix key over the colour axes (radix: the largest value drawn + 1).
    const radix = {};
    for (const set of v.points) for (const p of set) for (const a of colorAxes) radix[a] = Math.max(radix[a] || 1, colorValue(v, p, a) + 1);
    const access = state.accesses && state.accesses.list[state.access];
    const inAccess = new Set();
    if (access) for (const lane of access.lanes) for (const [r, c] of lane.elems) inAccess.add(r + "," + c);
    drawGrid($("grid"), v.shape, v.shown_rows, v.shown_cols, (r, c) => {
      const set = points(r, c);
      const first = set[0] || {};
      let key = 0;
      for (const a of colorAxes) key = key * radix[a] + colorValue(v, first, a);
      const shown = set.slice(0, 2).map((p) => labelAxes.map((a) => p[a]).join(":"));
      let label = shown.join("/");
      if (set.length > 2) label += " +" + (set.length - 2);
      const classes = [];
      if (set.length > 1) classes.push("replica");
      if (inAccess.has(r + "," + c)) classes.push("in-access");
      return {
        label,
        color: colorAxes.length ? colorOf(key) : "",
        title: set.map(pointText).join(" | "),
        data: { image: JSON.stringify(set), colorKey: colorAxes.length ? key : "" },
        classes,
      };
    }, (r, c) => {
      const set = points(r, c);
      const flat = r * v.cols + c;
      $("cell-detail").textContent = "row " + rowLabel(v.shape, r) + ", column " + c + " (flat index " + flat +
        "): " + set.length + " coordinate" + (set.length === 1 ? "" : "s") + "\n" + set.map(pointText).join("\n");
    });
  }

  async function evaluate() {
    const layout = $("layout").value;
    const shape = $("shape").value;
    clearErrors("", ["layout", "shape"], "eval-error");
    const answer = await api("eval", { layout, shape });
    if (answer.error) {
      showError("", answer.error, "eval-error");
      return;
    }
    state.layoutText = layout;
    state.view = answer;
    const names = answer.axes.map((a) => a.name);
    const threads = answer.axes.filter((a) => a.kind === "thread").map((a) => a.name);
    // Colour by the innermost thread axis (laneid in a warp), a shared layout by bank; label with every axis.
    state.colorAxes = new Set(threads.length ? [threads[0]] : sharedLayout(answer) ? [BANK] : names.slice(0, 1));
    state.labelAxes = new Set(names);
    $("summary").textContent = "canonical: " + answer.layout + "   shape [" + answer.shape.join(",") + "], " +
      answer.size + " elements" + (answer.replicas > 1 ? ", " + answer.replicas + " copies each" : "");
    $("grid-note").textContent = answer.note;
    drawAxisControls();
    state.access = 0;
    drawBanks();
    drawLayoutGrid();
    if (answer.tma_defaults) {
      if (!state.tmaEdited) {
        const d = answer.tma_defaults;
        $("tma-global").value = d.global;
        $("tma-global-shape").value = d.global_shape;
        $("tma-global-region").value = d.global_region;
        $("tma-shared-region").value = d.shared_region;
      }
      await planTma();
    } else {
      $("tma-summary").textContent = "";
      $("tma-grid").replaceChildren();
      $("tma-text").textContent = "";
      $("tma-note").textContent = "The TMA view needs a shared-memory layout (memory axes only); this one uses " +
        names.join(", ") + ".";
    }
  }

  // ---- the bank view --------------------------------------------------------------------------------------
  // The counting rule of "What is counted" on the page. Returns {list: [{lanes, phases, wavefronts, conflicts}],
  // total} or {error}.
  function bankAccesses(v, elemBytes, vec, order) {
    if (!sharedLayout(v)) {
      return { error: "The bank view is for a shared-memory layout over one memory axis; this layout uses " +
        (v.axes.map((a) => a.name).join(", ") || "no axis") + "." };
    }
    const laneBytes = elemBytes * vec;
    if (laneBytes > 16) return { error: "A lane reads at most 16 bytes; " + vec + " elements of " + elemBytes + " bytes are " + laneBytes + "." };
    const rows = v.shown_rows, cols = v.shown_cols, axis = v.axes[0].name;
    if (cols % vec !== 0) return { error: "The lane vector (" + vec + " elements) does not divide the " + cols + " columns drawn." };
    const perRow = cols / vec, slots = rows * perRow;
    const lanesPerPhase = laneBytes <= 4 ? 32 : 128 / laneBytes;
    const list = [];
    let total = 0;
    for (let k = 0; k * 32 < slots; k++) {
      const lanes = [];
      for (let t = 0; t < 32 && k * 32 + t < slots; t++) {
        const s = k * 32 + t;
        const r = order === "row" ? Math.floor(s / perRow) : s % rows;
        const j = order === "row" ? s % perRow : Math.floor(s / rows);
        const words = new Set();
        const elems = [];
        for (let e = 0; e < vec; e++) {
          const c = j * vec + e;
          const address = Math.min(...points(r, c).map((p) => p[axis]));
          const first = address * elemBytes;
          for (let w = Math.floor(first / 4); w <= Math.floor((first + elemBytes - 1) / 4); w++) words.add(w);
          elems.push([r, c]);
        }
        lanes.push({ lane: t, row: r, slot: j, elems, words: [...words].sort((a, b) => a - b) });
      }
      const phases = [];
      let wavefronts = 0, conflicts = 0;
      for (let p0 = 0; p0 < lanes.length; p0 += lanesPerPhase) {
        const banks = new Map();
        for (const lane of lanes.slice(p0, p0 + lanesPerPhase)) {
          for (const w of lane.words) {
            const b = ((w % 32) + 32) % 32;
            if (!banks.has(b)) banks.set(b, new Map());
            const ws = banks.get(b);
            if (!ws.has(w)) ws.set(w, []);
            ws.get(w).push(lane.lane);
          }
        }
        let busiest = 0;
        for (const ws of banks.values()) busiest = Math.max(busiest, ws.size);
        phases.push({ first: p0, last: Math.min(p0 + lanesPerPhase, lanes.length) - 1, banks, wavefronts: busiest });
        wavefronts += busiest;
        conflicts += Math.max(0, busiest - 1);
      }
      total += conflicts;
      list.push({ lanes, phases, wavefronts, conflicts });
    }
    return { list, total };
  }

  function drawBanks() {
    const v = state.view;
    const elemBytes = +$("elem-bytes").value, vec = +$("vector").value, order = $("order").value;
    const result = v ? bankAccesses(v, elemBytes, vec, order) : { error: "" };
    $("access-table").replaceChildren();
    $("bank-grid").replaceChildren();
    if (result.error !== undefined) {
      state.accesses = null;
      $("bank-message").textContent = result.error;
      $("bank-summary").textContent = "";
      return;
    }
    state.accesses = result;
    state.access = Math.min(state.access, result.list.length - 1);
    $("bank-message").textContent = v.note ? "Counted over the drawn part of the tensor only." : "";
    const summary = $("bank-summary");
    summary.replaceChildren();
    const total = document.createElement("strong");
    total.id = "bank-total";
    total.dataset.conflicts = result.total;
    total.dataset.accesses = result.list.length;
    total.textContent = result.total + " bank conflict" + (result.total === 1 ? "" : "s");
    summary.append(total, " in " + result.list.length + " warp-wide access" + (result.list.length === 1 ? "" : "es") +
      " (" + vec + " × " + elemBytes + "-byte elements per lane, " + order + " order). Select an access to see its banks.");
    const table = $("access-table");
    const head = table.insertRow();
    for (const t of ["access", "lanes", "phases", "wavefronts", "conflicts"]) {
      const th = document.createElement("th");
      th.textContent = t;
      head.appendChild(th);
    }
    result.list.forEach((a, k) => {
      const row = table.insertRow();
      row.tabIndex = k === state.access ? 0 : -1;
      row.dataset.access = k;
      row.dataset.conflicts = a.conflicts;
      row.setAttribute("aria-selected", k === state.access ? "true" : "false");
      if (a.conflicts) row.classList.add("has-conflict");
      const cells = [k, a.lanes.length, a.phases.length, a.wavefronts, a.conflicts];
      cells.forEach((x, i) => {
        const td = row.insertCell();
        td.textContent = x;
        if (i === 4) td.className = "conflicts";
      });
      row.onclick = () => selectAccess(k, true);
      row.onkeydown = (e) => {
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          selectAccess(Math.max(0, Math.min(result.list.length - 1, k + (e.key === "ArrowDown" ? 1 : -1))), true);
        }
      };
    });
    drawBankGrid();
  }

  function selectAccess(k, focus) {
    state.access = k;
    for (const row of $("access-table").querySelectorAll("tr[data-access]")) {
      const on = +row.dataset.access === k;
      row.setAttribute("aria-selected", on ? "true" : "false");
      row.tabIndex = on ? 0 : -1;
      if (on && focus) row.focus();
    }
    drawBankGrid();
    drawLayoutGrid();
  }

  function drawBankGrid() {
    const a = state.accesses && state.accesses.list[state.access];
    const table = $("bank-grid");
    table.replaceChildren();
    if (!a) return;
    const head = table.insertRow();
    const corner = document.createElement("th");
    corner.className = "row";
    corner.textContent = "word row";
    head.appendChild(corner);
    for (let b = 0; b < 32; b++) {
      const th = document.createElement("th");
      th.textContent = "b" + b;
      head.appendChild(th);
    }
    a.phases.forEach((phase, p) => {
      const title = table.insertRow();
      title.className = "phase";
      const th = document.createElement("th");
      th.colSpan = 33;
      th.textContent = "access " + state.access + ", phase " + p + ": lanes " + phase.first + "–" + phase.last +
        ", " + phase.wavefronts + " wavefront" + (phase.wavefronts === 1 ? "" : "s");
      title.appendChild(th);
      const lines = new Set();
      for (const ws of phase.banks.values()) for (const w of ws.keys()) lines.add(Math.floor(w / 32));
      for (const line of [...lines].sort((x, y) => x - y)) {
        const row = table.insertRow();
        const rh = document.createElement("th");
        rh.className = "row";
        rh.textContent = line * 128 + " B";
        row.appendChild(rh);
        for (let b = 0; b < 32; b++) {
          const td = row.insertCell();
          const ws = phase.banks.get(b);
          const lanes = ws && ws.get(line * 32 + b);
          if (!lanes) continue;
          td.textContent = lanes.map((l) => "L" + l).join(" ");
          td.className = ws.size > 1 ? "conflict" : "used";
          td.title = "bank " + b + ", word at byte " + (line * 32 + b) * 4 + ": lanes " + lanes.join(", ") +
            (ws.size > 1 ? "; " + ws.size + " distinct words in this bank in this phase: " + (ws.size - 1) + " conflict" + (ws.size > 2 ? "s" : "") : "");
        }
      }
    });
  }

  // ---- the TMA view ---------------------------------------------------------------------------------------
  const TMA_FIELDS = ["global", "global_shape", "global_region", "shared_region"];

  async function planTma() {
    const v = state.view;
    if (!v || !v.tma_defaults) return;
    clearErrors("tma-", TMA_FIELDS, "tma-error");
    const request = {
      global: $("tma-global").value,
      global_shape: $("tma-global-shape").value,
      global_region: $("tma-global-region").value,
      shared: state.layoutText,
      shared_shape: v.shape.join(","),
      shared_region: $("tma-shared-region").value,
      dtype: $("tma-dtype").value,
      direction: $("tma-direction").value,
    };
    const answer = await api("tma", request);
    $("tma-grid").replaceChildren();
    if (answer.error) {
      $("tma-summary").textContent = "";
      $("tma-note").textContent = "";
      $("tma-text").textContent = "";
      showError("tma-", answer.error, "tma-error");
      return;
    }
    const p = answer.plan;
    $("tma-summary").textContent = p.issues.length + " issue" + (p.issues.length === 1 ? "" : "s") + " of a " +
      p.box_dims.join("×") + " box (innermost first, " + answer.box_bytes + " bytes); swizzle mode " + p.swizzle + ".";
    $("tma-note").textContent = answer.note;
    $("tma-text").textContent = answer.text;
    const rows = answer.shown_rows, cols = answer.shown_cols;
    const issue = (r, c) => (r < 0 || c < 0 ? null : answer.issue_of[r * cols + c]);
    const extents = $("tma-shared-region").value.split(",").map((t) => { const [b, e] = t.split(":"); return +e - +b; });
    drawGrid($("tma-grid"), extents, rows, cols, (r, c) => {
      const i = issue(r, c);
      const classes = [];
      if (c > 0 && issue(r, c - 1) !== i) classes.push("box-l");
      if (r > 0 && issue(r - 1, c) !== i) classes.push("box-t");
      return { label: i === null ? "-" : String(i), color: i === null ? "" : colorOf(i), classes,
        data: { issue: i === null ? "" : i } };
    }, (r, c) => {
      const i = issue(r, c);
      $("tma-detail").textContent = "region element (" + r + "," + c + "): " + (i === null ? "no issue" :
        "issue " + i + " of " + p.issues.length + ", coordinates [" + p.issues[i].coordinates.join(", ") +
        "] (innermost first), shared offset " + p.issues[i].smem_offset_bytes + " bytes");
    });
  }

  // ---- the MMA view ---------------------------------------------------------------------------------------
  const MMA_FIELDS = ["chip", "dtype", "acc_dtype", "a", "a_shape", "a_mem", "b", "b_shape", "b_mem", "c", "c_shape", "c_mem"];

  function mmaRequest() {
    const request = {};
    for (const f of MMA_FIELDS) request[f] = $("mma-" + f).value;
    return request;
  }

  async function planMma() {
    clearErrors("mma-", MMA_FIELDS, "mma-error");
    const answer = await api("mma", mmaRequest());
    state.mma = answer;
    if (answer.error) {
      $("mma-summary").textContent = "";
      $("mma-text").textContent = "";
      $("mma-grid").replaceChildren();
      $("mma-note").textContent = "";
      showError("mma-", answer.error, "mma-error");
      return;
    }
    const p = answer.plan;
    $("mma-summary").textContent = p.instruction + ": " + p.issues.length + " issue" +
      (p.issues.length === 1 ? "" : "s") + " of m" + p.inst_shape[0] + "n" + p.inst_shape[1] + "k" + p.inst_shape[2] + ".";
    $("mma-text").textContent = answer.text;
    drawMma();
  }

  function drawMma() {
    const answer = state.mma;
    if (!answer || answer.error) return;
    const role = document.querySelector('input[name="mma-operand"]:checked').value;
    const g = answer.operands[role];
    $("mma-note").textContent = g.note;
    const issues = answer.plan.issues;
    drawGrid($("mma-grid"), [g.rows, g.cols], g.shown_rows, g.shown_cols, (r, c) => {
      const cell = g.cells[r * g.shown_cols + c];
      if (!cell) return { label: "-", data: {} };
      if (cell.frag !== undefined) {
        const lane = cell.point.laneid;
        return { label: role + cell.frag, sub: lane === undefined ? "" : "L" + lane,
          color: colorOf(lane === undefined ? cell.issue : lane),
          data: { issue: cell.issue, frag: cell.frag, lane: lane === undefined ? "" : lane } };
      }
      if (cell.point) {
        return { label: "i" + cell.issue, sub: Object.entries(cell.point).map(([k, x]) => k + x).join(" "),
          color: colorOf(cell.issue), data: { issue: cell.issue } };
      }
      return { label: "i" + cell.issue, color: colorOf(cell.issue), data: { issue: cell.issue } };
    }, (r, c) => {
      const cell = g.cells[r * g.shown_cols + c];
      const text = role.toUpperCase() + "[" + r + "," + c + "]: ";
      if (!cell) { $("mma-detail").textContent = text + "in no issue"; return; }
      const i = issues[cell.issue];
      let s = text + "issue " + cell.issue + " (thread base " + i.thread_base + ", tile m " + i.m + " n " + i.n + " k " + i.k + ")";
      if (cell.frag !== undefined) s += ", fragment element " + role + cell.frag + ", " + pointText(cell.point);
      else if (cell.point) s += ", " + pointText(cell.point);
      $("mma-detail").textContent = s;
    });
  }

  // ---- wiring ---------------------------------------------------------------------------------------------
  // body[data-pending] counts answers still awaited and body[data-done] those drawn, so a test (or a person with
  // the developer tools) can tell when the page has caught up.
  let pending = 0, done = 0;
  function track(promise) {
    document.body.dataset.pending = ++pending;
    return promise.finally(() => {
      document.body.dataset.pending = --pending;
      document.body.dataset.done = ++done;
    });
  }
  $("layout-form").onsubmit = (e) => { e.preventDefault(); track(evaluate()); };
  $("tma-form").onsubmit = (e) => { e.preventDefault(); state.tmaEdited = true; track(planTma()); };
  $("mma-form").onsubmit = (e) => { e.preventDefault(); track(planMma()); };
  for (const id of ["elem-bytes", "vector", "order"]) $(id).onchange = () => { state.access = 0; drawBanks(); drawLayoutGrid(); };
  for (const radio of document.querySelectorAll('input[name="mma-operand"]')) radio.onchange = drawMma;

  if (BOOT.mode === "static") {
    const note = $("mode-note");
    note.className = "banner";
    note.textContent = "A page written by `axe-layout show --html` for one layout: " + STATIC_NOTE + ".";
  }
  $("layout").value = BOOT.initial.layout;
  $("shape").value = BOOT.initial.shape;
  for (const f of MMA_FIELDS) $("mma-" + f).value = BOOT.mma[f];
  track(Promise.all([evaluate(), planMma()]));
})();
