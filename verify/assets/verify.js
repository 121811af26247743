// agentlab bundle verifier: the checks of `agentlab verify`, in the
// browser, offline. Needs BLAKE3 (blake3.js) and AL (report.js) before it.
// Check names and rules follow verify/verify.go and docs/verify.md.
(function () {
  "use strict";
  var status = {};
  window.ALVerifyStatus = function (id) { return id ? (status[id] || null) : null; };
  // the script's own text (pinned by the page's policy) and the document
  // as the file gave it, before anything — a click, a late script — can
  // change it
  var SELF = document.currentScript ? document.currentScript.textContent : "";
  var pristine = null;
  var enc = new TextEncoder();
  var ID = /^b3:[0-9a-f]{64}$/;
  var TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
  var checks = [], fails = {};
  function fail(name, msg) { (fails[name] = fails[name] || []).push(msg); }
  function done(name, okDetail) {
    var f = fails[name] || [];
    if (!f.length) { checks.push({ name: name, ok: true, detail: okDetail }); return; }
    var shown = f.slice(0, 5);
    if (f.length > 5) shown.push("and " + (f.length - 5) + " more");
    checks.push({ name: name, ok: false, detail: shown.join("; ") });
  }
  function short(s) { return ID.test(s) ? s.slice(3, 15) : JSON.stringify(s); }
  function b3(bytes) { return BLAKE3.b3(bytes); }
  function isObj(x) { return x !== null && typeof x === "object" && !Array.isArray(x); }
  function onlyKeys(o, allowed) {
    return Object.keys(o).every(function (k) { return allowed.indexOf(k) >= 0; });
  }
  function isArtifactKey(k) {
    return k === "artifact" || k === "artifacts" || /_artifacts?$/.test(k);
  }
  function collect(v, seen) {
    if (Array.isArray(v)) { v.forEach(function (x) { collect(x, seen); }); return; }
    if (!isObj(v)) return;
    Object.keys(v).forEach(function (k) {
      var x = v[k];
      if (isArtifactKey(k)) {
        if (typeof x === "string" && ID.test(x)) seen[x] = true;
        if (Array.isArray(x)) x.forEach(function (s) { if (typeof s === "string" && ID.test(s)) seen[s] = true; });
      }
      collect(x, seen);
    });
  }
  function utf8Bytes(s) { return enc.encode(s); }
  function fromB64(s) {
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function canonEq(a, b) { try { return AL.canon(a) === AL.canon(b); } catch (e) { return false; } }

  // seeGapOK reports whether the source bytes a..b of a report (src, its
  // UTF-8 bytes), which no part shows, are what the renderer leaves out:
  // see markers, each with the spaces and tabs before it that
  // marker.TrimSee (evidence/marker/see.go) drops — all of them when what
  // follows the marker, past see markers written right after it, is one
  // of . , ; : ! ? ) 。，；：！？, white space or the end of the text, and
  // none otherwise.
  var SEE_ITEM = /^([ \t]*)\[\[((?:(?!\]\]|\[\[)[\s\S])*)\]\]/;
  var SEE_CLOSER = /^[ \t\r\n.,;:!?)\u3002\uff0c\uff1b\uff1a\uff01\uff1f]/;
  function seeGapOK(src, a, b) {
    var dec = new TextDecoder(), rest = dec.decode(src.subarray(a, b)), spaces = [], m;
    while (rest.length) {
      m = SEE_ITEM.exec(rest);
      if (!m || ALPage.parseMarker(m[2]).kind !== "see") return false; // parsed as evidence/marker parses it
      spaces.push(m[1]);
      rest = rest.slice(m[0].length);
    }
    if (!spaces.length) return false;
    var next = dec.decode(src.subarray(b, Math.min(b + 4, src.length)));
    var closes = b >= src.length || SEE_CLOSER.test(next);
    for (var k = spaces.length - 1; k >= 0; k--) {
      // closes: whether what follows marker k lets its spaces go
      if (spaces[k] !== "" && !closes) return false;
      if (k === 0 && closes && a > 0 && (src[a - 1] === 0x20 || src[a - 1] === 0x09)) return false;
      if (spaces[k] !== "") closes = true;
    }
    return true;
  }

  // markerMismatch compares the attributes of a report element with the
  // marker it was rendered from (parsed as evidence/marker parses it);
  // "" when they agree.
  function markerMismatch(el, raw) {
    var k = el.getAttribute("data-k"), g = function (a) { return el.getAttribute(a) || ""; }, mk;
    if (k === "s") return "";
    if (raw.slice(0, 2) !== "[[" || raw.slice(-2) !== "]]") return "the source at bytes " + g("data-a") + "-" + g("data-b") + " is not a marker";
    mk = ALPage.parseMarker(raw.slice(2, -2));
    if (mk.err) return "the source at bytes " + g("data-a") + "-" + g("data-b") + " is not a marker";
    if (mk.kind !== k) return "kind " + k + " for marker " + raw;
    var same = k === "m" ? mk.name === g("data-n") && mk.unit === g("data-u") :
      (k === "i" || k === "t" || k === "c") ? mk.name === g("data-n") :
      k === "v" ? mk.snap === g("data-q") && String(mk.row) === g("data-r") && mk.col === g("data-c") :
      (k === "q" || k === "table") ? mk.snap === g("data-q") : true;
    return same ? "" : "marker " + raw;
  }

  async function run() {
    var m = null, arts = {}, order = [], i;
    // ---- bundle ----
    try {
      m = JSON.parse(pristine.getElementById("al-bundle").textContent);
      if (!isObj(m) || !onlyKeys(m, ["format", "run", "seal_hash", "seal", "events", "signature"])) throw new Error("unexpected keys");
      if (!Array.isArray(m.events) || !isObj(m.seal) || typeof m.run !== "string" || typeof m.seal_hash !== "string") throw new Error("missing fields");
      if (!onlyKeys(m.seal, ["format", "run", "plan", "head", "seq", "artifacts"])) throw new Error("unexpected keys in the seal");
      if (m.signature !== undefined && m.signature !== null && (!isObj(m.signature) || !onlyKeys(m.signature, ["alg", "sig", "public_key"]))) throw new Error("unexpected signature");
      if (m.format !== 1) fail("bundle", "bundle format " + m.format + " is not 1; use a matching agentlab");
    } catch (e) {
      fail("bundle", "the embedded manifest (al-bundle) is unreadable: " + e.message);
      m = { events: [], seal: { artifacts: [] }, run: "", seal_hash: "" };
    }
    var sealArtifactsNull = m.seal.artifacts === null; // Go writes a nil list back as null
    if (!Array.isArray(m.seal.artifacts)) m.seal.artifacts = [];
    var blocks = pristine.querySelectorAll("script.al-artifact");
    for (i = 0; i < blocks.length; i++) {
      try {
        var a = JSON.parse(blocks[i].textContent);
        if (!isObj(a) || !onlyKeys(a, ["id", "text", "b64"])) throw new Error("unexpected keys");
        var hasT = typeof a.text === "string", hasB = typeof a.b64 === "string";
        if (hasT === hasB) { fail("bundle", "embedded artifact block " + (i + 1) + " (" + a.id + ") needs exactly one of text and b64"); continue; }
        if (Object.prototype.hasOwnProperty.call(arts, a.id)) fail("bundle", "artifact " + a.id + " is embedded twice");
        else order.push(a.id);
        arts[a.id] = { bytes: hasT ? utf8Bytes(a.text) : fromB64(a.b64), text: hasT ? a.text : null };
      } catch (e) { fail("bundle", "embedded artifact block " + (i + 1) + " is unreadable: " + e.message); }
    }
    done("bundle", "format 1, " + m.events.length + " events, " + order.length + " artifacts");

    // ---- artifacts ----
    var good = {};
    order.forEach(function (id) {
      if (!ID.test(id)) { fail("artifacts", "artifact id " + JSON.stringify(id) + " is not a hash id"); return; }
      var got = b3(arts[id].bytes);
      if (got !== id) { fail("artifacts", "artifact " + short(id) + " is altered: its bytes hash to " + short(got)); status[id] = "altered: this artifact does not hash to its id"; }
      else { good[id] = true; status[id] = "verified: the artifact re-hashes to its id"; }
    });
    done("artifacts", order.length + " artifacts re-hashed");
    function artText(id) {
      if (!good[id] && !Object.prototype.hasOwnProperty.call(arts, id)) return null;
      var a = arts[id];
      return a ? (a.text !== null ? a.text : new TextDecoder().decode(a.bytes)) : null;
    }

    // ---- events ----
    var evs = [], lineBad = false;
    for (i = 0; i < m.events.length; i++) {
      var line = m.events[i], e;
      try {
        if (typeof line !== "string") throw new Error("not a string");
        e = JSON.parse(line);
        if (!isObj(e) || !onlyKeys(e, ["seq", "time", "type", "node", "data", "prev", "hash"])) throw new Error("unknown keys");
        if (typeof e.seq !== "number" || e.seq === 0 || e.seq !== Math.trunc(e.seq) || typeof e.type !== "string" || e.type === "" ||
            typeof e.hash !== "string" || e.hash === "" || (e.prev !== undefined && typeof e.prev !== "string") ||
            (e.time !== undefined && typeof e.time !== "string") || (e.node !== undefined && typeof e.node !== "string")) throw new Error("bad fields");
      } catch (err) {
        fail("events", i === m.events.length - 1 ? "the last embedded event is not a whole event" : "bundle events:" + (i + 1) + ": " + err.message);
        lineBad = true;
        break;
      }
      if (e.prev === undefined) e.prev = "";
      if (e.time === undefined) e.time = "";
      var canonical = false;
      try { canonical = e.node !== "" && AL.canon(e) === line; } catch (err) { canonical = false; }
      e._canonical = canonical;
      e._line = i + 1;
      evs.push(e);
    }
    if (lineBad) evs = [];
    var end = -1;
    for (i = 0; i < evs.length; i++) if (evs[i].type === "run.finished") { end = i; break; }
    var sealed = end >= 0 ? evs.slice(0, end + 1) : evs;
    if (end < 0 && !lineBad) fail("events", "no run.finished event: the run is not sealed");
    var prevHash = b3(utf8Bytes("agentlab.chain.v1:" + m.run)), prevSeq = 0;
    sealed.forEach(function (e, i) {
      if (!e._canonical) fail("events", "event " + e.seq + ": line " + e._line + " is not in canonical JSON form");
      var want = prevSeq + 1;
      if (i === 0 && e.seq !== 1) fail("events", "event " + e.seq + ": first event has seq " + e.seq + ", want 1 (events before it are missing)");
      else if (e.seq > want) fail("events", "event " + want + ": missing: seq jumps from " + prevSeq + " to " + e.seq);
      else if (e.seq < want) fail("events", "event " + e.seq + ": out of order: seq " + e.seq + " follows seq " + prevSeq);
      if (e.prev !== prevHash) fail("events", "event " + e.seq + ": broken link: prev is " + short(e.prev) + (i === 0 ? ", want the genesis value" : ", but the event before it (seq " + prevSeq + ") has hash " + short(prevHash)));
      if (!TIME.test(e.time) || isNaN(Date.parse(e.time.slice(0, 23) + "Z"))) fail("events", "event " + e.seq + ": time " + JSON.stringify(e.time) + " is not RFC 3339 UTC with nine fractional digits");
      var o = {};
      Object.keys(e).forEach(function (k) { if (k !== "hash" && k[0] !== "_") o[k] = e[k]; });
      var h;
      try { h = b3(utf8Bytes(AL.canon(o))); } catch (err) { h = "cannot hash"; }
      if (h !== e.hash) fail("events", "event " + e.seq + ": bad hash: stored " + short(e.hash) + ", content hashes to " + short(h) + " (the event was altered)");
      prevHash = e.hash; prevSeq = e.seq;
    });
    done("events", sealed.length + " sealed events, chain intact");

    // ---- seal ----
    var sealHash = null;
    if (end >= 0) {
      var seen = {};
      sealed.forEach(function (e) { if (e.data !== undefined) collect(e.data, seen); });
      var head = sealed[end];
      var s = { format: 1, run: m.run, plan: m.seal.plan, head: head.hash, seq: head.seq, artifacts: Object.keys(seen).sort() };
      var claimedHash = "";
      try { claimedHash = b3(utf8Bytes(AL.canon(m.seal))); } catch (err) { claimedHash = ""; }
      sealHash = b3(utf8Bytes(AL.canon(s)));
      if (claimedHash !== m.seal_hash) fail("seal", "the recorded seal object hashes to " + short(claimedHash) + ", not to the recorded seal " + short(m.seal_hash));
      else if (sealHash !== m.seal_hash) fail("seal", "the events seal to " + short(sealHash) + ", but the recorded seal is " + short(m.seal_hash));
      if (fails.events && fails.events.length) fail("seal", "cannot recompute the seal: the event chain is broken");
    } else fail("seal", "cannot recompute the seal: run has no run.finished event");
    m.seal.artifacts.forEach(function (a) { if (!Object.prototype.hasOwnProperty.call(arts, a)) fail("seal", "sealed artifact " + short(a) + " is missing"); });
    var wantArts = {};
    m.seal.artifacts.forEach(function (a) { wantArts[a] = true; });
    if (typeof m.seal.plan === "string") wantArts[m.seal.plan] = true;
    sealed.forEach(function (e) { if (e.type === "run.started" && isObj(e.data) && typeof e.data.inputs_hash === "string" && e.data.inputs_hash) wantArts[e.data.inputs_hash] = true; });
    Object.keys(wantArts).forEach(function (a) {
      if (!Object.prototype.hasOwnProperty.call(arts, a) && m.seal.artifacts.indexOf(a) < 0 && a !== m.seal.plan) fail("seal", "the inputs artifact " + short(a) + " that run.started names is not in the bundle");
    });
    order.forEach(function (a) { if (!wantArts[a]) fail("seal", "artifact " + short(a) + " is embedded but is neither sealed nor the plan or the inputs"); });
    done("seal", "seal " + m.seal_hash + " over events 1-" + m.seal.seq + " and " + m.seal.artifacts.length + " artifacts");
    var inSeal = {};
    m.seal.artifacts.forEach(function (a) { inSeal[a] = true; });

    // ---- plan ----
    var planText = artText(m.seal.plan);
    if (typeof m.seal.plan !== "string" || !ID.test(m.seal.plan)) fail("plan", "the seal's plan " + JSON.stringify(m.seal.plan) + " is not a hash id");
    else if (planText === null) fail("plan", "plan " + short(m.seal.plan) + ": artifact " + short(m.seal.plan) + " is not in the bundle");
    else if (!good[m.seal.plan]) fail("plan", "plan " + short(m.seal.plan) + ": artifact is altered");
    else { try { JSON.parse(planText); } catch (err) { fail("plan", "plan " + short(m.seal.plan) + " is not JSON"); } }
    // the plan the events run under: run.started's, replaced by each later
    // run.resumed naming one (render.RunPlan)
    var runPlan = "", startedPlan = null;
    sealed.forEach(function (e) {
      var p = isObj(e.data) && typeof e.data.plan === "string" ? e.data.plan : "";
      if (e.type === "run.started") { runPlan = p; if (startedPlan === null) startedPlan = p; }
      else if (e.type === "run.resumed" && runPlan !== "" && p !== "") runPlan = p;
    });
    if (runPlan !== m.seal.plan) fail("plan", "the events run under plan " + short(runPlan) + " (" + (runPlan === startedPlan ? "run.started" : "run.resumed") + " names it), not the seal plan " + short(m.seal.plan));
    done("plan", "plan " + m.seal.plan + (startedPlan !== null && startedPlan !== m.seal.plan ? "; resumed under it; started under plan " + short(startedPlan) : ""));

    // ---- evidence as the events say ----
    var ledger = [], sets = [], reps = [], meta = { plan: "" }, inputs = {}, loadErr = null;
    // what the run produced, as evidence/render (runtext.go) reads it:
    // the outputs of run.finished and every model node's answer
    var outputs = {}, texts = [];
    var evSnaps = [], evHits = [], evSets = [], evReps = []; // the evidence, as the page renders it
    // contracted outputs and the reasons of those not formal, as
    // evidence/render (tier.go) gathers them for meta.tier_reasons
    var ctNodes = [], ctBad = {}, ctOrder = [];
    function addContract(node, c) {
      if (!isObj(c) || typeof c.tier !== "string" || c.tier === "") return;
      if (ctNodes.indexOf(node) < 0) ctNodes.push(node);
      if (c.tier === "formal") return;
      if (!Object.prototype.hasOwnProperty.call(ctBad, node)) { ctBad[node] = []; ctOrder.push(node); }
      var rs = isObj(c.issuance) && Array.isArray(c.issuance.reasons) ? c.issuance.reasons : [];
      rs.forEach(function (r) { if (typeof r === "string") ctBad[node].push(r); });
    }
    function contractReasons() {
      var out = [];
      ctOrder.forEach(function (n) {
        ctBad[n].forEach(function (r) {
          if (ctNodes.length > 1) r = "output " + n + ": " + r;
          if (out.indexOf(r) < 0) out.push(r);
        });
      });
      return out;
    }
    function str(d, k) { return isObj(d) && typeof d[k] === "string" ? d[k] : ""; }
    var getJSON = function (what, id) {
      if (!ID.test(id)) throw new Error(what + ": artifact id " + JSON.stringify(id) + " is not a hash id");
      if (!Object.prototype.hasOwnProperty.call(arts, id)) throw new Error(what + ": artifact " + short(id) + " is not in the bundle");
      if (!good[id]) throw new Error(what + ": artifact " + short(id) + " is altered");
      return JSON.parse(artText(id));
    };
    try {
      sealed.forEach(function (e) {
        var d = e.data;
        if (e.type === "run.started") {
          meta.plan = str(d, "plan"); meta.flow = str(d, "flow"); meta.kind = str(d, "kind"); meta.tier = str(d, "tier");
          if (isObj(d) && isObj(d.inputs)) inputs = d.inputs;
          else if (str(d, "inputs_hash") && good[str(d, "inputs_hash")]) { try { var x = getJSON("inputs", str(d, "inputs_hash")); if (isObj(x)) inputs = x; } catch (err) { /* as Go: inputs stay empty */ } }
        } else if (e.type === "run.resumed") {
          if (meta.plan && str(d, "plan")) meta.plan = str(d, "plan");
        } else if (e.type === "evidence.added") {
          var ent = { id: str(d, "id"), kind: str(d, "kind"), artifact: str(d, "artifact") };
          ledger.push(ent);
          var obj = getJSON("evidence " + ent.id, ent.artifact);
          if (ent.kind === "query") {
            if (!isObj(obj) || obj.id !== ent.id) throw new Error("evidence " + ent.id + ": the artifact holds snapshot " + (obj && obj.id));
            if (!Array.isArray(obj.rows) || !Array.isArray(obj.columns)) throw new Error("evidence " + ent.id + ": the snapshot has no rows or columns");
            evSnaps.push({ id: ent.id, artifact: ent.artifact, raw: artText(ent.artifact), data: obj });
          } else if (ent.kind === "knowledge") {
            var hit = Array.isArray(obj) ? obj.filter(function (x) { return isObj(x) && x.id === ent.id; })[0] : obj;
            if (!isObj(hit) || hit.id !== ent.id) throw new Error("evidence " + ent.id + ": the artifact holds no hit " + ent.id);
            evHits.push({ id: ent.id, artifact: ent.artifact, raw: artText(ent.artifact), data: obj, hit: hit });
          } else throw new Error("evidence " + ent.id + ": unknown kind " + JSON.stringify(ent.kind));
        } else if (e.type === "node.finished") {
          if (isObj(d)) addContract(e.node || "", d.contract);
          if (isObj(d) && !Object.prototype.hasOwnProperty.call(d, "report_artifact") && isObj(d.output) && typeof d.output.text === "string" && Object.prototype.hasOwnProperty.call(d.output, "model")) texts.push({ node: e.node || "", text: d.output.text });
          if (str(d, "metrics_artifact")) {
            var msd = getJSON("metrics of node " + e.node, d.metrics_artifact);
            sets.push({ node: e.node || "", artifact: d.metrics_artifact });
            evSets.push({ node: e.node || "", artifact: d.metrics_artifact, raw: artText(d.metrics_artifact), data: msd });
          }
          if (str(d, "report_artifact")) {
            var rd = getJSON("report of node " + e.node, d.report_artifact);
            if (!isObj(rd)) throw new Error("report of node " + e.node + " is not an object");
            reps.push({ node: e.node || "", artifact: d.report_artifact });
            evReps.push({ node: e.node || "", artifact: d.report_artifact, raw: artText(d.report_artifact), data: rd });
          }
        } else if (e.type === "run.finished") {
          meta.status = str(d, "status");
          outputs = isObj(d) && isObj(d.outputs) ? d.outputs : {};
          if (str(d, "tier")) {
            meta.tier = str(d, "tier");
            if (meta.tier !== "formal") { var tr = contractReasons(); if (tr.length) meta.tier_reasons = tr; else delete meta.tier_reasons; }
          }
          if (str(d, "kind")) meta.kind = str(d, "kind");
          meta.head = e.hash; meta.seq = e.seq;
        }
      });
    } catch (err) { loadErr = err.message; }
    if (m.run) meta.run = m.run;
    if (sealHash && meta.head && meta.plan && !(fails.events && fails.events.length)) meta.seal = sealHash;
    Object.keys(meta).forEach(function (k) { if (meta[k] === "" && k !== "plan") delete meta[k]; });

    var d = null, expectedDoc = null, docDiff = null;
    try { d = AL.loadData(pristine.getElementById("al-data").textContent); } catch (err) { d = null; }

    // ---- ledger ----
    if (loadErr) fail("ledger", "cannot load the evidence: " + loadErr);
    var q = 0, k = 0;
    ledger.forEach(function (e) {
      var want = e.kind === "query" ? "Q" + (++q) : (e.kind === "knowledge" ? "K" + (++k) : "");
      if (e.id !== want) fail("ledger", "evidence " + e.id + " is out of order (expected " + want + ")");
      if (!inSeal[e.artifact]) fail("ledger", "evidence " + e.id + ": artifact " + short(e.artifact) + " is not under the seal");
    });
    done("ledger", ledger.length + " entries (" + q + " queries, " + k + " knowledge hits)");

    // ---- metrics ----
    var n = 0;
    if (loadErr) fail("metrics", "not checked: the evidence could not be loaded");
    else sets.forEach(function (s) {
      var ms = JSON.parse(artText(s.artifact)), snaps = {};
      ledger.forEach(function (e) { if (e.kind === "query") snaps[e.id] = JSON.parse(artText(e.artifact)); });
      (ms.metrics || []).forEach(function (mv) {
        n++;
        var name = "metric " + mv.name + " (node " + s.node + ")";
        if (mv.value === null || mv.value === undefined) {
          var computes = true;
          try { AL.calc(mv.substituted); } catch (err) { computes = false; }
          if (computes && !mv.error) fail("metrics", name + " has no value but its formula computes");
        } else {
          try {
            var got = AL.calc(mv.substituted);
            if (!AL.sameValue(got, mv.value)) fail("metrics", name + ": " + JSON.stringify(mv.substituted) + " recomputes to " + got + ", but the recorded value is " + mv.value);
          } catch (err) { fail("metrics", name + ": cannot recompute " + JSON.stringify(mv.substituted) + ": " + err.message); }
        }
        (mv.cells || []).forEach(function (c) {
          var sn = snaps[c.snapshot];
          if (!sn) { fail("metrics", name + " cites snapshot " + c.snapshot + ", which is not in the ledger"); return; }
          if (c.row === -1 && c.column === "") { if (c.value !== sn.rows.length) fail("metrics", name + " cites " + c.value + " rows of " + c.snapshot + ", the snapshot has " + sn.rows.length); return; }
          var j = sn.columns.indexOf(c.column);
          if (j < 0 || c.row < 0 || c.row >= sn.rows.length) { fail("metrics", name + " cites " + c.snapshot + " row " + c.row + " column " + JSON.stringify(c.column) + ", which does not exist"); return; }
          var v = sn.rows[c.row][j];
          if (v !== c.value) fail("metrics", name + " cites " + c.snapshot + " row " + c.row + " " + c.column + " = " + AL.formatCell(c.value) + ", but the snapshot holds " + AL.formatCell(v));
        });
      });
    });
    done("metrics", n + " metrics recomputed from their cited cells");

    // ---- the document the evidence renders to, compared with the page ----
    var ev = null;
    if (!loadErr && !lineBad && end >= 0) {
      ev = { meta: meta, inputs: inputs, ledger: ledger, snapshots: evSnaps, hits: evHits, metricsets: evSets, reports: evReps, outputs: outputs, texts: texts };
      var csp = "default-src 'none'; script-src '" + (await sha256Source(SELF)) + "'; style-src '" + (await sha256Source(AL_CSS)) +
        "'; img-src data:; base-uri 'none'; form-action 'none'";
      var want = null;
      try { want = ALPage.documentHTML(ev, sealArtifactsNull ? Object.assign({}, m, { seal: Object.assign({}, m.seal, { artifacts: null }) }) : m, arts, order.slice().sort(), SELF, csp); } catch (err) { docDiff = { check: "page", detail: "cannot render the bundle again: " + err.message }; }
      if (want !== null) {
        expectedDoc = new DOMParser().parseFromString(want, "text/html");
        docDiff = firstDifference(expectedDoc, pristine);
        // the same nodes under a doctype such as <!DOCTYPE html x> lay out in quirks mode
        if (!docDiff && document.compatMode !== "CSS1Compat") docDiff = { check: "page", detail: "the page renders in quirks mode: its doctype is not the bundle's <!DOCTYPE html>" };
      }
    }
    // ---- evidence: the report's data block is the sealed evidence ----
    if (!d) fail("evidence", "the report data embedded in the page (al-data) is unreadable");
    else if (loadErr) fail("evidence", "not compared: the evidence could not be loaded");
    else {
      var checkList = function (what, got, want, idKey) {
        if (!Array.isArray(got) || got.length !== want.length) { fail("evidence", "the report data lists " + (got ? got.length : 0) + " " + what + ", the sealed events " + want.length); return; }
        got.forEach(function (g, i) {
          var w = want[i], label = what + " " + (g[idKey] || i);
          if (g[idKey] !== w[idKey] || g.artifact !== w.artifact) { fail("evidence", label + " is not the sealed " + what.replace(/s$/, "") + " " + (w[idKey] || i)); return; }
          var h;
          try { h = b3(utf8Bytes(AL.canon(g.data))); } catch (err) { h = ""; }
          if (h !== g.artifact) fail("evidence", label + ": the report data does not hash to artifact " + short(g.artifact));
          if (!inSeal[g.artifact]) fail("evidence", label + ": artifact " + short(g.artifact) + " is not under the seal");
        });
      };
      checkList("snapshots", d.snapshots, ledger.filter(function (e) { return e.kind === "query"; }), "id");
      checkList("hits", d.hits, ledger.filter(function (e) { return e.kind === "knowledge"; }), "id");
      checkList("metricsets", d.metricsets, sets, "node");
      checkList("reports", d.reports, reps, "node");
      if (!canonEq(d.ledger, ledger)) fail("evidence", "the report data's ledger differs from the evidence.added events");
      if (!canonEq(d.meta, meta)) fail("evidence", "the report data's run facts (run, seal, plan, status…) differ from the sealed events");
      if (!canonEq(d.inputs, inputs)) fail("evidence", "the report data's inputs differ from run.started");
      if (!canonEq(d.outputs || {}, outputs)) fail("evidence", "the report data's outputs differ from run.finished");
      if (!canonEq(d.texts || [], texts)) fail("evidence", "the report data's model answers differ from the node.finished events");
    }
    if (docDiff && docDiff.check === "evidence") fail("evidence", docDiff.detail);
    done("evidence", "the embedded report data is the sealed evidence");

    // ---- report: re-fill every item from the evidence and compare ----
    var main = pristine.getElementById("al-report");
    if (!main || !d) fail("report", "the visible report is missing");
    else {
      var names = { m: "number m:", v: "cell ", i: "input i:", s: "text", q: "quotation from ", h: "column name ", t: "name ", c: "name ", f: "field ", tr: "tier reason ", mf: "formula of metric ", mn: "metric name ", sql: "SQL of ", sid: "heading ", rc: "row count of ", kp: "path of ", kt: "text of ", node: "node ", on: "output name ", o: "output ", x: "model answer " };
      var itemName = function (el) {
        var kk = el.getAttribute("data-k"), g = function (a) { return el.getAttribute(a) || ""; };
        if (kk === "v") return "cell " + g("data-q") + ".r" + g("data-r") + "." + g("data-c");
        if (kk === "s") return "text at bytes " + g("data-a") + "-" + g("data-b");
        if (kk === "h") return "column name " + g("data-q") + "." + g("data-c");
        if (kk === "tr") return "tier reason " + g("data-i");
        if (kk === "x") return "model answer " + g("data-i");
        return (names[kk] || "item ") + (g("data-n") || g("data-q"));
      };
      var els = main.querySelectorAll("[data-k]");
      for (i = 0; i < els.length; i++) {
        var el = els[i], exp = AL.expected(d, el);
        if (exp === undefined) continue;
        if (exp === null) { fail("report", "report " + itemName(el) + " refers to evidence that does not exist"); continue; }
        if (el.textContent !== exp) fail("report", "report " + itemName(el) + " shows " + JSON.stringify(el.textContent) + ", but the sealed evidence renders " + JSON.stringify(exp));
      }
      // every text node belongs to an evidence item or a label
      var walker = pristine.createTreeWalker(main, NodeFilter.SHOW_TEXT), tn;
      while ((tn = walker.nextNode())) {
        if (!/\S/.test(tn.nodeValue)) continue;
        var p = tn.parentElement, own = p.closest("[data-k]");
        if (p.closest(".al-label")) continue;
        if (!own || own.getAttribute("data-k") === "table" || !main.contains(own)) fail("report", "the report shows text that no evidence item accounts for: " + JSON.stringify(tn.nodeValue.slice(0, 40)));
      }
      // each report's parts cover its whole source, in order
      d.reports.forEach(function (r) {
        var box = main.querySelector('.al-text[data-node="' + (r.node || "").replace(/["\\]/g, "") + '"]');
        if (!box || !r.data || typeof r.data.source !== "string") { fail("report", "report " + r.node + " is missing from the page"); return; }
        var src = utf8Bytes(r.data.source), pos = 0, dec = new TextDecoder();
        box.querySelectorAll("[data-a]").forEach(function (el) {
          if (el.parentElement.closest("[data-a]") && el.parentElement.closest("[data-a]") !== el && box.contains(el.parentElement.closest("[data-a]"))) return;
          var a0 = +el.getAttribute("data-a"), b0 = +el.getAttribute("data-b");
          if (a0 > pos) {
            if (!seeGapOK(src, pos, a0)) fail("report", "report " + r.node + ": source bytes " + pos + "-" + a0 + " are not shown");
          } else if (a0 < pos) fail("report", "report " + r.node + ": source bytes " + a0 + "-" + b0 + " are shown twice or out of order");
          var bad = markerMismatch(el, dec.decode(src.subarray(a0, b0)));
          if (bad) fail("report", "report " + itemName(el) + " does not show its marker: " + bad);
          pos = Math.max(pos, b0);
        });
        (r.data.violations || []).forEach(function (v) {
          var marked = false;
          box.querySelectorAll("[data-a]").forEach(function (el) {
            var a0 = +el.getAttribute("data-a"), b0 = +el.getAttribute("data-b");
            if (a0 < v.end && b0 > v.start && el.closest("mark.al-violation")) marked = true;
          });
          if (!marked && v.end > v.start) fail("report", "report " + r.node + ": the violation " + JSON.stringify(v.text) + " at bytes " + v.start + "-" + v.end + " is not marked");
        });
        if (pos < src.length) {
          if (!seeGapOK(src, pos, src.length)) fail("report", "report " + r.node + ": source bytes " + pos + "-" + src.length + " are not shown");
        }
      });
      // every metric is listed once
      var total = 0;
      d.metricsets.forEach(function (s) { total += ((s.data && s.data.metrics) || []).length; });
      var listed = main.querySelectorAll('section.al-metrics [data-k="m"]').length;
      if (listed !== total) fail("report", "the metric list shows " + listed + " values for " + total + " metrics");
      d.snapshots.forEach(function (s) {
        var rows = main.querySelectorAll('section.al-evidence table[data-q="' + s.id.replace(/["\\]/g, "") + '"] tbody tr').length;
        if (rows !== Math.min(20, s.data.rows.length)) fail("report", "the evidence appendix shows " + rows + " rows of " + s.id);
      });
    }
    if (docDiff && docDiff.check === "report") fail("report", docDiff.detail);
    done("report", "every number, cell, name and quotation of the visible report re-fills from the sealed evidence");

    // ---- page: the whole document is the one its evidence renders to ----
    // (compared above; the difference belongs to the check of its part)
    if (!docDiff) { if (!ev) fail("page", "not compared: the evidence could not be loaded"); }
    else if (docDiff.check === "page") fail("page", docDiff.detail);
    done("page", "the document is exactly the bundle its evidence renders to");

    // ---- signature ----
    if (m.signature) {
      var sg = m.signature;
      try {
        if (sg.alg !== "ed25519") throw new Error("signature algorithm " + JSON.stringify(sg.alg) + " is not ed25519");
        var pub = fromB64(sg.public_key), sig = fromB64(sg.sig);
        if (pub.length !== 32) throw new Error("the embedded public key is not a base64 ed25519 key");
        if (sig.length !== 64) throw new Error("the signature is not 64 bytes of base64");
        var key = await crypto.subtle.importKey("raw", pub, { name: "Ed25519" }, false, ["verify"]);
        var okSig = await crypto.subtle.verify({ name: "Ed25519" }, key, sig, utf8Bytes(m.seal_hash));
        if (!okSig) throw new Error("the signature by key ed25519:" + b3(pub).slice(3, 15) + " does not match seal " + m.seal_hash);
        done("signature", "signed by the embedded key ed25519:" + b3(pub).slice(3, 15) + "; check who signed with agentlab verify --pubkey");
      } catch (err) {
        fail("signature", err && err.message ? err.message : String(err));
        done("signature", "");
      }
    } else done("signature", "not signed: integrity against the seal only; compare the seal with one published elsewhere");

    // ---- post-seal ----
    if (end >= 0 && end < evs.length - 1) {
      var after = evs.slice(end + 1).map(function (e) { return e.seq + " " + e.type; });
      checks.push({ name: "post-seal", ok: true, detail: (evs.length - end - 1) + (evs.length - end - 1 === 1 ? " event" : " events") + " after the seal, not covered by it: " + after.slice(0, 5).join(", ") });
    } else checks.push({ name: "post-seal", ok: true, detail: "no events after the seal" });
    m0 = m;
    show(expectedDoc, ev && AL.loadData(ALPage.dataJSON(ev)));
  }

  // sha256Source is the CSP hash source of an inline block's text.
  async function sha256Source(text) {
    var h = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(text))), bin = "";
    for (var i = 0; i < h.length; i++) bin += String.fromCharCode(h[i]);
    return "sha256-" + btoa(bin);
  }

  // firstDifference compares the document the evidence renders to with
  // the one the file gave, node by node — every element, attribute, text,
  // comment and the doctype — and names the first difference and the
  // check it belongs to: the visible report (report), its data block
  // (evidence) or anything else (page).
  function firstDifference(want, got) {
    function where(n) {
      for (var x = n; x; x = x.parentNode) {
        if (x.nodeType !== 1) continue;
        if (x.id === "al-report") return "report";
        if (x.id === "al-data") return "evidence";
      }
      return "page";
    }
    function label(n) {
      if (!n) return "nothing";
      if (n.nodeType === 3) return "text " + JSON.stringify(n.nodeValue.slice(0, 40));
      if (n.nodeType === 8) return "a comment " + JSON.stringify(n.nodeValue.slice(0, 40));
      if (n.nodeType === 10) return "a doctype " + JSON.stringify(n.name);
      if (n.nodeType !== 1) return "a node of type " + n.nodeType;
      var s = "<" + n.tagName.toLowerCase();
      for (var i = 0; i < n.attributes.length && i < 4; i++) s += " " + n.attributes[i].name + "=" + JSON.stringify(n.attributes[i].value.slice(0, 30));
      return s + ">";
    }
    function path(n) {
      var out = [];
      for (var x = n; x && x.nodeType === 1; x = x.parentNode) {
        var k = x.getAttribute("data-k"), tag = x.tagName.toLowerCase() + (x.id ? "#" + x.id : "");
        if (k) tag += "[data-k=" + k + (x.getAttribute("data-n") ? " " + x.getAttribute("data-n") : "") + (x.getAttribute("data-a") ? " bytes " + x.getAttribute("data-a") + "-" + x.getAttribute("data-b") : "") + "]";
        out.unshift(tag);
        if (x.id) break;
      }
      return out.join(" > ");
    }
    function attrs(n) {
      var o = Object.create(null); // an attribute named __proto__ is an attribute like any other
      for (var i = 0; i < n.attributes.length; i++) o[n.attributes[i].name] = n.attributes[i].value;
      return o;
    }
    function cmp(w, g, parent) {
      if (!w || !g || w.nodeType !== g.nodeType || w.nodeName !== g.nodeName) {
        return { at: g || parent, detail: "shows " + label(g) + " where the bundle has " + label(w) };
      }
      if (w.nodeType === 3 || w.nodeType === 8) {
        if (w.nodeValue !== g.nodeValue) {
          var a = w.nodeValue, b = g.nodeValue, k = 0;
          while (k < a.length && a[k] === b[k]) k++;
          return { at: g, detail: "shows " + JSON.stringify(b.slice(Math.max(0, k - 20), k + 40)) + " where the bundle has " + JSON.stringify(a.slice(Math.max(0, k - 20), k + 40)) };
        }
        return null;
      }
      if (w.nodeType === 10) return (w.name === g.name && w.publicId === g.publicId && w.systemId === g.systemId) ? null : { at: parent, detail: "the doctype differs" };
      if (w.nodeType === 1) {
        var wa = attrs(w), ga = attrs(g), ks = Object.keys(wa).concat(Object.keys(ga));
        for (var i = 0; i < ks.length; i++) {
          var k = ks[i], gv = ga[k], wv = wa[k];
          if (wv === gv) continue;
          return { at: g, detail: gv === undefined ? "lacks attribute " + k :
            wv === undefined ? "has attribute " + k + "=" + JSON.stringify(gv.slice(0, 60)) + ", which the bundle does not have" :
            "has " + k + "=" + JSON.stringify(gv.slice(0, 60)) + " where the bundle has " + JSON.stringify(wv.slice(0, 60)) };
        }
      }
      var wc = w.childNodes, gc = g.childNodes;
      for (var j = 0; j < Math.max(wc.length, gc.length); j++) {
        var r = cmp(wc[j], gc[j], g);
        if (r) return r;
      }
      return null;
    }
    var r = cmp(want, got, got);
    if (!r) return null;
    var check = where(r.at), p = path(r.at && r.at.nodeType === 1 ? r.at : r.at && r.at.parentNode);
    var prefix = check === "report" ? "the visible report differs from what the sealed evidence renders to" :
      check === "evidence" ? "the report data embedded in the page (al-data) differs from the sealed evidence" :
      "the page differs from the bundle its evidence renders to";
    return { check: check, detail: prefix + (p ? " at " + p : "") + ": it " + r.detail };
  }

  // The verdict. The file's own "Not verified" notice and its unverified
  // copy of the report go; the verifier puts its verdict on top and, when
  // every check passes, the report it rendered from the evidence below it.
  // On any failure the page holds the failure and nothing else.
  function h(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text) e.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
  function verdictBox(ok, failing) {
    var sec = h("section", "", { id: "al-verdict", "class": "al-verdict", "data-status": ok ? "ok" : "fail", role: "status" });
    sec.appendChild(h("h2", ok ? "Verified" : "NOT VERIFIED"));
    sec.appendChild(h("p", ok
      ? "Everything in this file matches its seal " + m0.seal_hash + " (checked offline in this browser). The report below is the one this check rendered from the sealed evidence."
      : "This file does not match its seal: the " + failing.join(", ") + (failing.length > 1 ? " checks fail" : " check fails") + ". Its report is not shown. Run agentlab verify on the file for the details.", { id: "al-verdict-text" }));
    var list = h("ol", "", { id: "al-checks" });
    checks.forEach(function (c) {
      list.appendChild(h("li", (c.ok ? "ok    " : "FAIL  ") + c.name + ": " + c.detail, { "data-check": c.name, "data-ok": c.ok ? "true" : "false" }));
    });
    // the list folds away under a verified report and stays open over a failure
    var det = h("details", "", ok ? {} : { open: "" });
    det.appendChild(h("summary", checks.length + " checks" + (ok ? ", all passed" : ", " + failing.length + " failing")));
    det.appendChild(list);
    sec.appendChild(det);
    return sec;
  }
  var m0 = { seal_hash: "" };
  function clearStyles() {
    // anything that could restyle the failure: every style sheet but the
    // page's own, attributes on <html> and <body>
    Array.prototype.slice.call(document.querySelectorAll("style, link")).forEach(function (x) {
      if (!(x.tagName === "STYLE" && x.parentNode === document.head && x.textContent === AL_CSS)) x.remove();
    });
    [document.documentElement, document.body].forEach(function (x) {
      Array.prototype.slice.call(x.attributes).forEach(function (a) { if (!(x === document.documentElement && a.name === "lang")) x.removeAttribute(a.name); });
    });
    try { document.adoptedStyleSheets = []; } catch (e) { /* older engines */ }
  }
  var watching = null;
  // foreign tells a change to the page from the ones the page makes itself:
  // the panel's content, the body's panel-open class, the check list
  // folding open or shut
  function foreign(r) {
    var t = r.target.nodeType === 1 ? r.target : r.target.parentNode;
    if (!t) return true;
    if (t.closest("#al-panel")) return false;
    if (r.type === "attributes" && t === document.body && r.attributeName === "class") return false;
    if (r.type === "attributes" && r.attributeName === "open" && t.tagName === "DETAILS" && t.closest("#al-verdict")) return false;
    return true;
  }
  function show(expectedDoc, data) {
    var ok = checks.every(function (c) { return c.ok; });
    var failing = checks.filter(function (c) { return !c.ok; }).map(function (c) { return c.name; });
    if (watching) watching.disconnect();
    if (!ok) {
      clearStyles();
      document.body.replaceChildren(verdictBox(false, failing));
      document.title = "NOT VERIFIED: " + (failing.join(", ") || "the page");
      // whatever edits the failure afterwards, the failure comes back
      watching = new MutationObserver(function (rs) { if (rs.some(foreign)) show(null, null); });
      watching.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
    } else {
      var main = document.importNode(expectedDoc.getElementById("al-report"), true), panel = document.importNode(expectedDoc.getElementById("al-panel"), true);
      document.body.replaceChildren(verdictBox(true, []), main, panel);
      AL.start(data);
      // a change to the verified report or the head afterwards (a script
      // the policy let in, an extension) voids the verdict
      watching = new MutationObserver(function (rs) {
        if (!rs.some(foreign)) return;
        checks.push({ name: "page", ok: false, detail: "the page was changed after it was verified" });
        show(null, null);
      });
      watching.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
    }
    window.ALResult = { ok: ok, checks: checks, ms: Math.round(performance.now()) }; // ms: from navigation to this verdict
  }

  function start() {
    pristine = document.cloneNode(true);
    run().catch(function (err) {
      checks.push({ name: "bundle", ok: false, detail: "the verifier stopped: " + (err && err.message ? err.message : String(err)) });
      show(null, null);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
