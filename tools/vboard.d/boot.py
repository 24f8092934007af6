#!/usr/bin/env python3
"""Stage 3 of tools/vboard: boots the virtual board under QEMU (TCG) and reports its checks.

    boot.py --kernel VMLINUZ --initrd INITRD --log GUEST.LOG [--timeout S]

The first serial port (ttyS0) is the guest's console, read line by line and kept in GUEST.LOG. The
second (ttyS1) is a UNIX socket this script drives: when the guest prints

    VBOARD-HOST: NAME|SEND|EXPECT[|THEN]

it sends the line SEND, waits for a line starting with EXPECT (resending SEND every 2 s, 30 s in all),
then sends the line THEN if given, and records NAME=ok or NAME=fail. Fields may hold spaces. It then
writes "NAME=ok" or "NAME=fail" on the third serial port (ttyS2, another UNIX socket), which the
guest reads to know the exchange is over (guest/lib.sh: host_exchange). The guest ends with

    VBOARD-GUEST: pass|fail name=ok|fail|skip ...

and this script prints the merged line VBOARD-RESULT: ..., exiting 0 only when nothing failed.
Standard library only.
"""
import argparse, os, socket, subprocess, sys, tempfile, threading, time

SERIAL_TIMEOUT_S = 30.0


class HostSerial:
    """The host's end of the guest's ttyS1 (QEMU serves it on a UNIX socket)."""

    def __init__(self, path):
        self.path, self.sock, self.buffer = path, None, b""
        self.lock = threading.Lock()

    def connect(self, deadline):
        while time.monotonic() < deadline:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
                s.settimeout(0.2)
                self.sock = s
                return True
            except OSError:
                time.sleep(0.1)
        return False

    def send(self, line):
        self.sock.sendall(line.encode() + b"\n")

    def drain(self):
        """Forgets what arrived before an exchange (echoes, old replies)."""
        try:
            while self.sock.recv(4096):
                pass
        except (socket.timeout, BlockingIOError):
            pass
        self.buffer = b""

    def lines(self):
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            return []
        self.buffer += data
        *complete, self.buffer = self.buffer.split(b"\n")
        return [c.decode(errors="replace").strip("\r\n ") for c in complete]


def exchange(serial, ack, name, send, expect, then, results, log):
    """One host-side check: SEND, wait for a line starting with EXPECT, then THEN; acknowledge on ttyS2."""
    try:
        run_exchange(serial, name, send, expect, then, results, log)
    finally:
        try:
            ack.send(f"{name}={results.get(name, 'fail')}")
        except OSError as error:
            log(f"host: cannot acknowledge {name} on ttyS2: {error}")


def run_exchange(serial, name, send, expect, then, results, log):
    with serial.lock:
        serial.drain()
        deadline = time.monotonic() + SERIAL_TIMEOUT_S
        next_send = 0.0
        seen = []
        while time.monotonic() < deadline:
            if time.monotonic() >= next_send:
                serial.send(send)
                next_send = time.monotonic() + 2.0
            for line in serial.lines():
                seen.append(line)
                log(f"host: {name}: ttyS1 <- {line!r}")
                if line.startswith(expect):
                    if then:
                        serial.send(then)
                    results[name] = "ok"
                    log(f"VBOARD-HOST-CHECK: {name}=ok: sent {send!r}, got {line!r}")
                    return
        results[name] = "fail"
        log(f"VBOARD-HOST-CHECK: {name}=fail: sent {send!r} for {SERIAL_TIMEOUT_S:.0f} s, "
            f"no line starting {expect!r} (got {seen[-5:]!r})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--initrd", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--timeout", type=float, default=600)
    # 2 GiB: the initramfs (~310 MB with FFmpeg's libraries and ffprobe) lives in RAM, and vimc's
    # still-stream buffers at 4096x2160 take ~27 MB each; with 1 GiB a bracket's buffers ran out.
    parser.add_argument("--memory", default="2G")
    parser.add_argument("--verbose", action="store_true", help="echo the guest console live")
    parser.add_argument("--kernel-args", default="", help="appended to the kernel command line")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="vboard-")
    sock_path = os.path.join(tmp, "ttyS1.sock")
    ack_path = os.path.join(tmp, "ttyS2.sock")
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", args.memory, "-nographic", "-no-reboot",
           "-monitor", "none", "-nic", "none", "-serial", "stdio",
           "-chardev", f"socket,id=ttyS1,path={sock_path},server=on,wait=off", "-serial", "chardev:ttyS1",
           "-chardev", f"socket,id=ttyS2,path={ack_path},server=on,wait=off", "-serial", "chardev:ttyS2",
           "-kernel", args.kernel, "-initrd", args.initrd,
           "-append", f"console=ttyS0 panic=-1 loglevel=4 rdinit=/init {args.kernel_args}".rstrip()]
    started = time.monotonic()
    logfile = open(args.log, "w")
    lock = threading.Lock()

    def log(line):
        with lock:
            logfile.write(line + "\n")
            logfile.flush()
            if args.verbose or line.startswith(("VBOARD-CHECK", "VBOARD-HOST-CHECK", "VBOARD-BOOTED")):
                print(f"  [{time.monotonic() - started:6.1f} s] {line}", flush=True)

    log("host: " + " ".join(cmd))
    qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    serial = HostSerial(sock_path)
    ack = HostSerial(ack_path)
    host_results, threads, guest = {}, [], None
    timer = threading.Timer(args.timeout, qemu.kill)
    timer.start()
    for raw in qemu.stdout:
        line = raw.decode(errors="replace").rstrip("\r\n")
        log(line)
        if line.startswith("VBOARD-HOST:"):
            fields = [f.strip() for f in line.split(":", 1)[1].split("|")]
            if len(fields) < 3 or not all(fields[:3]):
                host_results["host-protocol"] = "fail"
                continue
            name, send, expect = fields[:3]
            then = fields[3] if len(fields) > 3 and fields[3] else None
            deadline = time.monotonic() + 5
            if (serial.sock is None and not serial.connect(deadline)) or (ack.sock is None and not ack.connect(deadline)):
                host_results[name] = "fail"
                log(f"VBOARD-HOST-CHECK: {name}=fail: cannot connect to {sock_path} or {ack_path}")
                continue
            t = threading.Thread(target=exchange, args=(serial, ack, name, send, expect, then, host_results, log))
            t.start()
            threads.append(t)
        elif line.startswith("VBOARD-GUEST:"):
            guest = line.split()[1:]
    status = qemu.wait()
    timer.cancel()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    log(f"host: qemu exited with {status} after {elapsed:.1f} s")

    results = {}
    problems = []
    if guest is None:
        problems.append("the guest printed no VBOARD-GUEST line"
                        + (f" (killed after {args.timeout:.0f} s)" if elapsed >= args.timeout else ""))
    else:
        for item in guest[1:]:
            name, _, value = item.partition("=")
            results[name] = value
    # A check with a host side passes only when both ends say ok; a known failure (xfail) stays one.
    for name, value in host_results.items():
        guest_value = results.get(name)
        if guest_value is None:
            results[name] = value
        elif value == "fail":
            results[name] = {"ok": "fail", "xpass": "xfail"}.get(guest_value, guest_value)
    for name in ("serial", "tripod-console"):
        if results.get(name) == "ok" and name not in host_results:
            results[name] = "fail"
            problems.append(f"{name}: the host never exchanged a line with the guest")
    failed = [n for n, v in results.items() if v in ("fail", "xpass")]
    if guest is None or not guest or guest[0] != "pass":
        failed.append("guest")
    verdict = "fail" if failed or problems else "pass"
    summary = " ".join(f"{n}={v}" for n, v in results.items())
    print(f"VBOARD-RESULT: {verdict} {summary}".rstrip(), flush=True)
    for p in problems:
        print(f"vboard: {p}", flush=True)
    return 0 if verdict == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
