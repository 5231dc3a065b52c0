#!/usr/bin/python3
"""Faulty processes for the gate's isolation tests over the wire protocol, one fault per mode
(argv[1]; names in faults.cmake). Each answers hello, then misbehaves on its first request. Further
arguments are ignored: the tests pass a marker there, to find any process left behind.
No numpy: a restarted process must start fast."""
import fcntl
import json
import os
import signal
import sys
import time

mode = sys.argv[1]
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer


def write_frame(head, payload=b""):
    head["payload_bytes"] = len(payload)
    stdout.write(json.dumps(head).encode() + b"\n" + payload)
    stdout.flush()


def sleep_forever():
    while True:
        time.sleep(3600)


def wrong_types(head, field):
    """An ok answer of zeros, right in every way but the JSON type of one field."""
    out = head["outputs"][0]
    nbytes = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2}[out["dtype"]]
    for d in out["shape"]:
        nbytes *= d
    entry = {"name": out["name"], "dtype": out["dtype"], "shape": out["shape"], "offset": 0, "nbytes": nbytes}
    answer = {"v": 1, "id": head["id"], "status": "ok", "outputs": [entry], "payload_bytes": nbytes}
    wrong = {"id": str(head["id"]), "status": 0, "message": ["no"], "outputs": {"y": entry}, "payload_bytes": str(nbytes)}
    wrong_in_entry = {"name": 1, "dtype": None, "shape": [str(d) for d in out["shape"]], "offset": -1, "nbytes": 1.5}
    if field in wrong:
        answer[field] = wrong[field]
    else:
        entry[field] = wrong_in_entry[field]
    stdout.write(json.dumps(answer).encode() + b"\n" + bytes(nbytes))
    stdout.flush()


def shrink_stdin_pipe():
    """A pipe of one page, so that a request of some tens of KiB outgrows it. The kernel refuses
    while the pipe holds data (a restarted process may find its request there): it keeps its size.
    Returns the size of a request this process surely did not receive whole when it answers: more
    than the pipe plus what readline() may have buffered."""
    try:
        fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)
    except OSError:
        pass
    return fcntl.fcntl(0, fcntl.F_GETPIPE_SZ) + 16384


UNREAD_BYTES = shrink_stdin_pipe() if mode == "unsupported_without_reading_big_payload" else 0

while True:
    line = stdin.readline()
    if not line:
        sys.exit(0)
    head = json.loads(line)
    if head.get("op") == "hello":
        if mode == "unsupported_without_reading_big_payload":  # the pipe is empty now: the gate waits for this answer
            UNREAD_BYTES = shrink_stdin_pipe()
        write_frame({"v": 1, "status": "ok", "name": f"faulty wire {mode}", "ops": ["rotate"]})
        continue
    size = int(head.get("payload_bytes", 0))
    if mode == "unsupported_without_reading_big_payload":
        # Answers before reading its payload, and one larger than its pipe holds it never reads at all:
        # a gate that wrote the whole request before reading the answer would wait forever.
        write_frame({"v": 1, "id": head["id"], "status": "unsupported", "message": "not reading that"})
        if size > UNREAD_BYTES:
            sleep_forever()
        stdin.read(size)
        continue
    payload = stdin.read(size)
    if mode == "closes_stdout_stays_alive":
        stdout.close()
        os.close(1)
        sleep_forever()
    if mode == "never_answers":
        continue
    if mode == "sigstop_self":
        os.kill(os.getpid(), signal.SIGSTOP)
    if mode == "grandchild_spins":
        if os.fork() == 0:  # holds stdout open and spins; its parent never answers either
            while True:
                pass
        sleep_forever()
    if mode.startswith("wrong_json_types_"):
        wrong_types(head, mode[len("wrong_json_types_"):])
        continue
    write_frame({"v": 1, "id": head["id"], "status": "unsupported", "message": f"unknown mode {mode}"})
