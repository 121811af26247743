// agentlab code-mode runtime, protocol 1 (generated; do not edit).
//
// The program below this prelude runs as the body of an async function.
// Tool functions send "call" frames to agentlab on stdout and wait for
// "result" frames on stdin, one JSON object per line. What the program
// prints travels as "stdout" frames; its return value as the "done" frame.
'use strict';
const __agentlab = (() => {
  const PROTOCOL = 1;
  const util = require('util');
  const fs = require('fs');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  // writeAll writes synchronously, waiting while the pipe is full. Node's
  // streams would queue the bytes in memory instead, so a program that
  // prints in a loop without yielding would grow until it ran out of
  // memory rather than be held back (and stopped at the output cap).
  function writeAll(fd, text) {
    const b = Buffer.from(text, 'utf8');
    for (let off = 0; off < b.length;) {
      try {
        off += fs.writeSync(fd, b, off, b.length - off);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;
        Atomics.wait(pause, 0, 0, 1);
      }
    }
  }
  const rawWrite = (text) => writeAll(1, text);
  let maxFrame = 1 << 20;
  let debug = false;
  let closed = null;
  let nextRef = 0;
  let finished = false;
  const pending = new Map();

  class ToolCallError extends Error {
    constructor(tool, message, id, kind) {
      super(message);
      this.name = 'ToolCallError';
      this.tool = tool;
      this.id = id === undefined ? null : id;
      this.kind = kind || 'tool_error';
    }
    toString() { return `ToolCallError: ${this.tool}: ${this.message}`; }
  }

  class ProtocolError extends Error {
    constructor(message) { super(message); this.name = 'ProtocolError'; }
  }

  function send(obj) {
    const s = JSON.stringify(obj);
    const n = Buffer.byteLength(s);
    if (n > maxFrame) {
      throw new ProtocolError(`a ${obj.type} frame of ${n} bytes is larger than the frame limit of ${maxFrame} bytes; ` +
        'send less (fewer or smaller arguments, a smaller return value)');
    }
    rawWrite(s + '\n');
  }

  function log(text) {
    if (debug) writeAll(2, `agentlab-ptc: ${text}\n`);
  }

  let onBoot = null;
  const booted = new Promise((resolve, reject) => { onBoot = { resolve, reject }; });

  function fatal(err) {
    if (closed) return;
    closed = err;
    onBoot.reject(err);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  }

  let gotBoot = false;
  function dispatch(msg) {
    if (msg === null || typeof msg !== 'object' || typeof msg.type !== 'string') {
      return fatal(new ProtocolError('a frame from agentlab is not a JSON object with a type'));
    }
    if (!gotBoot) {
      if (msg.type !== 'boot') return fatal(new ProtocolError(`expected a boot frame from agentlab, got ${JSON.stringify(msg.type)}`));
      gotBoot = true;
      return onBoot.resolve(msg);
    }
    if (msg.type !== 'result') return fatal(new ProtocolError(`unexpected ${JSON.stringify(msg.type)} frame from agentlab`));
    const p = pending.get(msg.ref);
    if (!p) return fatal(new ProtocolError(`a result for unknown call ref ${JSON.stringify(msg.ref)}`));
    pending.delete(msg.ref);
    log(`result ref ${msg.ref} (${msg.id}): ${msg.ok ? 'ok' : 'error'}`);
    if (msg.ok) return p.resolve(msg.value === undefined ? null : msg.value);
    const e = msg.error && typeof msg.error === 'object' ? msg.error : {};
    p.reject(new ToolCallError(p.tool, String(e.message || 'the call failed'), msg.id, e.kind));
  }

  let buf = Buffer.alloc(0);
  process.stdin.on('data', (chunk) => {
    if (closed) return;
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    let i;
    while ((i = buf.indexOf(10)) >= 0) {
      const line = buf.subarray(0, i);
      buf = buf.subarray(i + 1);
      if (line.length > maxFrame) return fatal(new ProtocolError(`a frame from agentlab is larger than the frame limit of ${maxFrame} bytes`));
      let msg;
      try {
        msg = JSON.parse(line.toString('utf8'));
      } catch (e) {
        return fatal(new ProtocolError(`malformed frame from agentlab: ${e.message}`));
      }
      dispatch(msg);
      if (closed) return;
    }
    if (buf.length > maxFrame) fatal(new ProtocolError(`a frame from agentlab is larger than the frame limit of ${maxFrame} bytes`));
  });
  process.stdin.on('end', () => fatal(new ProtocolError('agentlab closed the channel')));
  process.stdin.on('error', (e) => fatal(new ProtocolError(`reading from agentlab failed: ${e.message}`)));

  function call(tool, args) {
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      return Promise.reject(new TypeError(`${tool}() takes one object of arguments`));
    }
    if (closed) return Promise.reject(closed);
    const ref = ++nextRef;
    return new Promise((resolve, reject) => {
      pending.set(ref, { resolve, reject, tool });
      try {
        send({ type: 'call', ref, tool, args });
        log(`call ref ${ref}: ${tool}`);
      } catch (e) {
        pending.delete(ref);
        reject(e);
      }
    });
  }

  // Printed text travels as stdout frames; a character takes at most 6
  // bytes in JSON, so each chunk fits in a frame.
  function printed(s) {
    const step = Math.max(1, Math.floor((maxFrame - 64) / 6));
    for (let i = 0; i < s.length; i += step) send({ type: 'stdout', data: s.slice(i, i + step) });
  }
  console.log = console.info = console.debug = (...a) => printed(util.format(...a) + '\n');
  console.error = console.warn = (...a) => writeAll(2, util.format(...a) + '\n');
  process.stdout.write = (chunk, enc, cb) => {
    printed(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (typeof enc === 'function') enc();
    else if (typeof cb === 'function') cb();
    return true;
  };

  function failure(e) {
    if (e instanceof ToolCallError) return { kind: 'tool_error', type: 'ToolCallError', message: String(e.message), tool: e.tool, id: e.id };
    if (e instanceof ProtocolError) return { kind: 'protocol', type: 'ProtocolError', message: e.message };
    const type = e && e.constructor && e.constructor.name ? e.constructor.name : typeof e;
    return { kind: 'exception', type, message: e && e.message !== undefined ? String(e.message) : String(e) };
  }

  function finish(done) {
    if (finished) return;
    finished = true;
    try {
      try {
        send(done);
      } catch (e) {
        const err = failure(e);
        err.message = err.message.slice(0, Math.floor(maxFrame / 8));
        send({ type: 'done', ok: false, error: err });
      }
    } catch (e) {
      writeAll(2, `agentlab-ptc: cannot report the end of the program: ${e.message}\n`);
      process.exit(3);
    }
    process.exit(done.ok ? 0 : 1);
  }

  function fail(e) {
    writeAll(2, (e && e.stack ? e.stack : String(e)) + '\n');
    finish({ type: 'done', ok: false, error: failure(e) });
  }
  process.on('unhandledRejection', fail);
  process.on('uncaughtException', fail);

  async function main(bindingsB64, programB64) {
    send({ type: 'ready', protocol: PROTOCOL, language: 'javascript', runtime: process.version });
    let boot;
    try {
      boot = await booted;
    } catch (e) {
      writeAll(2, `agentlab-ptc: ${e.message}\n`);
      process.exit(3);
    }
    maxFrame = Number(boot.max_frame) || maxFrame;
    debug = Boolean(boot.debug);
    const bindings = JSON.parse(Buffer.from(bindingsB64, 'base64').toString('utf8'));
    log(`boot: call ${boot.call_id}, ${bindings.length} tools, frame limit ${maxFrame} bytes`);
    const names = ['ToolCallError'];
    const values = [ToolCallError];
    if (!bindings.some(([fn]) => fn === 'require')) {
      names.push('require');
      values.push(require);
    }
    for (const [fn, tool] of bindings) {
      names.push(fn);
      values.push((args) => call(tool, args));
    }
    let output = null;
    try {
      const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
      const program = new AsyncFunction(...names, Buffer.from(programB64, 'base64').toString('utf8'));
      const value = await program(...values);
      output = value === undefined ? null : value;
      if (output !== null && JSON.stringify(output) === undefined) throw new TypeError('the program returned a value that is not JSON');
    } catch (e) {
      return fail(e);
    }
    finish({ type: 'done', ok: true, output });
  }
  return { main };
})();
