// agentlab bundle page: the document bundle.html must be, rendered in the
// browser from the checked evidence. Twin of evidence/marker (Parse,
// TrimSee), evidence/render (resolve.go, html.go, Doc.Data) and the bundle
// writer (verify/bundle.go): for the same evidence both sides must produce
// the same document. Needs AL (report.js) and the layout the bundle script
// carries (AL_LAYOUT, AL_PENDING). No innerHTML of data: the document is
// parsed inert (DOMParser) and only compared.
var ALPage = (function () {
  "use strict";
  var enc = new TextEncoder(), dec = new TextDecoder();
  var HTML_ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", "\"": "&#34;", "\r": "&#13;" };
  function esc(s) { return String(s).replace(/[&<>'"\r]/g, function (c) { return HTML_ESC[c]; }); }

  // ---- JSON as encoding/json writes it ----
  function goString(s) {
    var out = "\"";
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c === 0x22) out += "\\\"";
      else if (c === 0x5c) out += "\\\\";
      else if (c === 0x0a) out += "\\n";
      else if (c === 0x0d) out += "\\r";
      else if (c === 0x09) out += "\\t";
      else if (c === 0x08) out += "\\b";
      else if (c === 0x0c) out += "\\f";
      else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) out += "\\u" + ("000" + c.toString(16)).slice(-4);
      else if (c >= 0xd800 && c <= 0xdfff) {
        var n = s.charCodeAt(i + 1);
        if (c <= 0xdbff && n >= 0xdc00 && n <= 0xdfff) { out += s[i] + s[i + 1]; i++; } else out += "\\ufffd";
      } else out += s[i];
    }
    return out + "\"";
  }
  function cmpBytes(a, b) {
    var x = enc.encode(a), y = enc.encode(b);
    for (var i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  }
  // goValue writes a decoded value (map[string]any: keys sorted).
  function goValue(v) {
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return String(v);
    if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
    if (typeof v === "string") return goString(v);
    if (Array.isArray(v)) return "[" + v.map(goValue).join(",") + "]";
    return "{" + Object.keys(v).sort(cmpBytes).map(function (k) { return goString(k) + ":" + goValue(v[k]); }).join(",") + "}";
  }
  // rawJSON is a json.RawMessage as Marshal writes it: compacted, with
  // < > & U+2028 U+2029 escaped; "null" when the text is not JSON.
  function rawJSON(t) {
    if (t === null || t === undefined) return "null";
    try { JSON.parse(t); } catch (e) { return "null"; }
    var out = "", inStr = false, bs = false;
    for (var i = 0; i < t.length; i++) {
      var ch = t[i];
      if (inStr) {
        if (bs) bs = false; else if (ch === "\\") bs = true; else if (ch === "\"") inStr = false;
      } else if (ch === "\"") inStr = true;
      else if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") continue;
      if (ch === "<") out += "\\u003c"; else if (ch === ">") out += "\\u003e"; else if (ch === "&") out += "\\u0026";
      else if (ch === "\u2028") out += "\\u2028"; else if (ch === "\u2029") out += "\\u2029";
      else out += ch;
    }
    return out;
  }
  function fields(list) {
    return "{" + list.filter(function (f) { return f; }).map(function (f) { return goString(f[0]) + ":" + f[1]; }).join(",") + "}";
  }
  function optStr(k, v) { return v ? [k, goString(v)] : null; }

  // dataJSON is Doc.Data(): the al-data block.
  function dataJSON(ev) {
    var m = ev.meta;
    var meta = fields([optStr("run", m.run), optStr("seal", m.seal), ["plan", goString(m.plan || "")], optStr("flow", m.flow),
      optStr("kind", m.kind), optStr("tier", m.tier), optStr("status", m.status), optStr("head", m.head),
      m.seq ? ["seq", String(m.seq)] : null, m.tier_reasons && m.tier_reasons.length ? ["tier_reasons", goValue(m.tier_reasons)] : null]);
    function arts(list, key) {
      return "[" + list.map(function (a) {
        return fields([optStr(key, a[key]), ["artifact", goString(a.artifact)], ["data", rawJSON(a.raw)]]);
      }).join(",") + "]";
    }
    return fields([["meta", meta], ["inputs", goValue(ev.inputs)],
      ["ledger", "[" + ev.ledger.map(function (e) { return fields([["id", goString(e.id)], ["kind", goString(e.kind)], ["artifact", goString(e.artifact)]]); }).join(",") + "]"],
      ["snapshots", arts(ev.snapshots, "id")], ["hits", arts(ev.hits, "id")], ["metricsets", arts(ev.metricsets, "node")], ["reports", arts(ev.reports, "node")],
      ["outputs", goValue(ev.outputs || {})],
      ["texts", "[" + (ev.texts || []).map(function (t) { return fields([["node", goString(t.node)], ["text", goString(t.text)]]); }).join(",") + "]"]]);
  }

  // evidenceHTML is the manifest and artifact blocks (bundle.go).
  function evidenceHTML(m, arts, ids) {
    var s = m.seal;
    var sealJ = fields([["format", goValue(s.format)], ["run", goValue(s.run)], ["plan", goValue(s.plan)], ["head", goValue(s.head)],
      ["seq", goValue(s.seq)], ["artifacts", goValue(s.artifacts)]]);
    var sig = m.signature ? fields([["alg", goValue(m.signature.alg)], ["sig", goValue(m.signature.sig)], ["public_key", goValue(m.signature.public_key)]]) : null;
    var out = "<script type=\"application/json\" id=\"al-bundle\">" + fields([["format", goValue(m.format)], ["run", goValue(m.run)],
      ["seal_hash", goValue(m.seal_hash)], ["seal", sealJ], ["events", goValue(m.events)], sig ? ["signature", sig] : null]) + "<\/script>\n";
    var strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    ids.forEach(function (id) {
      var bytes = arts[id].bytes, body;
      try { body = ["text", goString(strict.decode(bytes))]; } catch (e) {
        var bin = "";
        for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
        body = ["b64", goString(btoa(bin))];
      }
      out += "<script type=\"application/json\" class=\"al-artifact\">" + fields([["id", goString(id)], body]) + "<\/script>\n";
    });
    return out;
  }

  // ---- markers (evidence/marker) ----
  // Go's unicode.IsSpace, for strings.TrimSpace and strings.Fields
  var SPACE = "\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
  var TRIM = new RegExp("^[" + SPACE + "]+|[" + SPACE + "]+$", "g"), FIELDS = new RegExp("[" + SPACE + "]+");
  function trim(s) { return s.replace(TRIM, ""); }
  function fieldsOf(s) { return s.split(FIELDS).filter(function (x) { return x !== ""; }); }
  function isName(s) { return /^[_a-zA-Z][_a-zA-Z0-9-]*$/.test(s); }
  // atoi is strconv.Atoi: an optional sign, decimal digits, within int64
  // (NaN otherwise); the value as a Number, which is exact for every row
  // a snapshot can have.
  function atoi(s) {
    if (!/^[+-]?[0-9]+$/.test(s)) return NaN;
    var n = BigInt(s);
    return n > 9223372036854775807n || n < -9223372036854775808n ? NaN : Number(n);
  }
  function isSnap(s, p) { return s.length >= 2 && s[0] === p && atoi(s.slice(1)) >= 1; }
  // goQ is strconv.Quote: printable runes as they are, the rest escaped.
  var PRINT = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
  function goQ(s) {
    var out = "\"";
    for (var ch of s) {
      var c = ch.codePointAt(0), hex = c.toString(16);
      if (ch === "\"" || ch === "\\") out += "\\" + ch;
      else if (PRINT.test(ch)) out += ch;
      else if (c === 7) out += "\\a"; else if (c === 8) out += "\\b"; else if (c === 12) out += "\\f";
      else if (c === 10) out += "\\n"; else if (c === 13) out += "\\r"; else if (c === 9) out += "\\t"; else if (c === 11) out += "\\v";
      else if (c < 0x20 || c === 0x7f) out += "\\x" + ("0" + hex).slice(-2);
      else if (c >= 0xd800 && c <= 0xdfff) out += "\\ufffd";
      else if (c < 0x10000) out += "\\u" + ("000" + hex).slice(-4);
      else out += "\\U" + ("0000000" + hex).slice(-8);
    }
    return out + "\"";
  }
  function cut(s, sep) { var i = s.indexOf(sep); return i < 0 ? [s, "", false] : [s.slice(0, i), s.slice(i + sep.length), true]; }
  function parseOne(body) {
    var c = cut(body, ":");
    if (!c[2]) return { err: "marker needs a kind prefix such as m:, v:, i:, table:, q:" };
    var kind = trim(c[0]), rest = c[1], m = { kind: kind }, t;
    switch (kind) {
      case "m":
        t = cut(rest, "|"); m.name = trim(t[0]);
        if (!isName(m.name)) return { err: "metric name " + goQ(m.name) + " is not a name" };
        m.unit = "";
        if (t[2]) {
          m.unit = trim(t[1]);
          if (["万", "亿", "千", "k", "K", "M", "B", "%"].indexOf(m.unit) < 0) return { err: "unknown display unit " + goQ(m.unit) + " (want one of 万 亿 千 k M B %)" };
        }
        return m;
      case "i":
        m.name = trim(rest);
        return isName(m.name) ? m : { err: "input name " + goQ(m.name) + " is not a name" };
      case "v":
        t = trim(rest); var p1 = cut(t, "."), p2 = cut(p1[1], ".");
        if (!p1[2] || !p2[2] || !isSnap(p1[0], "Q") || p2[0][0] !== "r") return { err: "cell marker must look like v:Q1.r0.column" };
        var row = atoi(p2[0].slice(1));
        if (isNaN(row) || row < 0) return { err: "row " + goQ(p2[0]) + " must be r followed by a row index" };
        if (p2[1] === "") return { err: "cell marker needs a column name" };
        m.snap = p1[0]; m.row = row; m.rowText = String(BigInt(p2[0].slice(1))); m.col = p2[1];
        return m;
      case "table":
        var fs = fieldsOf(rest);
        if (!fs.length || !isSnap(fs[0], "Q")) return { err: "table marker must start with a snapshot id such as Q1" };
        m.snap = fs[0]; m.from = 0; m.fromText = "0"; m.to = -1; m.cols = [];
        for (var i = 1; i < fs.length; i++) {
          var kv = cut(fs[i], "=");
          if (kv[2] && kv[0] === "cols") {
            kv[1].split(",").forEach(function (x) { x = trim(x); if (x) m.cols.push(x); });
          } else if (kv[2] && kv[0] === "rows") {
            var ab = cut(kv[1], "-"), from = atoi(ab[0]), to = ab[2] ? atoi(ab[1]) : from;
            if (isNaN(from) || isNaN(to) || from < 0 || to < from) return { err: "rows=" + kv[1] + " must be a range like rows=0-4" };
            m.from = from; m.to = to; m.fromText = String(BigInt(ab[0]));
          } else return { err: "unknown table option " + goQ(fs[i]) + " (want cols=… or rows=…)" };
        }
        return m;
      case "t":
        m.name = trim(rest);
        return isName(m.name) ? m : { err: "table name " + goQ(m.name) + " is not a name" };
      case "c":
        m.name = trim(rest); t = cut(m.name, ".");
        return (t[2] && isName(t[0]) && t[1] !== "") ? m : { err: "column marker must look like c:table.column" };
      case "q":
        t = cut(rest, "|"); var id = trim(t[0]);
        if (!t[2] || !isSnap(id, "K")) return { err: "quotation marker must look like q:K1|exact words" };
        if (trim(t[1]) === "") return { err: "quotation marker has no words" };
        m.snap = id; m.words = t[1];
        return m;
      case "see":
        return rest.split(",").some(function (g) { return trim(g) !== ""; }) ? m : { err: "see marker names no grounds" };
    }
    return { err: "unknown marker kind " + goQ(kind) + " (want m, i, v, table, t, c, q or see)" };
  }
  // parse splits src (UTF-8 bytes) into segments; offsets are bytes.
  function indexOf2(b, c, from) {
    for (var i = from; i + 1 < b.length; i++) if (b[i] === c && b[i + 1] === c) return i;
    return -1;
  }
  function parse(b) {
    var segs = [], errs = {}, pos = 0, str = function (a, z) { return dec.decode(b.subarray(a, z)); };
    while (pos < b.length) {
      var start = indexOf2(b, 0x5b, pos);
      if (start < 0) { segs.push({ text: str(pos, b.length), start: pos, end: b.length }); break; }
      if (start > pos) segs.push({ text: str(pos, start), start: pos, end: start });
      var j = indexOf2(b, 0x5d, start + 2), next = indexOf2(b, 0x5b, start + 2), end;
      if (j < 0 || (next >= 0 && next < j)) {
        end = next >= 0 ? next : b.length;
        errs[start] = "marker is not closed with ]]";
        segs.push({ text: str(start, end), start: start, end: end });
        pos = end;
        continue;
      }
      end = j + 2;
      var raw = str(start, end), m = parseOne(str(start + 2, end - 2));
      if (m.err) { errs[start] = m.err; segs.push({ text: raw, start: start, end: end }); }
      else { m.raw = raw; m.start = start; m.end = end; segs.push({ marker: m, start: start, end: end }); }
      pos = end;
    }
    return { segs: segs, errs: errs };
  }
  var CLOSERS = ".,;:!?)。，；：！？";
  function isSee(sg) { return sg.marker && sg.marker.kind === "see"; }
  function trimSee(segs) {
    var out = segs.map(function (s) { return Object.assign({}, s); });
    for (var i = 1; i < out.length; i++) {
      if (!isSee(out[i]) || out[i - 1].marker) continue;
      var j = i + 1;
      while (j < segs.length && isSee(segs[j])) j++;
      var closes = j === segs.length || (!segs[j].marker && (" \t\n\r".indexOf(segs[j].text[0]) >= 0 || CLOSERS.indexOf(String.fromCodePoint(segs[j].text.codePointAt(0))) >= 0));
      if (closes) {
        var t = out[i - 1].text.replace(/[ \t]+$/, "");
        out[i - 1].end -= enc.encode(out[i - 1].text).length - enc.encode(t).length;
        out[i - 1].text = t;
      }
    }
    return out.filter(function (s) { return s.marker || s.text !== ""; });
  }

  // ---- names (evidence/names.go, render/names.go) ----
  // goLower is strings.ToLower, sqlNames evidence.sqlNames: report.js
  // holds them, for its panel too.
  function goLower(s) { return AL.goLower(s); }
  function sqlNames(sql) { return AL.sqlNames(sql); }
  // goText is a string field as encoding/json decodes it into a Go
  // string: "" when it is no string, lone surrogates as U+FFFD.
  function goText(x) {
    if (typeof x !== "string") return "";
    if (!/[\ud800-\udfff]/.test(x)) return x;
    var out = "";
    for (var ch of x) { var c = ch.codePointAt(0); out += c >= 0xd800 && c <= 0xdfff ? "\ufffd" : ch; }
    return out;
  }
  // editDistance is diag.EditDistance: optimal string alignment over runes.
  function editDistance(a, b) {
    var ra = Array.from(a), rb = Array.from(b), pp = [], prev = [], cur = [], i, j, t;
    for (j = 0; j <= rb.length; j++) { prev.push(j); pp.push(0); cur.push(0); }
    for (i = 1; i <= ra.length; i++) {
      cur[0] = i;
      for (j = 1; j <= rb.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ra[i - 1] === rb[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && ra[i - 1] === rb[j - 2] && ra[i - 2] === rb[j - 1]) cur[j] = Math.min(cur[j], pp[j - 2] + 1);
      }
      t = pp; pp = prev; prev = cur; cur = t;
    }
    return prev[rb.length];
  }
  // nearest is evidence.nearest: up to three known names closest to name
  // (fewest edits, then byte order) as `; nearest: "a", "b"`.
  function nearest(name, known) {
    if (!known.length) return "";
    var l = goLower(name), cs = known.map(function (k) { return { s: k, d: editDistance(l, goLower(k)) }; });
    cs.sort(function (x, y) { return x.d !== y.d ? x.d - y.d : cmpBytes(x.s, y.s); });
    return "; nearest: " + cs.slice(0, 3).map(function (c) { return goQ(c.s); }).join(", ");
  }
  // isRefName is evidence.isName: an identifier, or two joined by one dot.
  function isRefName(s) { return /^[_a-zA-Z][_a-zA-Z0-9]*(\.[_a-zA-Z][_a-zA-Z0-9]*)?$/.test(s); }
  // Names is evidence.NamesOf: the tables the snapshots read, the columns
  // of each, every name (for suggestions) and the other names a bare
  // `name` may be (text values of the snapshots, extra).
  function Names(snaps, extra) {
    var self = this, seenAll = new Set();
    this.cols = new Map(); this.tables = []; this.all = []; this.extra = new Set();
    function addAll(s) { var l = goLower(s); if (!seenAll.has(l)) { seenAll.add(l); self.all.push(s); } }
    snaps.forEach(function (s) {
      if (!s || goText(s.tool) === "merge") return;
      (Array.isArray(s.rows) ? s.rows : []).forEach(function (row) {
        (Array.isArray(row) ? row : []).forEach(function (v) {
          if (typeof v === "string" && isRefName(v)) self.extra.add(goLower(v));
        });
      });
      var sn = sqlNames(goText(s.sql)), tables = sn.tables, source = goText(s.source);
      if (source !== "") tables = [source].concat(tables);
      var cols = (Array.isArray(s.columns) ? s.columns.map(goText) : []).concat(sn.idents);
      tables.forEach(function (t) {
        var lt = goLower(t);
        if (!self.cols.has(lt)) { self.cols.set(lt, new Set()); self.tables.push(t); addAll(t); }
        cols.forEach(function (c) { self.cols.get(lt).add(goLower(c)); addAll(c); });
      });
    });
    this.tables.sort(cmpBytes);
    this.all.sort(cmpBytes);
    extra.forEach(function (e) { self.extra.add(goLower(e)); });
  }
  // table is Names.Table: why name is not a table of the run ("" when it is).
  Names.prototype.table = function (name) {
    if (this.cols.has(goLower(name))) return "";
    return "no snapshot of the run queries table " + goQ(name) + nearest(name, this.tables);
  };
  // column is Names.Column: why "table.column" is not a column of the run.
  Names.prototype.column = function (ref) {
    var tc = cut(ref, "."), cols = this.cols.get(goLower(tc[0]));
    if (!cols) return this.table(tc[0]);
    if (cols.has(goLower(tc[1]))) return "";
    var known = this.all.filter(function (x) { return cols.has(goLower(x)); });
    return "no snapshot of table " + goQ(tc[0]) + " has a column " + goQ(tc[1]) + nearest(tc[1], known);
  };
  // bare is Names.bare: a table, a column of any table or an extra name.
  Names.prototype.bare = function (name) {
    var l = goLower(name);
    if (this.extra.has(l) || this.cols.has(l)) return true;
    for (var cols of this.cols.values()) if (cols.has(l)) return true;
    return false;
  };
  // backticked is Names.Backticked over the bytes b[start:end]: the names
  // in backticks the evidence does not know, with byte offsets into b.
  Names.prototype.backticked = function (b, start, end) {
    var out = [], i = start, a, z, name, why;
    while (i < end) {
      a = b.indexOf(0x60, i);
      if (a < 0 || a >= end) break;
      z = b.indexOf(0x60, a + 1);
      if (z < 0 || z >= end) break;
      name = dec.decode(b.subarray(a + 1, z));
      i = z + 1;
      if (!isRefName(name)) continue;
      why = "";
      if (name.indexOf(".") >= 0) why = this.column(name);
      else if (!this.bare(name)) why = "no snapshot of the run has a table or column " + goQ(name) + ", and it is no metric or input" + nearest(name, this.all);
      if (why) out.push({ start: a, end: z + 1, text: dec.decode(b.subarray(a, z + 1)), reason: why });
    }
    return out;
  };

  // ---- resolve (render/resolve.go) ----
  function Doc(ev) {
    this.ev = ev;
    this.snap = {}; this.hit = {};
    var self = this;
    ev.snapshots.forEach(function (s) { self.snap[s.id] = s.data; });
    ev.hits.forEach(function (h) { self.hit[h.id] = h.hit; });
  }
  Doc.prototype.metric = function (name) { // the first of that name in the last metric set defining it (Doc.Metric)
    for (var i = this.ev.metricsets.length - 1; i >= 0; i--) {
      var ms = this.ev.metricsets[i], list = (ms.data && ms.data.metrics) || [];
      for (var j = 0; j < list.length; j++) if (list[j].name === name) return { mv: list[j], set: ms.node };
    }
    return null;
  };
  function colIndex(s, c) { return (s.columns || []).indexOf(c); }
  function isMasked(s, c, v) { return (s.masked || []).indexOf(c) >= 0 && v === "***"; }
  function violationText(v) { return v.message ? v.kind + ": " + v.message : v.kind; }
  // covering is render.covering: the first violation spanning start..end.
  function covering(vs, start, end) {
    for (var i = 0; i < vs.length; i++) if (vs[i].start <= start && vs[i].end >= end && vs[i].end > vs[i].start) return vs[i];
    return null;
  }
  // nameSet is Doc.nameSet: the snapshots' names, with the metrics and
  // inputs as other names a bare `name` may be.
  Doc.prototype.nameSet = function () {
    if (this.names) return this.names;
    var extra = [];
    this.ev.metricsets.forEach(function (ms) {
      ((ms.data && ms.data.metrics) || []).forEach(function (m) { extra.push(goText(m && m.name)); });
    });
    Object.keys(this.ev.inputs || {}).forEach(function (k) { extra.push(k); });
    this.names = new Names(this.ev.snapshots.map(function (s) { return s.data; }), extra);
    return this.names;
  };
  // unknownNames is Doc.unknownNames: the backticked names of one text
  // segment the evidence does not know, as violations, unless a recorded
  // violation already covers them.
  Doc.prototype.unknownNames = function (vs, b, start, end) {
    return this.nameSet().backticked(b, start, end).filter(function (u) { return !covering(vs, u.start, u.end); })
      .map(function (u) { return { start: u.start, end: u.end, kind: "unknown_name", text: u.text, message: u.reason }; });
  };
  Doc.prototype.fill = function (m) {
    var p = { start: m.start, end: m.end, text: m.raw, mark: "" }, s, j;
    function unresolved(msg) { p.kind = "s"; p.text = m.raw; p.mark = "unresolved: " + msg; return p; }
    switch (m.kind) {
      case "see": return null;
      case "m":
        var f = this.metric(m.name);
        if (!f) return unresolved("no metric " + goQ(m.name) + " in the run's metric sets");
        var t = AL.formatMetric(f.mv, m.unit);
        p.kind = "m"; p.name = m.name; p.set = f.set; p.unit = m.unit; p.text = t === null ? "n/a" : t;
        if (t === null) p.mark = "metric " + goQ(m.name) + " has no value: " + (f.mv.error || "");
        return p;
      case "i":
        if (!Object.prototype.hasOwnProperty.call(this.ev.inputs, m.name)) return unresolved("no input " + goQ(m.name));
        p.kind = "i"; p.name = m.name; p.text = AL.formatInput(this.ev.inputs[m.name]);
        return p;
      case "v":
        s = this.snap[m.snap];
        if (!s) return unresolved("no snapshot " + m.snap);
        j = colIndex(s, m.col);
        if (j < 0) return unresolved("snapshot " + m.snap + " has no column " + goQ(m.col));
        if (m.row >= s.rows.length) return unresolved("snapshot " + m.snap + " has " + s.rows.length + " rows, no row " + m.rowText);
        var v = s.rows[m.row][j];
        p.kind = "v"; p.snap = m.snap; p.row = m.row; p.col = m.col; p.text = AL.formatCell(v);
        p.masked = isMasked(s, m.col, v); p.nul = v === null;
        return p;
      case "table":
        s = this.snap[m.snap];
        if (!s) return unresolved("no snapshot " + m.snap);
        var tb = { snap: m.snap, cols: [], idx: [], rows: [] }, cols = m.cols.length ? m.cols : s.columns;
        for (var i = 0; i < cols.length; i++) {
          j = colIndex(s, cols[i]);
          if (j < 0) return unresolved("snapshot " + m.snap + " has no column " + goQ(cols[i]));
          tb.cols.push(cols[i]); tb.idx.push(j);
        }
        var to = m.to;
        if (to < 0 || to >= s.rows.length) to = s.rows.length - 1;
        if (m.from >= s.rows.length && s.rows.length > 0) return unresolved("snapshot " + m.snap + " has " + s.rows.length + " rows, none from row " + m.fromText);
        for (var r = m.from; r <= to && tb.rows.length < 1000; r++) tb.rows.push(r);
        p.kind = "table"; p.snap = m.snap; p.table = tb; p.text = "";
        return p;
      case "t":
        p.kind = "t"; p.name = m.name; p.text = m.name;
        p.mark = this.nameSet().table(m.name);
        return p;
      case "c":
        p.kind = "c"; p.name = m.name; p.text = m.name;
        p.mark = this.nameSet().column(m.name);
        return p;
      case "q":
        var h = this.hit[m.snap];
        if (!h) return unresolved("no knowledge hit " + m.snap);
        p.kind = "q"; p.snap = m.snap; p.text = m.words;
        if (String(h.text).indexOf(m.words) < 0) p.mark = "the quotation does not appear verbatim in " + m.snap;
        return p;
    }
    return unresolved("unknown marker kind");
  };
  function boundary(b, i) { return i === 0 || i === b.length || (i > 0 && i < b.length && (b[i] & 0xc0) !== 0x80); }
  function splitText(b, start, end, vs) {
    var spans = [], parts = [], pos = start, str = function (a, z) { return dec.decode(b.subarray(a, z)); };
    vs.forEach(function (v) {
      var a = Math.max(v.start, start), z = Math.min(v.end, end);
      if (a >= z || !boundary(b, a) || !boundary(b, z)) return;
      spans.push({ a: a, b: z, msg: violationText(v) });
    });
    spans.sort(function (x, y) { return x.a - y.a; }); // stable in every current engine
    spans.forEach(function (s) {
      if (s.a < pos) return;
      if (s.a > pos) parts.push({ kind: "s", text: str(pos, s.a), start: pos, end: s.a, mark: "" });
      parts.push({ kind: "s", text: str(s.a, s.b), start: s.a, end: s.b, mark: s.msg });
      pos = s.b;
    });
    if (pos < end) parts.push({ kind: "s", text: str(pos, end), start: pos, end: end, mark: "" });
    return parts;
  }
  Doc.prototype.resolve = function (rep) {
    var src = typeof rep.source === "string" ? rep.source : "", b = enc.encode(src), pr = parse(b), parts = [], self = this;
    var vs = (rep.violations || []).filter(function (v) { return v && typeof v.start === "number" && typeof v.end === "number"; });
    trimSee(pr.segs).forEach(function (sg) {
      if (!sg.marker) {
        if (Object.prototype.hasOwnProperty.call(pr.errs, sg.start)) { parts.push({ kind: "s", text: sg.text, start: sg.start, end: sg.end, mark: pr.errs[sg.start] }); return; }
        parts.push.apply(parts, splitText(b, sg.start, sg.end, vs.concat(self.unknownNames(vs, b, sg.start, sg.end))));
        return;
      }
      var p = self.fill(sg.marker), v;
      if (!p) return;
      if (!p.mark && (v = covering(vs, sg.marker.start, sg.marker.end))) p.mark = violationText(v);
      parts.push(p);
    });
    return parts;
  };

  // ---- the readable report (render/html.go Body) ----
  function W() { this.b = []; }
  W.prototype.s = function (x) { this.b.push(x); };
  W.prototype.t = function (x) { this.b.push(esc(x)); };
  W.prototype.a = function (k, v) { this.b.push(" " + k + "=\"" + esc(v) + "\""); };
  W.prototype.table = function (s, id, t, a, z) {
    this.s("<table class=\"al-table\"");
    this.a("data-k", "table");
    if (a !== "") { this.a("data-a", a); this.a("data-b", z); }
    this.a("data-q", id);
    this.s("><thead><tr>");
    var w = this;
    t.cols.forEach(function (c) {
      w.s("<th"); w.a("class", "al-ref"); w.a("tabindex", "0"); w.a("data-k", "h"); w.a("data-q", id); w.a("data-c", c); w.s(">"); w.t(c); w.s("</th>");
    });
    w.s("</tr></thead><tbody>");
    t.rows.forEach(function (i) {
      w.s("<tr>");
      t.idx.forEach(function (j, k) {
        var v = s.rows[i][j], cls = "al-ref";
        if (typeof v !== "string" && v !== null) cls += " al-num";
        if (isMasked(s, t.cols[k], v)) cls += " al-masked";
        if (v === null) cls += " al-null";
        w.s("<td"); w.a("class", cls); w.a("tabindex", "0"); w.a("data-k", "v"); w.a("data-q", id); w.a("data-r", String(i)); w.a("data-c", t.cols[k]); w.s(">");
        w.t(AL.formatCell(v)); w.s("</td>");
      });
      w.s("</tr>");
    });
    w.s("</tbody></table>");
  };
  var TAGS = { m: "span", i: "span", v: "span", t: "code", c: "code", q: "q" };
  W.prototype.part = function (doc, p) {
    if (p.mark) { this.s("<mark class=\"al-violation\""); this.a("title", p.mark); this.s(">"); }
    if (p.kind === "s") {
      this.s("<span data-k=\"s\""); this.a("data-a", String(p.start)); this.a("data-b", String(p.end)); this.s(">"); this.t(p.text); this.s("</span>");
    } else if (p.kind === "table") {
      this.table(doc.snap[p.snap], p.snap, p.table, String(p.start), String(p.end));
    } else {
      var tag = TAGS[p.kind], cls = "al-ref";
      if (p.kind === "m" || p.kind === "v") cls += " al-num";
      if (p.masked) cls += " al-masked";
      if (p.nul) cls += " al-null";
      this.s("<" + tag); this.a("class", cls); this.a("tabindex", "0"); this.a("data-k", p.kind);
      this.a("data-a", String(p.start)); this.a("data-b", String(p.end));
      if (p.kind === "m") { this.a("data-n", p.name); this.a("data-set", p.set); if (p.unit) this.a("data-u", p.unit); }
      else if (p.kind === "v") { this.a("data-q", p.snap); this.a("data-r", String(p.row)); this.a("data-c", p.col); }
      else if (p.kind === "q") this.a("data-q", p.snap);
      else this.a("data-n", p.name);
      this.s(">"); this.t(p.text); this.s("</" + tag + ">");
    }
    if (p.mark) this.s("</mark>");
  };
  // runText is evidence/render/runtext.go: the run's outputs and every
  // model node's answer.
  function runText(w, ev) {
    var outs = ev.outputs || {}, names = Object.keys(outs).sort(cmpBytes), texts = ev.texts || [];
    w.s("<section class=\"al-run\">\n<h2 class=\"al-label\">Outputs</h2>\n");
    if (!names.length) w.s("<p class=\"al-label\">This run returned no outputs.</p>\n");
    else {
      w.s("<dl class=\"al-outputs\">\n");
      names.forEach(function (k) {
        w.s("<dt"); w.a("data-k", "on"); w.a("data-n", k); w.s(">"); w.t(k);
        w.s("</dt><dd class=\"al-text\""); w.a("data-k", "o"); w.a("data-n", k); w.s(">"); w.t(AL.formatInput(outs[k])); w.s("</dd>\n");
      });
      w.s("</dl>\n");
    }
    if (texts.length) {
      w.s("<h2 class=\"al-label\">Model answers</h2>\n");
      texts.forEach(function (nt, i) {
        w.s("<article><h3"); w.a("data-k", "node"); w.a("data-n", nt.node); w.s(">"); w.t(nt.node);
        w.s("</h3>\n<div class=\"al-text al-answer\""); w.a("data-k", "x"); w.a("data-i", String(i)); w.s(">"); w.t(nt.text); w.s("</div>\n</article>\n");
      });
    }
    w.s("</section>\n");
  }
  function title(meta) { return meta.flow ? "Report: " + meta.flow : "Report"; }
  function body(ev) {
    var doc = new Doc(ev), w = new W(), m = ev.meta;
    w.s("<main id=\"al-report\">\n<header>\n<h1 class=\"al-label\">"); w.t(title(m)); w.s("</h1>\n<dl class=\"al-meta\">\n");
    ["run", "seal", "plan", "kind", "tier", "status", "head"].forEach(function (f) {
      if (!m[f]) return;
      w.s("<dt class=\"al-label\">" + f + "</dt><dd"); w.a("data-k", "f"); w.a("data-n", f); w.s(">"); w.t(m[f]); w.s("</dd>\n");
    });
    if (m.tier_reasons && m.tier_reasons.length) {
      w.s("<dt class=\"al-label\">tier reasons</dt><dd><ul class=\"al-reasons\">");
      m.tier_reasons.forEach(function (r, i) { w.s("<li"); w.a("data-k", "tr"); w.a("data-i", String(i)); w.s(">"); w.t(r); w.s("</li>"); });
      w.s("</ul></dd>\n");
    }
    if (!m.head) w.s("<dt class=\"al-label\">seal</dt><dd class=\"al-label al-bad\">not sealed: the run has no run.finished event</dd>\n");
    w.s("</dl>\n</header>\n");
    w.s("<section class=\"al-narrative\">\n<h2 class=\"al-label\">Narrative</h2>\n");
    if (!ev.reports.length) w.s("<p class=\"al-label\">This run has no report node.</p>\n");
    ev.reports.forEach(function (r) {
      w.s("<article><h3"); w.a("data-k", "node"); w.a("data-n", r.node); w.s(">"); w.t(r.node);
      w.s("</h3>\n<div class=\"al-text\""); w.a("data-node", r.node); w.s(">");
      doc.resolve(r.data).forEach(function (p) { w.part(doc, p); });
      w.s("</div>\n</article>\n");
    });
    w.s("</section>\n");
    runText(w, ev);
    w.s("<section class=\"al-metrics\">\n<h2 class=\"al-label\">Metrics</h2>\n");
    if (!ev.metricsets.length) w.s("<p class=\"al-label\">This run computed no metrics.</p>\n");
    ev.metricsets.forEach(function (ms) {
      w.s("<table class=\"al-table\"><caption"); w.a("data-k", "node"); w.a("data-n", ms.node); w.s(">"); w.t(ms.node);
      w.s("</caption>\n<thead><tr><th class=\"al-label\">metric</th><th class=\"al-label\">value</th><th class=\"al-label\">formula</th></tr></thead>\n<tbody>\n");
      ((ms.data && ms.data.metrics) || []).forEach(function (mv) {
        var t = AL.formatMetric(mv, "");
        w.s("<tr><td"); w.a("data-k", "mn"); w.a("data-n", mv.name); w.a("data-set", ms.node); w.s(">"); w.t(mv.name); w.s("</td><td");
        w.a("class", t === null ? "al-ref al-num al-violation" : "al-ref al-num"); w.a("tabindex", "0");
        w.a("data-k", "m"); w.a("data-n", mv.name); w.a("data-set", ms.node); w.s(">"); w.t(t === null ? "n/a" : t);
        w.s("</td><td><code"); w.a("data-k", "mf"); w.a("data-n", mv.name); w.a("data-set", ms.node); w.s(">"); w.t(mv.formula || "");
        w.s("</code></td></tr>\n");
      });
      w.s("</tbody></table>\n");
    });
    w.s("</section>\n");
    w.s("<section class=\"al-evidence\">\n<h2 class=\"al-label\">Evidence</h2>\n");
    ev.snapshots.forEach(function (x) {
      var s = x.data, n = Math.min(s.rows.length, 20), rows = [], idx = [];
      for (var i = 0; i < n; i++) rows.push(i);
      s.columns.forEach(function (c, j) { idx.push(j); });
      w.s("<h3"); w.a("id", "al-" + x.id); w.a("data-k", "sid"); w.a("data-q", x.id); w.s(">"); w.t(x.id);
      w.s("</h3>\n<p><span class=\"al-label\">source </span><code"); w.a("class", "al-ref"); w.a("tabindex", "0"); w.a("data-k", "t"); w.a("data-n", s.source); w.s(">"); w.t(s.source);
      w.s("</code></p>\n<pre"); w.a("data-k", "sql"); w.a("data-q", x.id); w.s(">"); w.t(s.sql); w.s("</pre>\n");
      w.table(s, x.id, { cols: s.columns, idx: idx, rows: rows }, "", "");
      w.s("<p"); w.a("class", "al-note"); w.a("data-k", "rc"); w.a("data-q", x.id); w.s(">");
      w.t(n + " of " + s.rows.length + " rows shown" + (s.truncated ? "; the query result was truncated at the row cap" : "")); w.s("</p>\n");
    });
    ev.hits.forEach(function (x) {
      w.s("<h3"); w.a("id", "al-" + x.id); w.a("data-k", "sid"); w.a("data-q", x.id); w.s(">"); w.t(x.id);
      w.s("</h3>\n<p"); w.a("data-k", "kp"); w.a("data-q", x.id); w.s(">"); w.t(x.hit.path);
      w.s("</p>\n<blockquote"); w.a("data-k", "kt"); w.a("data-q", x.id); w.s(">"); w.t(x.hit.text); w.s("</blockquote>\n");
    });
    if (ev.snapshots.length + ev.hits.length === 0) w.s("<p class=\"al-label\">This run recorded no evidence.</p>\n");
    w.s("</section>\n</main>\n");
    return w.b.join("");
  }

  // document returns the whole bundle.html, as text, for the evidence ev,
  // the manifest m, the artifacts (arts, ids sorted), the script's own
  // text and the policy its hashes give.
  function documentHTML(ev, m, arts, ids, script, csp) {
    var slots = { title: esc("Bundle: " + title(ev.meta)), csp: esc(csp), before: AL_PENDING, body: body(ev), data: dataJSON(ev),
      after: evidenceHTML(m, arts, ids), script: script };
    return AL_LAYOUT.replace(/\u0000([a-z]+)\u0000/g, function (all, k) { return slots[k]; });
  }
  return { parseMarker: parseOne, names: function (snaps, extra) { return new Names(snaps, extra); }, trim: trim, documentHTML: documentHTML, body: body, dataJSON: dataJSON, goString: goString, title: title };
})();
