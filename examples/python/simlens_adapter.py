"""SimLens simulator protocol adapter (simlens-sim/1.1), one file, Python standard library only.

Copy this file next to your simulator. It turns any object with ``start`` and ``respond`` methods
into a simulator SimLens can run (``simlens simulate --user exec:"python3 my_sim.py"``):

    import simlens_adapter

    class MyUser:
        def __init__(self, context):          # context: catalog reference, max_turns (see docs/protocol.md)
            ...
        def start(self, params):               # params: session, seed, index, task, profile
            return {"utterance": "Hi, I need shoes.", "acts": ["Disclose"], "trace": {"agenda": [...]}}
        def respond(self, params):             # params: utterance, recommendations, acts
            return {"utterance": "Thanks!", "acts": ["Complete"], "done": True, "outcome": "ended"}

    simlens_adapter.serve(MyUser, name="my-user", version="0.1")

One object is made per conversation. Optional methods: ``restore(params)`` (continue from recorded
turns; without it SimLens replays the conversation with the same seed) and ``end()``.

Item references (protocol 1.1, declared as capability ``item_refs``): SimLens sends each catalog
item in full the first time, then ``{"ref": item_id}``; this adapter expands the references, so
``respond`` always sees full items in ``params["recommendations"]``.

Transport: stdio with the Language Server Protocol's framing (default), or HTTP when the program is
started with ``--http PORT`` (one JSON-RPC message per POST). In stdio mode ``print()`` goes to
stderr, so logging never breaks the protocol, and the process exits when its stdin closes (SimLens
exited or was killed): no orphan processes.
"""

import io
import json
import os
import select
import sys
import threading
import time
import traceback

PROTOCOL = "simlens-sim/1.1"
UNKNOWN_SESSION = -32002
RESTORE_UNSUPPORTED = -32001
UNKNOWN_ITEM_REF = -32003


class ProtocolError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class Server:
    """Dispatches JSON-RPC messages to per-conversation objects made by ``factory``."""

    def __init__(self, factory, name, version="0", sessions=False, taxonomy=None):
        self.factory = factory
        self.name = name
        self.version = version
        self.sessions_capability = sessions
        self.taxonomy = taxonomy
        self.context = None
        self.sessions = {}
        self.items = {}  # item_id -> the item as last sent in full (protocol 1.1 item references)
        self.shutdown = False

    def capabilities(self):
        probe = getattr(self.factory, "restore", None)
        caps = {"restore": callable(probe), "item_refs": True}
        if self.sessions_capability:
            caps["sessions"] = self.sessions_capability
        return caps

    def call(self, method, params):
        if method == "initialize":
            self.context = params or {}
            result = {"protocol": PROTOCOL, "name": self.name, "version": self.version, "capabilities": self.capabilities()}
            if self.taxonomy:
                result["taxonomy"] = self.taxonomy
            return result
        if method == "shutdown":
            self.shutdown = True
            for user in list(self.sessions.values()):
                self._end(user)
            self.sessions.clear()
            return None
        if method == "start":
            user = self.factory(self.context)
            self.sessions[params["session"]] = user
            return user.start(params)
        if method == "restore":
            if not callable(getattr(self.factory, "restore", None)):
                raise ProtocolError(RESTORE_UNSUPPORTED, "this simulator cannot restore; replay it")
            user = self.factory(self.context)
            self.sessions[params["session"]] = user
            user.restore(params)
            return {"restored": True}
        if method == "respond":
            # Items first: SimLens counts them as sent even when this request fails.
            params["recommendations"] = self._expand(params.get("recommendations") or [])
            user = self.sessions.get(params["session"])
            if user is None:
                raise ProtocolError(UNKNOWN_SESSION, "unknown session %r" % params["session"])
            return user.respond(params)
        if method == "end":
            user = self.sessions.pop(params["session"], None)
            if user is not None:
                self._end(user)
            return None
        raise ProtocolError(-32601, "method not found: %s" % method)

    def _expand(self, recommendations):
        """Full items are remembered; ``{"ref": id}`` is replaced by the item sent before."""
        out = []
        for item in recommendations:
            if len(item) == 1 and "ref" in item:
                full = self.items.get(item["ref"])
                if full is None:
                    raise ProtocolError(UNKNOWN_ITEM_REF, "unknown item reference %r (never sent in full)" % item["ref"])
                out.append(full)
            else:
                self.items[item["item_id"]] = item
                out.append(item)
        return out

    @staticmethod
    def _end(user):
        end = getattr(user, "end", None)
        if callable(end):
            end()

    def handle(self, message):
        """One JSON-RPC message in, the response (or None for a notification) out."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
        has_id = "id" in message
        try:
            result = self.call(message["method"], message.get("params"))
        except ProtocolError as e:
            if not has_id:
                return None
            return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": e.code, "message": str(e)}}
        except Exception as e:  # the simulator's own bug: report it, keep serving
            traceback.print_exc(file=sys.stderr)
            if not has_id:
                return None
            where = traceback.extract_tb(e.__traceback__)[-1]
            text = "%s: %s (%s:%d)" % (type(e).__name__, e, os.path.basename(where.filename), where.lineno)
            return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32000, "message": text}}
        if not has_id:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def _read_message(stream):
    """One framed message from a binary stream, or None at end of input."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line:
            break
        key, _, value = line.decode("ascii").partition(":")
        if key.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        raise ValueError("a message header without Content-Length")
    body = stream.read(length)
    if len(body) < length:
        return None
    return json.loads(body.decode("utf-8"))


def _write_message(stream, message):
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    # Header and body in one write (one system call, one wake-up of the reader).
    stream.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    stream.flush()


def _watch_parent(parent):
    # SimLens killed outright (SIGKILL) cannot stop us; a simulator stuck in its own code never sees
    # stdin close either. Leave as soon as we are handed to another parent.
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


class _PolledInput:
    """stdin read the way SimLens asks (environment variable SIMLENS_SPIN_US, docs/protocol.md
    "Latency"): after each answer, read without waiting for up to that many microseconds, then wait
    in select(). A process asleep in a read costs itself and its writer a kernel wake-up per
    message; polling while SimLens computes its next turn avoids both. Each missed poll doubles the
    number of waits that go without one, up to 64 (behind a slow recommender, or on a loaded
    machine, it mostly just waits)."""

    def __init__(self, fd, spin_us):
        self.fd = fd
        self.spin = spin_us / 1e6
        self.buffer = bytearray()
        self.skip = 0
        self.backoff = 0
        self.closed = False
        os.set_blocking(fd, False)

    def _chunk(self):
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return None
        if not data:
            self.closed = True
        return data

    def _fill(self):
        data = self._chunk()
        if data is None and self.skip > 0:
            self.skip -= 1
        elif data is None:
            until = time.perf_counter() + self.spin
            while data is None and time.perf_counter() < until:
                data = self._chunk()
            # A missed poll doubles the number of waits that go without one (up to 64).
            if data is None:
                self.skip = self.backoff = min(64, self.backoff * 2 or 1)
            else:
                self.backoff = 0
        while data is None:
            select.select([self.fd], [], [])
            data = self._chunk()
        self.buffer += data

    def readline(self):
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[: end + 1])
                del self.buffer[: end + 1]
                return line
            if self.closed:
                return b""
            self._fill()

    def read(self, n):
        while len(self.buffer) < n and not self.closed:
            self._fill()
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data


def _piped(fd):
    """Whether fd is a pipe or a socket (what SimLens gives): a terminal or a file is read as before."""
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _spin_us():
    try:
        return max(0, min(10000, int(os.environ.get("SIMLENS_SPIN_US", "0"))))
    except ValueError:
        return 0


def serve_stdio(server):
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    inp = sys.stdin.buffer
    polled = _spin_us() > 0 and os.name == "posix" and _piped(sys.stdin.fileno())
    if polled:
        inp = _PolledInput(sys.stdin.fileno(), _spin_us())
    out = sys.stdout.buffer
    # Anything the simulator prints goes to stderr: stdout carries protocol messages only.
    sys.stdout = sys.stderr
    try:
        while not server.shutdown:
            message = _read_message(inp)
            if message is None:
                return  # stdin closed: SimLens is gone
            response = server.handle(message)
            if response is not None:
                _write_message(out, response)
    finally:
        if polled:
            os.set_blocking(inp.fd, True)  # as it was: the descriptor may be shared


def serve_http(server, port, host="127.0.0.1"):
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            try:
                message = json.loads(self.rfile.read(length).decode("utf-8"))
            except ValueError:
                response = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
            else:
                response = server.handle(message)
            body = json.dumps(response if response is not None else {}).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server.sessions_capability = True  # HTTP requests of many conversations arrive interleaved anyway
    httpd = HTTPServer((host, port), Handler)
    sys.stderr.write("simlens adapter: %s listening on http://%s:%d/\n" % (server.name, host, httpd.server_address[1]))
    sys.stderr.flush()
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()


def serve(factory, name, version="0", sessions=False, taxonomy=None, argv=None):
    """Serves ``factory`` (called with the initialize params once per conversation) until SimLens is done.

    ``sessions=True`` tells SimLens one process may hold many conversations at once (then
    ``--concurrency N`` uses one process; otherwise it starts N processes).
    """
    argv = sys.argv[1:] if argv is None else argv
    server = Server(factory, name, version, sessions, taxonomy)
    if "--http" in argv:
        port = int(argv[argv.index("--http") + 1])
        serve_http(server, port)
    else:
        serve_stdio(server)
