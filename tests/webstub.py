#!/usr/bin/env python3
"""webstub.py — plain HTTP on 127.0.0.1 for tests/0750-debuginfod.bats,
with python3-minimal's modules only (socket; no http.server, no urllib).

  webstub.py port                 a TCP port of 127.0.0.1 free now
  webstub.py get URL              print the body of a 200 answer, else exit 1
  webstub.py serve MODE PORT LOG [FILE]
                                  serve until killed; LOG is created when
                                  it listens, and gets every path asked:
     silent   take connections and never answer
     file     answer every GET with FILE, whatever it asked for
     slow     the same, in 2 KiB pieces, 50 ms apart
"""
import socket
import sys
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])


def get(url):
    rest = url.split("://", 1)[1]
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.partition(":")
    s = socket.create_connection((host, int(port or 80)), timeout=5)
    s.sendall(("GET /%s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path, hostport)).encode())
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    head, _, body = data.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].split()
    if len(status) < 2 or status[1] != b"200":
        sys.exit(1)
    sys.stdout.buffer.write(body)


def serve(mode, port, log, path=None):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(port)))
    s.listen(64)
    open(log, "w").close()
    held = []
    while True:
        c, _ = s.accept()
        if mode == "silent":
            held.append(c)
            continue
        req = b""
        while b"\r\n\r\n" not in req:
            b = c.recv(4096)
            if not b:
                break
            req += b
        line = req.split(b"\r\n", 1)[0].split()
        if len(line) >= 2:
            with open(log, "a") as f:
                f.write(line[1].decode() + "\n")
        body = open(path, "rb").read()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                  % len(body))
        step = 2048 if mode == "slow" else len(body)
        for i in range(0, len(body), step):
            c.sendall(body[i:i + step])
            if mode == "slow":
                time.sleep(0.05)
        c.close()


if __name__ == "__main__":
    if sys.argv[1] == "port":
        free_port()
    elif sys.argv[1] == "get":
        get(sys.argv[2])
    elif sys.argv[1] == "serve":
        serve(*sys.argv[2:])
    else:
        sys.exit(2)
