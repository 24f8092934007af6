#!/usr/bin/env python3
"""Reference servers for `tools/bench console`: the same transports as tripod's console, with the
least possible work per line. Opens TTY (a pseudo-terminal slave) raw at 115200 and listens on the
Unix socket SOCKET; answers every line with "ok echo=<line>". Prints "ready" once both are up.
usage: console_echo_reference.py TTY SOCKET
"""
import os, select, socket, sys, termios, tty

tty_path, sock_path = sys.argv[1], sys.argv[2]
fd = os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
attrs = termios.tcgetattr(fd)
attrs[4] = attrs[5] = termios.B115200
termios.tcsetattr(fd, termios.TCSANOW, attrs)
if os.path.exists(sock_path):
    os.unlink(sock_path)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sock_path)
server.listen(8)
print("ready", flush=True)
pending = {fd: b""}
clients = {}
while True:
    readable, _, _ = select.select([fd, server] + list(clients), [], [])
    for r in readable:
        if r is server:
            c, _ = server.accept()
            clients[c] = b""
            continue
        data = os.read(fd, 4096) if r == fd else r.recv(4096)
        if not data:
            if r == fd:
                sys.exit(0)
            del clients[r]
            continue
        buf = (pending[fd] if r == fd else clients[r]) + data
        *lines, rest = buf.replace(b"\r", b"\n").split(b"\n")
        if r == fd:
            pending[fd] = rest
        else:
            clients[r] = rest
        for line in lines:
            if line:
                reply = b"ok echo=" + line + b"\n"
                os.write(fd, reply) if r == fd else r.sendall(reply)
