// agentlab report: side panel, safe arithmetic, number formatting.
// Twin of evidence/render/calc.go and format.go: both sides must produce
// the same text for the same evidence. The names section reads SQL as
// evidence/names.go does (the panel of a name, and the bundle page's
// name check). No eval, no network, no innerHTML
// of data: everything from the evidence is inserted as text.
"use strict";
var AL = (function () {
  var MAX_FORMULA = 1 << 20, MAX_DEPTH = 64;

  // ---- calc: + - * / ( ) [lists] null sum avg min max count round abs ----
  function calc(s) {
    if (typeof s !== "string") throw new Error("the formula is not text");
    if (s.length > MAX_FORMULA) throw new Error("formula over the size limit");
    var pos = 0, depth = 0;
    function space() { while (pos < s.length && " \t\n\r".indexOf(s[pos]) >= 0) pos++; }
    function peek() { space(); return pos < s.length ? s[pos] : ""; }
    function enter() { if (++depth > MAX_DEPTH) throw new Error("formula nested deeper than " + MAX_DEPTH); }
    function num(x) { return { k: "n", v: x }; }
    function arith(op, a, b) {
      if (a.k !== "n" || b.k !== "n") throw new Error(op + " applied to a list or null");
      if (op === "+") return num(a.v + b.v);
      if (op === "-") return num(a.v - b.v);
      if (op === "*") return num(a.v * b.v);
      if (b.v === 0) throw new Error("division by zero");
      return num(a.v / b.v);
    }
    function expr() {
      enter();
      var a = term();
      for (;;) {
        var op = peek();
        if (op !== "+" && op !== "-") break;
        pos++;
        a = arith(op, a, term());
      }
      depth--;
      return a;
    }
    function term() {
      var a = unary();
      for (;;) {
        var op = peek();
        if (op !== "*" && op !== "/") return a;
        pos++;
        a = arith(op, a, unary());
      }
    }
    function unary() {
      var c = peek();
      if (c === "-" || c === "+") {
        pos++; enter();
        var v = unary();
        depth--;
        if (v.k !== "n") throw new Error("unary minus on a list or null");
        return c === "-" ? num(-v.v) : v;
      }
      return primary();
    }
    function args(end) {
      var out = [];
      if (peek() === end) { pos++; return out; }
      for (;;) {
        out.push(expr());
        var c = peek();
        if (c === ",") { pos++; continue; }
        if (c === end) { pos++; return out; }
        throw new Error("expected , or " + end + " at offset " + pos);
      }
    }
    function primary() {
      var c = peek(), v;
      if (c === "(") {
        pos++;
        v = expr();
        if (peek() !== ")") throw new Error("missing ) at offset " + pos);
        pos++;
        return v;
      }
      if (c === "[") { pos++; enter(); v = { k: "l", v: args("]") }; depth--; return v; }
      if ((c >= "0" && c <= "9") || c === ".") return number();
      if (c >= "a" && c <= "z") {
        var start = pos;
        while (pos < s.length && s[pos] >= "a" && s[pos] <= "z") pos++;
        var name = s.slice(start, pos);
        if (name === "null") return { k: "z" };
        if (peek() !== "(") throw new Error("unknown name " + name);
        pos++; enter();
        var a = args(")");
        depth--;
        return call(name, a);
      }
      if (c === "") throw new Error("the formula ends too early");
      throw new Error("unexpected " + c + " at offset " + pos);
    }
    function number() {
      var start = pos;
      function digits() { while (pos < s.length && s[pos] >= "0" && s[pos] <= "9") pos++; }
      digits();
      if (s[pos] === ".") { pos++; digits(); }
      if (s[pos] === "e" || s[pos] === "E") {
        pos++;
        if (s[pos] === "+" || s[pos] === "-") pos++;
        digits();
      }
      var lit = s.slice(start, pos);
      if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(lit)) throw new Error("bad number " + lit);
      var f = Number(lit);
      if (!isFinite(f)) throw new Error("bad number " + lit);
      return num(f);
    }
    function flatten(a, out) {
      for (var i = 0; i < a.length; i++) {
        if (a[i].k === "n") out.push(a[i].v);
        else if (a[i].k === "l") flatten(a[i].v, out);
      }
      return out;
    }
    function call(name, a) {
      var xs, r, i;
      if (name === "sum" || name === "avg" || name === "min" || name === "max" || name === "count") {
        xs = flatten(a, []);
        if (name === "count") return num(xs.length);
        if (name === "sum") { r = 0; for (i = 0; i < xs.length; i++) r += xs[i]; return num(r); }
        if (!xs.length) throw new Error(name + " of no values");
        r = xs[0];
        for (i = 1; i < xs.length; i++) {
          if (name === "avg") r += xs[i];
          else if (name === "min") { if (xs[i] < r) r = xs[i]; }
          else if (xs[i] > r) r = xs[i];
        }
        if (name === "avg") r /= xs.length;
        return num(r);
      }
      if (name === "abs") {
        if (a.length !== 1 || a[0].k !== "n") throw new Error("abs takes one number");
        return num(Math.abs(a[0].v));
      }
      if (name === "round") {
        if (a.length < 1 || a.length > 2 || a[0].k !== "n" || (a.length === 2 && a[1].k !== "n")) throw new Error("round takes a number and optionally decimals");
        var d = a.length === 2 ? a[1].v : 0;
        if (d !== Math.trunc(d) || d < 0 || d > 15) throw new Error("round: decimals must be a whole number from 0 to 15");
        return num(roundHalfAway(a[0].v, d));
      }
      throw new Error("unknown function " + name);
    }
    var v = expr();
    space();
    if (pos < s.length) throw new Error("unexpected " + s[pos] + " at offset " + pos);
    if (v.k !== "n") throw new Error("the formula is not a number");
    if (!isFinite(v.v)) throw new Error("the formula does not give a finite number");
    return v.v;
  }
  function roundHalfAway(x, d) {
    var p = Math.pow(10, d), r = Math.floor(Math.abs(x) * p + 0.5) / p;
    return x < 0 ? -r : r;
  }
  function sameValue(a, b) {
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.max(Math.abs(a), Math.abs(b)));
  }

  // ---- canonical JSON (docs/formats.md) ----
  function cmpUTF8(a, b) {
    var ia = 0, ib = 0;
    while (ia < a.length && ib < b.length) {
      var ca = a.codePointAt(ia), cb = b.codePointAt(ib);
      if (ca !== cb) return ca < cb ? -1 : 1;
      ia += ca > 0xffff ? 2 : 1; ib += cb > 0xffff ? 2 : 1;
    }
    return (a.length - ia) - (b.length - ib) < 0 ? -1 : ((a.length - ia) - (b.length - ib) > 0 ? 1 : 0);
  }
  function canon(v) {
    if (v === null || typeof v === "boolean") return String(v);
    if (typeof v === "number") { if (!isFinite(v)) throw new Error("number out of range"); return String(v); }
    if (typeof v === "string") return JSON.stringify(v);
    if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
    var ks = Object.keys(v).sort(cmpUTF8);
    return "{" + ks.map(function (k) { return JSON.stringify(k) + ":" + canon(v[k]); }).join(",") + "}";
  }

  // ---- formatting (format.go) ----
  var UNITS = { "万": 1e4, "亿": 1e8, "千": 1e3, "k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "%": 0.01 };
  function fixed(x, d) { return Math.abs(x) >= 1e21 ? String(x) : x.toFixed(d); }
  function group(s) {
    var sign = "";
    if (s[0] === "-") { sign = "-"; s = s.slice(1); }
    if (s.indexOf("e") >= 0) return sign + s;
    var dot = s.indexOf("."), ip = dot < 0 ? s : s.slice(0, dot), fr = dot < 0 ? "" : s.slice(dot);
    var out = "";
    for (var i = 0; i < ip.length; i++) {
      if (i > 0 && (ip.length - i) % 3 === 0) out += ",";
      out += ip[i];
    }
    return sign + out + fr;
  }
  function formatMetric(mv, unit) {
    if (!mv || mv.value === null || mv.value === undefined) return null;
    var v = mv.value;
    function dec(def) { var d = mv.decimals; return (typeof d === "number" && d >= 0 && d <= 20) ? d : def; }
    if (unit) {
      if (!Object.prototype.hasOwnProperty.call(UNITS, unit)) return null;
      if (unit === "%") return group(fixed(mv.unit === "%" ? v : mv.unit === "\u2030" ? v / 10 : v * 100, dec(1))) + "%"; // percentPoints
      return group(fixed(v / UNITS[unit], 2)) + unit; // declared decimals are those of the metric's own unit
    }
    if (mv.format === "percent") return group(fixed(v * 100, dec(1))) + "%";
    var s = group(fixed(v, dec(v === Math.trunc(v) ? 0 : 2)));
    if (mv.unit) s += " " + mv.unit;
    return s;
  }
  function formatCell(v) {
    if (v === null || v === undefined) return "NULL";
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    return canon(v);
  }
  function formatInput(v) {
    if (typeof v === "string") return v;
    if (typeof v === "number") return String(v);
    return canon(v);
  }
  function rowCount(shown, total, truncated) {
    return shown + " of " + total + " rows shown" + (truncated ? "; the query result was truncated at the row cap" : "");
  }

  // ---- names (evidence/names.go): which snapshots back a table or column name ----
  // goLower is strings.ToLower: each rune by its simple lower case (the
  // one rune JavaScript maps to two, U+0130, keeps the first), never by
  // context (final sigma).
  function goLower(s) {
    if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
    var out = "";
    for (var ch of s) out += String.fromCodePoint(ch.toLowerCase().codePointAt(0));
    return out;
  }
  function isIdentCode(c) { return c === 0x5f || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39); }
  // SQL_KEYWORDS is evidence.sqlKeywords.
  var SQL_KEYWORDS = new Set(("select from where group by order as and or not in is null on join left right " +
    "inner outer cross full natural using limit offset having distinct case when then else end asc desc union all " +
    "intersect except with like glob between cast exists true false collate nulls first last over partition " +
    "window rows range preceding following current row filter escape values recursive integer real text " +
    "numeric blob int float double varchar date").split(" "));
  // sqlNames is evidence.sqlNames: the tables a query reads (after FROM
  // and JOIN) and its other identifiers — no keywords, function names,
  // :params or string literals; quoted identifiers as written.
  function sqlNames(sql) {
    var tables = [], idents = [], prev = "", i = 0, j, k, c, w, lw, n = sql.length;
    var ENDS = { "\"": "\"", "`": "`", "[": "]" };
    function ws(x) { return x === " " || x === "\t" || x === "\n" || x === "\r"; }
    while (i < n) {
      c = sql[i];
      var cc = sql.charCodeAt(i);
      if (c === "'") {
        j = i + 1;
        while (j < n && !(sql[j] === "'" && (j + 1 >= n || sql[j + 1] !== "'"))) {
          if (sql[j] === "'") j++;
          j++;
        }
        i = j + 1; prev = "";
      } else if (c === "\"" || c === "`" || c === "[") {
        j = sql.indexOf(ENDS[c], i + 1);
        if (j < 0) break;
        w = sql.slice(i + 1, j);
        if (prev === "from" || prev === "join") { tables.push(w); prev = "table"; } else { idents.push(w); prev = ""; }
        i = j + 1;
      } else if (c === ":" || c === "@" || c === "$") {
        j = i + 1;
        while (j < n && isIdentCode(sql.charCodeAt(j))) j++;
        i = j; prev = "";
      } else if (isIdentCode(cc) && !(cc >= 0x30 && cc <= 0x39)) {
        j = i;
        while (j < n && isIdentCode(sql.charCodeAt(j))) j++;
        w = sql.slice(i, j); k = j;
        while (k < n && ws(sql[k])) k++;
        lw = w.toLowerCase();
        if (SQL_KEYWORDS.has(lw)) prev = lw;
        else if (k < n && sql[k] === "(") prev = "";
        else if (prev === "from" || prev === "join") { tables.push(w); prev = "table"; } else { idents.push(w); prev = ""; }
        i = j;
      } else if (cc >= 0x30 && cc <= 0x39) {
        j = i;
        while (j < n && (isIdentCode(sql.charCodeAt(j)) || sql[j] === ".")) j++;
        i = j;
      } else {
        if (c === "," && prev === "table") prev = "from"; // FROM a, b: the comma keeps the table list going
        else if (!ws(c)) prev = "";
        i++;
      }
    }
    return { tables: tables, idents: idents };
  }
  // reads reports whether snapshot s backs the name table (and column,
  // unless null) as evidence.NamesOf counts it: a query result (not a
  // merge) whose source or FROM/JOIN tables include table and whose
  // columns or other SQL identifiers include column, regardless of case.
  function reads(s, table, column) {
    if (!s || s.tool === "merge") return false;
    var sn = sqlNames(typeof s.sql === "string" ? s.sql : ""), lt = goLower(table), lc;
    if (!(s.source ? [s.source] : []).concat(sn.tables).some(function (t) { return typeof t === "string" && goLower(t) === lt; })) return false;
    if (column === null) return true;
    lc = goLower(column);
    return (s.columns || []).concat(sn.idents).some(function (c) { return typeof c === "string" && goLower(c) === lc; });
  }

  // ---- the report's evidence ----
  var enc = new TextEncoder(), dec = new TextDecoder("utf-8", { fatal: false });
  function loadData(text) {
    var d = JSON.parse(text), i;
    d.snap = {}; d.hit = {}; d.set = {}; d.rep = {};
    for (i = 0; i < d.snapshots.length; i++) d.snap[d.snapshots[i].id] = d.snapshots[i].data;
    for (i = 0; i < d.hits.length; i++) {
      var h = d.hits[i].data, id = d.hits[i].id;
      if (Array.isArray(h)) h = h.filter(function (x) { return x && x.id === id; })[0];
      d.hit[id] = h;
    }
    for (i = 0; i < d.metricsets.length; i++) d.set[d.metricsets[i].node] = d.metricsets[i].data;
    for (i = 0; i < d.reports.length; i++) d.rep[d.reports[i].node] = d.reports[i].data;
    return d;
  }
  function metric(d, set, name) {
    var ms = d.set[set];
    if (!ms || !ms.metrics) return null;
    for (var i = 0; i < ms.metrics.length; i++) if (ms.metrics[i].name === name) return ms.metrics[i];
    return null;
  }
  function col(snap, c) { return snap && snap.columns ? snap.columns.indexOf(c) : -1; }
  function cell(d, q, r, c) {
    var s = d.snap[q], j = col(s, c);
    if (j < 0 || !s.rows || r < 0 || r >= s.rows.length) return { ok: false };
    return { ok: true, v: s.rows[r][j] };
  }
  function attr(el, k) { return el.getAttribute(k); }
  // srcSlice returns the report source bytes data-a..data-b of el.
  function srcSlice(d, el) {
    var node = el.closest("[data-node]"), rep = node && d.rep[attr(node, "data-node")];
    if (!rep || typeof rep.source !== "string") return null;
    var b = enc.encode(rep.source), a0 = +attr(el, "data-a"), b0 = +attr(el, "data-b");
    if (!(a0 >= 0 && b0 >= a0 && b0 <= b.length)) return null;
    return dec.decode(b.subarray(a0, b0));
  }
  // expected returns the text an element must show according to the
  // evidence, or undefined when it carries nothing to check.
  function expected(d, el) {
    var k = attr(el, "data-k"), n = attr(el, "data-n"), q = attr(el, "data-q"), x;
    switch (k) {
      case "s": return srcSlice(d, el);
      case "m":
        x = formatMetric(metric(d, attr(el, "data-set"), n), attr(el, "data-u") || "");
        return x === null ? "n/a" : x;
      case "mn": return metric(d, attr(el, "data-set"), n) ? n : null;
      case "mf": x = metric(d, attr(el, "data-set"), n); return x ? x.formula : null;
      case "i": return Object.prototype.hasOwnProperty.call(d.inputs, n) ? formatInput(d.inputs[n]) : null;
      case "v":
        x = cell(d, q, +attr(el, "data-r"), attr(el, "data-c"));
        return x.ok ? formatCell(x.v) : null;
      case "h": return col(d.snap[q], attr(el, "data-c")) >= 0 ? attr(el, "data-c") : null;
      case "t": case "c": case "node": return n;
      case "q":
        x = srcSlice(d, el);
        if (x === null || x.indexOf("|") < 0 || !d.hit[q]) return null;
        return x.slice(x.indexOf("|") + 1, x.length - 2);
      case "f": return d.meta[n] === undefined ? null : String(d.meta[n]);
      case "on": return d.outputs && Object.prototype.hasOwnProperty.call(d.outputs, n) ? n : null;
      case "o": return d.outputs && Object.prototype.hasOwnProperty.call(d.outputs, n) ? formatInput(d.outputs[n]) : null;
      case "x":
        x = d.texts, n = +attr(el, "data-i");
        return Array.isArray(x) && n >= 0 && n < x.length && x[n] && typeof x[n].text === "string" ? x[n].text : null;
      case "tr":
        x = d.meta.tier_reasons, n = +attr(el, "data-i");
        return Array.isArray(x) && n >= 0 && n < x.length && typeof x[n] === "string" ? x[n] : null;
      case "sid": return (d.snap[q] || d.hit[q]) ? q : null;
      case "sql": return d.snap[q] ? d.snap[q].sql : null;
      case "rc":
        x = d.snap[q];
        return x ? rowCount(Math.min(x.rows.length, 20), x.rows.length, !!x.truncated) : null;
      case "kp": return d.hit[q] ? d.hit[q].path : null;
      case "kt": return d.hit[q] ? d.hit[q].text : null;
    }
    return undefined;
  }

  // ---- side panel ----
  var data = null;
  function h(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function rowsAround(box, q, rows, hl) {
    // rows: sorted row indexes to show; hl: {row: {col: true}}
    var s = data.snap[q];
    if (!s) { box.appendChild(h("p", "snapshot " + q + " is not in this report")); return; }
    box.appendChild(h("h4", "Snapshot " + q + " (" + s.source + ")"));
    sqlWithParams(box, s);
    var masked = s.masked || [];
    var t = h("table"), tr = h("tr");
    tr.appendChild(h("th", "row"));
    s.columns.forEach(function (c) { tr.appendChild(h("th", c + (masked.indexOf(c) >= 0 ? " (masked)" : ""))); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      if (r < 0 || r >= s.rows.length) return;
      var row = h("tr"), cols = hl[r];
      if (cols) row.className = "al-hl-row";
      row.appendChild(h("td", String(r)));
      s.columns.forEach(function (c, j) {
        var v = s.rows[r][j], td = h("td", formatCell(v));
        var cl = [];
        if (cols && cols[c]) cl.push("al-hl-cell");
        if (masked.indexOf(c) >= 0) cl.push("al-masked");
        td.className = cl.join(" ");
        if (masked.indexOf(c) >= 0) td.title = "masked at the source";
        row.appendChild(td);
      });
      t.appendChild(row);
    });
    box.appendChild(t);
  }
  // sqlWithParams shows a snapshot's SQL and the values bound to its
  // parameters, one ":name = value" a line.
  function sqlWithParams(box, s) {
    box.appendChild(h("pre", s.sql));
    var ps = s.params && typeof s.params === "object" ? Object.keys(s.params).sort() : [];
    if (!ps.length) return;
    box.appendChild(h("pre", ps.map(function (k) { return ":" + k + " = " + formatInput(s.params[k]); }).join("\n"), "al-params"));
  }
  // shownVsEvidence says whether the text the page shows for el is what
  // the evidence gives: the panel checks the page, not the evidence
  // against itself.
  function shownVsEvidence(box, el) {
    var want = expected(data, el), got = el.textContent;
    if (want === undefined) return;
    if (want === null) { box.appendChild(h("p", "The page shows \u201c" + got + "\u201d, which no evidence of this report gives.", "al-bad al-shown")); return; }
    box.appendChild(want === got
      ? h("p", "The page shows \u201c" + got + "\u201d: the value the evidence gives.", "al-ok al-shown")
      : h("p", "The page shows \u201c" + got + "\u201d, but the evidence gives \u201c" + want + "\u201d.", "al-bad al-shown"));
  }
  // num formats a recomputed or recorded value as the report formats a
  // number of the metric (never a raw float such as 1.1721e+06).
  function num(mv, v) {
    if (typeof v !== "number" || !isFinite(v)) return String(v);
    var x = formatMetric({ value: v, format: mv.format, unit: mv.unit, decimals: mv.decimals }, "");
    return x === null ? String(v) : x;
  }
  function around(list, n) {
    var set = {}, out = [];
    list.forEach(function (r) { for (var i = r - 2; i <= r + 2; i++) set[i] = true; });
    Object.keys(set).map(Number).sort(function (a, b) { return a - b; }).forEach(function (r) { if (out.length < n) out.push(r); });
    return out;
  }
  function sealStatus(box, artifact) {
    box.appendChild(h("h4", "Seal"));
    var m = data.meta;
    var p = h("p", m.head ? ("Sealed at event " + m.seq + " (head " + m.head + ")" + (m.seal ? "; seal " + m.seal : "") + (m.run ? "; run " + m.run : "") + ".") : "This run is not sealed.");
    box.appendChild(p);
    if (artifact) box.appendChild(h("p", "Artifact " + artifact + "."));
    var st = window.ALVerifyStatus ? window.ALVerifyStatus(artifact) : null;
    box.appendChild(h("p", st || "This file does not verify itself; check it with agentlab verify, or open the run's bundle.html.", st && st.indexOf("verified") === 0 ? "al-ok" : ""));
  }
  function showMetric(box, set, name, el) {
    var mv = metric(data, set, name), ms = data.metricsets.filter(function (x) { return x.node === set; })[0];
    if (!mv) { box.appendChild(h("p", "No metric " + name)); return; }
    box.appendChild(h("h3", "Metric " + name + (mv.card ? " (" + mv.card + ")" : "")));
    if (el) shownVsEvidence(box, el);
    box.appendChild(h("h4", "Formula"));
    box.appendChild(h("pre", mv.formula));
    box.appendChild(h("h4", "Substituted"));
    box.appendChild(h("pre", mv.substituted));
    box.appendChild(h("h4", "Recomputed"));
    var txt, ok = false;
    try {
      var r = calc(mv.substituted);
      ok = mv.value !== null && sameValue(r, mv.value);
      txt = num(mv, r) + (ok ? " = recorded value " : " ≠ recorded value ") + num(mv, mv.value);
    } catch (e) { txt = "cannot recompute: " + e.message + (mv.error ? " (recorded error: " + mv.error + ")" : ""); }
    box.appendChild(h("p", txt, ok ? "al-ok" : "al-bad"));
    // Lineage: the metrics this one uses, with their values (each opens
    // its own panel), and every cell read on the way, through them too.
    var lin = lineage(set, name);
    if ((mv.uses || []).length) {
      box.appendChild(h("h4", "Uses (" + mv.uses.length + ")"));
      var ul = h("ul", null, "al-uses");
      mv.uses.forEach(function (u) {
        var um = metric(data, set, u), li = h("li");
        var ref = h("span", u + " = " + (um ? (formatMetric(um) || "no value") : "not recorded"), "al-ref");
        ref.setAttribute("data-k", "m"); ref.setAttribute("data-set", set); ref.setAttribute("data-n", u); ref.setAttribute("tabindex", "0");
        li.appendChild(ref);
        if (um) li.appendChild(h("code", " " + um.formula));
        ul.appendChild(li);
      });
      box.appendChild(ul);
    }
    var byQ = {}, counted = {}, n = 0;
    lin.cells.forEach(function (c) {
      n++;
      if (c.row < 0) { counted[c.snapshot] = true; return; }
      (byQ[c.snapshot] = byQ[c.snapshot] || {})[c.row] = (byQ[c.snapshot] || {})[c.row] || {};
      byQ[c.snapshot][c.row][c.column] = true;
    });
    var via = lin.via.length ? " — " + (mv.cells || []).length + " read directly, the rest through " + lin.via.join(", ") : "";
    box.appendChild(h("h4", "Cited cells (" + n + ")" + via));
    Object.keys(byQ).sort().forEach(function (q) {
      var rows = Object.keys(byQ[q]).map(Number);
      rowsAround(box, q, around(rows, 60), byQ[q]);
    });
    Object.keys(counted).sort().forEach(function (q) {
      var s = data.snap[q], all = [];
      box.appendChild(h("h4", "Rows counted in " + q + " (" + (s ? s.rows.length : 0) + ")"));
      for (var i = 0; s && i < s.rows.length && i < 60; i++) all.push(i);
      rowsAround(box, q, all, {});
    });
    sealStatus(box, ms && ms.artifact);
  }
  // lineage collects, through the metrics a metric uses (recursively,
  // each once), every cell they read: {cells, via} with via the names of
  // the metrics passed through, in the order met.
  function lineage(set, name) {
    var seen = {}, cells = [], key = {}, via = [];
    (function walk(n, top) {
      if (seen[n]) return;
      seen[n] = true;
      var mv = metric(data, set, n);
      if (!mv) return;
      if (!top) via.push(n);
      (mv.cells || []).forEach(function (c) {
        var k = c.snapshot + "\u0000" + c.row + "\u0000" + c.column;
        if (!key[k]) { key[k] = true; cells.push(c); }
      });
      (mv.uses || []).forEach(function (u) { walk(u, false); });
    })(name, true);
    return { cells: cells, via: via };
  }
  function show(el) {
    if (!data) return;
    var k = attr(el, "data-k"), box = document.getElementById("al-panel-body"), q = attr(el, "data-q"), n = attr(el, "data-n");
    box.textContent = "";
    var hl = {}, r;
    if (k === "m") showMetric(box, attr(el, "data-set"), n, el);
    else if (k === "v") {
      r = +attr(el, "data-r");
      hl[r] = {}; hl[r][attr(el, "data-c")] = true;
      box.appendChild(h("h3", "Cell " + q + " row " + r + " column " + attr(el, "data-c")));
      shownVsEvidence(box, el);
      var s = data.snap[q], j = col(s, attr(el, "data-c"));
      if (s && (s.masked || []).indexOf(attr(el, "data-c")) >= 0) box.appendChild(h("p", "This column is masked at the source: its values are not in the evidence.", "al-masked"));
      rowsAround(box, q, around([r], 5), hl);
      sealStatus(box, artifactOf(q));
    } else if (k === "h") {
      box.appendChild(h("h3", "Column " + attr(el, "data-c") + " of " + q));
      rowsAround(box, q, around([0, 1, 2], 5), {});
      sealStatus(box, artifactOf(q));
    } else if (k === "t" || k === "c") {
      var parts = n.split("."), tb = parts[0];
      box.appendChild(h("h3", (k === "t" ? "Table " : "Column ") + n));
      shownVsEvidence(box, el);
      data.snapshots.forEach(function (x) {
        if (reads(x.data, tb, k === "t" ? null : parts.slice(1).join("."))) rowsAround(box, x.id, around([0], 3), {});
      });
      sealStatus(box, null);
    } else if (k === "q") {
      var hit = data.hit[q];
      box.appendChild(h("h3", "Quotation from " + q));
      shownVsEvidence(box, el);
      if (hit) {
        box.appendChild(h("p", hit.path));
        var words = el.textContent, i = hit.text.indexOf(words), bq = h("blockquote");
        if (i >= 0) {
          bq.appendChild(document.createTextNode(hit.text.slice(0, i)));
          bq.appendChild(h("mark", words));
          bq.appendChild(document.createTextNode(hit.text.slice(i + words.length)));
        } else { bq.textContent = hit.text; box.appendChild(h("p", "The quotation does not appear verbatim in " + q + ".", "al-bad")); }
        box.appendChild(bq);
      }
      sealStatus(box, artifactOf(q));
    } else if (k === "i") {
      box.appendChild(h("h3", "Input " + n));
      shownVsEvidence(box, el);
      box.appendChild(h("pre", formatInput(data.inputs[n])));
      sealStatus(box, null);
    } else return;
    document.getElementById("al-panel").hidden = false;
    document.body.classList.add("al-open");
  }
  function hide() {
    var p = document.getElementById("al-panel");
    if (!p || p.hidden) return;
    p.hidden = true;
    document.body.classList.remove("al-open");
    if (opener && document.contains(opener)) opener.focus();
    opener = null;
  }
  function artifactOf(q) {
    var all = data.snapshots.concat(data.hits);
    for (var i = 0; i < all.length; i++) if (all[i].id === q) return all[i].artifact;
    return null;
  }
  // bind opens the panel from a click, Enter or Space on any item; focus
  // moves into the panel and back to the item when it closes.
  var bound = false, opener = null;
  function bind() {
    if (bound) return;
    bound = true;
    document.addEventListener("click", function (ev) {
      var t = ev.target.closest && ev.target.closest(".al-ref");
      if (t) open(t);
    });
    document.addEventListener("keydown", function (ev) {
      var t = ev.target;
      if ((ev.key === "Enter" || ev.key === " ") && t.classList && t.classList.contains("al-ref")) { ev.preventDefault(); open(t); }
      if (ev.key === "Escape") hide();
    });
  }
  function open(t) {
    opener = t;
    show(t);
    var p = document.getElementById("al-panel");
    if (p && !p.hidden) p.focus(); // into the panel; Tab reaches its close button
  }
  // start shows the panel for data, the report's evidence: report.html
  // reads its own data block; bundle.html waits for its verifier, which
  // passes the evidence it checked.
  function start(d) {
    data = d;
    bind();
    var close = document.getElementById("al-close");
    if (close) close.addEventListener("click", hide);
  }
  function init() {
    if (typeof AL_LAYOUT !== "undefined") return; // a bundle: the verifier calls start
    var d = null;
    try { d = loadData(document.getElementById("al-data").textContent); } catch (e) { d = null; }
    start(d);
  }
  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
  }
  return { start: start, calc: calc, sameValue: sameValue, canon: canon, fixed: fixed, formatMetric: formatMetric, formatCell: formatCell,
    formatInput: formatInput, loadData: loadData, expected: expected, metric: metric, cell: cell, enc: enc, goLower: goLower, sqlNames: sqlNames };
})();
if (typeof module !== "undefined") module.exports = AL;
