# agentlab code-mode runtime, protocol 1 (generated; do not edit).
#
# The program below this prelude runs as the body of an async function.
# Tool functions send "call" frames to agentlab on stdout and wait for
# "result" frames on stdin, one JSON object per line. What the program
# prints travels as "stdout" frames; its return value as the "done" frame.
import ast as _ast
import asyncio as _asyncio
import base64 as _base64
import io as _io
import json as _json
import os as _os
import platform as _platform
import sys as _sys
import threading as _threading
import traceback as _traceback

_PROTOCOL = 1


class ToolCallError(Exception):
    """Raised by a tool function when the call fails."""

    def __init__(self, tool, message, id=None, kind="tool_error"):
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.message = message
        self.id = id
        self.kind = kind


class ProtocolError(Exception):
    """The channel to agentlab broke; the program cannot go on."""


class _Channel:
    def __init__(self):
        self.out = _os.fdopen(_os.dup(1), "wb")
        self.inp = _os.fdopen(_os.dup(0), "rb")
        # Stray writes to fd 1 (child processes, C code) go to the logs
        # instead of corrupting the frame stream; fd 0 reads nothing.
        _os.dup2(2, 1)
        null = _os.open(_os.devnull, _os.O_RDONLY)
        _os.dup2(null, 0)
        _os.close(null)
        self.wlock = _threading.Lock()
        self.plock = _threading.Lock()
        self.pending = {}
        self.next_ref = 0
        self.max_frame = 1 << 20
        self.debug = False
        self.closed = None

    def send(self, obj):
        data = _json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        if len(data) > self.max_frame:
            raise ProtocolError(
                f"a {obj.get('type')} frame of {len(data)} bytes is larger than the frame limit of "
                f"{self.max_frame} bytes; send less (fewer or smaller arguments, a smaller return value)")
        with self.wlock:
            self.out.write(data + b"\n")
            self.out.flush()

    def recv(self):
        line = self.inp.readline(self.max_frame + 2)
        if not line:
            raise ProtocolError("agentlab closed the channel")
        if not line.endswith(b"\n"):
            if len(line) > self.max_frame:
                raise ProtocolError(f"a frame from agentlab is larger than the frame limit of {self.max_frame} bytes")
            raise ProtocolError("agentlab closed the channel in the middle of a frame")
        line = line[:-1]
        if len(line) > self.max_frame:
            raise ProtocolError(f"a frame from agentlab is larger than the frame limit of {self.max_frame} bytes")
        try:
            msg = _json.loads(line)
        except ValueError as e:
            raise ProtocolError(f"malformed frame from agentlab: {e}") from None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise ProtocolError("a frame from agentlab is not a JSON object with a type")
        return msg

    def log(self, text):
        if self.debug:
            _sys.stderr.write(f"agentlab-ptc: {text}\n")
            _sys.stderr.flush()

    def serve(self):
        try:
            while True:
                msg = self.recv()
                if msg["type"] != "result":
                    raise ProtocolError(f"unexpected {msg['type']!r} frame from agentlab")
                with self.plock:
                    entry = self.pending.pop(msg.get("ref"), None)
                if entry is None:
                    raise ProtocolError(f"a result for unknown call ref {msg.get('ref')!r}")
                loop, fut = entry
                loop.call_soon_threadsafe(_settle, fut, msg)
        except BaseException as e:
            err = e if isinstance(e, ProtocolError) else ProtocolError(f"reading from agentlab failed: {e}")
            with self.plock:
                self.closed = err
                pending, self.pending = self.pending, {}
            for loop, fut in pending.values():
                loop.call_soon_threadsafe(_settle, fut, err)


def _settle(fut, msg):
    if fut.done():
        return
    if isinstance(msg, BaseException):
        fut.set_exception(msg)
    else:
        fut.set_result(msg)


_channel = None


async def _agentlab_call(tool, args=None):
    """Calls one tool through agentlab and returns its result."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise TypeError(f"{tool}() takes one dict of arguments, not {type(args).__name__}")
    ch = _channel
    loop = _asyncio.get_running_loop()
    fut = loop.create_future()
    with ch.plock:
        if ch.closed is not None:
            raise ch.closed
        ch.next_ref += 1
        ref = ch.next_ref
        ch.pending[ref] = (loop, fut)
    try:
        ch.send({"type": "call", "ref": ref, "tool": tool, "args": args})
    except BaseException:
        with ch.plock:
            ch.pending.pop(ref, None)
        raise
    ch.log(f"call ref {ref}: {tool}")
    msg = await fut
    ch.log(f"result ref {ref} ({msg.get('id')}): {'ok' if msg.get('ok') else 'error'}")
    if msg.get("ok"):
        return msg.get("value")
    err = msg.get("error") if isinstance(msg.get("error"), dict) else {}
    raise ToolCallError(tool, str(err.get("message") or "the call failed"), msg.get("id"), str(err.get("kind") or "tool_error"))


def _stub(tool, func):
    async def call(args=None):
        return await _agentlab_call(tool, args)

    call.__name__ = func
    call.__qualname__ = func
    call.__doc__ = f'Calls the tool "{tool}".'
    return call


class _Stdout(_io.TextIOBase):
    """sys.stdout of the program: printed text travels as stdout frames."""

    def __init__(self, ch):
        self.ch = ch
        self.buf = []
        self.n = 0
        self.lock = _threading.Lock()

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        with self.lock:
            self.buf.append(s)
            self.n += len(s)
            full = "\n" in s or self.n >= 8192
        if full:
            self.flush()
        return len(s)

    def flush(self):
        with self.lock:
            data = "".join(self.buf)
            self.buf, self.n = [], 0
        # Worst case a character takes 6 bytes in JSON (a \u escape).
        step = max(1, (self.ch.max_frame - 64) // 6)
        for i in range(0, len(data), step):
            self.ch.send({"type": "stdout", "data": data[i:i + step]})


def _compile(source):
    """The program as the body of an async function, keeping its line numbers."""
    tree = _ast.parse(source, filename="program.py")
    wrapper = _ast.parse("async def __agentlab_program__():\n    pass\n", filename="program.py")
    fn = wrapper.body[0]
    if tree.body:
        fn.body = tree.body
    _ast.fix_missing_locations(wrapper)
    return compile(wrapper, "program.py", "exec")


def _failure(e):
    if isinstance(e, ToolCallError):
        return {"kind": "tool_error", "type": "ToolCallError", "message": str(e.message), "tool": e.tool, "id": e.id}
    if isinstance(e, ProtocolError):
        return {"kind": "protocol", "type": "ProtocolError", "message": str(e)}
    return {"kind": "exception", "type": type(e).__name__, "message": str(e)}


def _print_exception(e):
    """Writes the traceback to the logs, from the program's first frame on."""
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "program.py":
        tb = tb.tb_next
    if tb is None:
        lines = _traceback.format_exception_only(type(e), e)
    else:
        lines = ["Traceback (most recent call last):\n"] + _traceback.format_tb(tb) + _traceback.format_exception_only(type(e), e)
    _sys.stderr.write("".join(lines))
    _sys.stderr.flush()


def _agentlab_main(bindings_b64, program_b64):
    global _channel
    ch = _Channel()
    _channel = ch
    try:
        ch.send({"type": "ready", "protocol": _PROTOCOL, "language": "python", "runtime": _platform.python_version()})
        boot = ch.recv()
        if boot["type"] != "boot":
            raise ProtocolError(f"expected a boot frame from agentlab, got {boot['type']!r}")
        ch.max_frame = int(boot.get("max_frame") or ch.max_frame)
        ch.debug = bool(boot.get("debug"))
    except BaseException as e:
        _sys.stderr.write(f"agentlab-ptc: {e}\n")
        _sys.stderr.flush()
        _os._exit(3)
    _threading.Thread(target=ch.serve, name="agentlab-ptc-reader", daemon=True).start()
    out = _Stdout(ch)
    _sys.stdout = out
    ns = {"__name__": "__main__", "__builtins__": __builtins__, "asyncio": _asyncio, "json": _json,
          "ToolCallError": ToolCallError}
    bindings = _json.loads(_base64.b64decode(bindings_b64))
    for func, tool in bindings:
        ns[func] = _stub(tool, func)
    ch.log(f"boot: call {boot.get('call_id')}, {len(bindings)} tools, frame limit {ch.max_frame} bytes")
    done = {"type": "done", "ok": True, "output": None}
    try:
        exec(_compile(_base64.b64decode(program_b64).decode("utf-8")), ns)
        value = _asyncio.run(ns["__agentlab_program__"]())
        try:
            _json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"the program returned a value that is not JSON: {e}") from None
        done["output"] = value
    except SystemExit as e:
        if e.code not in (None, 0):
            done = {"type": "done", "ok": False, "error": {"kind": "exception", "type": "SystemExit",
                                                            "message": f"the program called exit({e.code!r})"}}
    except BaseException as e:
        _print_exception(e)
        done = {"type": "done", "ok": False, "error": _failure(e)}
    try:
        out.flush()
        try:
            ch.send(done)
        except ProtocolError as e:
            err = _failure(e)
            err["message"] = err["message"][: ch.max_frame // 8]
            ch.send({"type": "done", "ok": False, "error": err})
    except BaseException as e:
        _sys.stderr.write(f"agentlab-ptc: cannot report the end of the program: {e}\n")
        _sys.stderr.flush()
        _os._exit(3)
    _sys.stderr.flush()
    _os._exit(0 if done.get("ok") else 1)
