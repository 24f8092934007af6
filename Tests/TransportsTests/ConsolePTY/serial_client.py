#!/usr/bin/python3
"""Drives a real `tripod run --console <pty>` through a pseudo-terminal pair with pyserial.

socat links two pseudo-terminals (a null-modem cable): tripod opens one end as its serial console,
pyserial opens the other at 115200 8N1. Each case sends bytes and checks the reply lines.
Prints PASS/FAIL per case; exits 0 only when every case passed.
usage: serial_client.py TRIPOD_BINARY WORK_DIR
"""
import os, signal, subprocess, sys, time
import serial  # Debian python3-serial (tools/setup)

tripod, work = sys.argv[1], sys.argv[2]
# A test runner may start us with signals blocked; children (socat, tripod) inherit the mask.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
tty_tripod, tty_client = os.path.join(work, "ttyTRIPOD"), os.path.join(work, "ttyCLIENT")
sock = os.path.join(work, "ctl.sock")
failures = []

def check(name, condition, detail=""):
    print(("PASS " if condition else "FAIL ") + name + ("" if condition else ": " + detail), flush=True)
    if not condition:
        failures.append(name)

def start_cable():
    for p in (tty_tripod, tty_client):
        if os.path.lexists(p):
            os.unlink(p)
    cable = subprocess.Popen(["socat", "pty,raw,echo=0,link=" + tty_tripod, "pty,raw,echo=0,link=" + tty_client],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not (os.path.exists(tty_tripod) and os.path.exists(tty_client)):
        if time.monotonic() > deadline:
            raise SystemExit("socat did not create the pseudo-terminals")
        time.sleep(0.02)
    return cable

class Client:
    def __init__(self):
        self.port = serial.Serial(tty_client, 115200, bytesize=8, parity="N", stopbits=1, timeout=0.2)
        self.pending = b""
        self.raw = b""

    def send(self, data):
        self.port.write(data)
        self.port.flush()

    def lines_until(self, predicate, timeout=10.0):
        """Reads lines until one satisfies predicate; returns all lines read (CR stripped)."""
        got, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                text = line.replace(b"\r", b"").decode("utf-8", "replace")
                got.append(text)
                if predicate(text):
                    return got
            chunk = self.port.read(4096)
            self.raw += chunk
            self.pending += chunk
        return got + ["<timeout>"]

    def reply(self, data, timeout=10.0):
        self.send(data)
        return self.lines_until(is_reply, timeout)

def is_reply(text):
    # A reply line may follow echoed input on the same screen line.
    return any(mark in text for mark in ("ok ", "err ")) and (text.split("ok ")[0].strip() == "" or True) \
        or text.endswith("ok") or '{"type":"reply"' in text

def last(lines):
    return lines[-1] if lines else ""

cable = start_cable()
log = open(os.path.join(work, "tripod.log"), "w")
proc = subprocess.Popen([tripod, "run", "--console", tty_tripod, "--captures", os.path.join(work, "captures"),
                         "--socket", sock], stdin=subprocess.DEVNULL, stdout=log, stderr=log)
try:
    c = Client()
    c.send(b"\r")  # the banner is written at open; an empty line answers nothing
    banner = c.lines_until(lambda t: "type help" in t)
    check("banner", any("tripod" in l for l in banner), repr(banner))

    r = c.reply(b"statx\x7fus\r")
    check("backspace edits the line", "ok state=ready" in last(r), repr(r))
    check("echo with erase", b"statx\x08 \x08us" in c.raw, repr(c.raw[-80:]))

    r = c.reply(b"status\x03get exposure.iso\r")
    check("ctrl-c drops the line", "ok exposure.iso=100" in last(r) and not any("state=" in l for l in r), repr(r))
    check("ctrl-c echoes ^C", b"^C" in c.raw)

    r = c.reply(b"garbage here\x15get focus.mode\r")
    check("ctrl-u clears the line", "ok focus.mode=" in last(r), repr(r))

    cases = [
        ("binary garbage", b"\x01\x02\x1b\x06zz\r", "err bad-input control byte"),
        ("NUL byte", b"get\x00 format\r", "err bad-input NUL byte"),
        ("invalid UTF-8", b"get \xff\xfe\xc0\r", "err bad-input line is not valid UTF-8"),
        ("over-long line", b"x" * 5000 + b"\r", "err line-too-long"),
        ("unknown command", b"frobnicate\r", "err unknown-command"),
        ("wrong argument count", b"json\r", "err usage"),
        ("value out of range", b"set exposure.iso 999999999\r", "err out-of-range"),
        ("bad value", b"set exposure.duration soon\r", "err bad-value"),
        ("unknown key", b"get nonsense.key\r", "err unknown-key"),
    ]
    for name, data, expected in cases:
        r = c.reply(data)
        check(name + " gets a clear err", expected in last(r), repr(r[-2:]))
        r = c.reply(b"get exposure.mode\r")
        check(name + ": console carries on", "ok exposure.mode=" in last(r), repr(r[-2:]))

    r = c.reply(b"json on\r")
    check("json on", '"json":"on"' in last(r), repr(r))
    r = c.reply(b"get exposure.iso\r")
    check("json reply", last(r).lstrip().startswith('{"type":"reply","ok":true'), repr(r))
    ctl = subprocess.run([tripod, "ctl", "--socket", sock, "get", "exposure.iso"], capture_output=True, text=True, timeout=20)
    check("ctl meanwhile, in its own mode", ctl.returncode == 0 and ctl.stdout.strip().endswith("ok exposure.iso=100"),
          repr((ctl.returncode, ctl.stdout, ctl.stderr)))
    r = c.reply(b"json off\r")
    check("json off", "ok json=off" in last(r), repr(r))

    # A control client that sends and never reads: its output queue fills, nobody else waits.
    import socket as socketlib
    stuck = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
    stuck.connect(sock)
    stuck.setblocking(False)
    sent = 0
    for _ in range(400):
        try:
            sent += stuck.send(b"help\n" * 60)
        except BlockingIOError:
            time.sleep(0.005)
    started = time.monotonic()
    r = c.reply(b"get exposure.mode\r", timeout=5)
    check("a client that never reads does not stall the serial console",
          "ok exposure.mode=" in last(r) and time.monotonic() - started < 5, "%r after sending %d bytes" % (r[-2:], sent))
    ctl = subprocess.run([tripod, "ctl", "--socket", sock, "status"], capture_output=True, text=True, timeout=20)
    check("nor other control clients", ctl.returncode == 0 and "ok state=ready" in ctl.stdout, repr(ctl.stdout[-200:]))

    c.send(b"get format\r" * 300)
    r = c.lines_until(lambda t: "err flood" in t, timeout=5)
    answered = sum(1 for l in r if "ok format=" in l)
    flooded = any("err flood" in l for l in r)
    check("flood: bounded, answered with err flood or served in full", flooded or answered == 300, "answered %d" % answered)
    time.sleep(0.3)
    c.port.reset_input_buffer(); c.pending = b""
    r = c.reply(b"\rget exposure.mode\r")
    check("flood: console carries on", "ok exposure.mode=" in last(r), repr(r[-3:]))

    r = c.reply(b"quit\r")
    check("quit closes the session", "ok closed=" in last(r), repr(r))
    c.send(b"\r")
    banner = c.lines_until(lambda t: "type help" in t)
    check("a new session starts after quit", any("tripod" in l for l in banner), repr(banner))
    r = c.reply(b"status\r")
    check("supervisor still running after quit", "ok state=ready" in last(r), repr(r))

    # The device goes away (cable unplugged) and comes back: tripod reopens it by itself.
    stuck.close()
    c.port.close()
    cable.send_signal(signal.SIGTERM); cable.wait(timeout=10)
    time.sleep(0.5)
    cable = start_cable()
    c = Client()
    banner = c.lines_until(lambda t: "type help" in t, timeout=15)
    check("reopen after the device came back", any("tripod" in l for l in banner), repr(banner[-3:]))
    r = c.reply(b"get exposure.iso\r")
    check("console works after reopen", "ok exposure.iso=100" in last(r), repr(r))
    check("still running", proc.poll() is None)
finally:
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill(); code = -9
    check("SIGTERM stops tripod with status 0", code == 0, "status %s" % code)
    cable.send_signal(signal.SIGTERM)
    cable.wait(timeout=10)

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
