#!/usr/bin/python3
"""Faulty processes for the gate's isolation tests over the wire protocol, one fault per mode
(argv[1]; names in faults.cmake). Each answers hello, then misbehaves on its first request. Further
arguments are ignored: the tests pass a marker there, to find any process left behind.
No numpy: a restarted process must start fast.

The modes of SERVED_MODES are the NumPy adapter (examples/python/numpy_rope.py) with one fault on
its first rotate call (numpy imported only for them); with PECHECK_FAULT_ONCE=FILE in the
environment (expect_fault.sh sets it) only the first such call of the whole gate run faults (FILE
records it across restarts), so every later check must pass: the fault left the gate's state as it was."""
import fcntl
import json
import os
import select
import signal
import sys
import time

mode = sys.argv[1].removesuffix("_unsandboxed")  # the same fault, in a test of the gate without its sandbox
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


def fault_now():
    """True for the call that faults: every first rotate call, or only the run's first with PECHECK_FAULT_ONCE."""
    once = os.environ.get("PECHECK_FAULT_ONCE")
    if not once:
        return True
    if os.environ.get("PECHECK_SCRATCH"):  # the one directory the sandbox lets it write, the run's own
        once = os.path.join(os.environ["PECHECK_SCRATCH"], os.path.basename(once))
    try:
        os.close(os.open(once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


# mode: (field of the answer's head, its JSON text), for the wire's integer fields out of range.
BAD_NUMBERS = {
    "payload_bytes_1e300": ("payload_bytes", "1e300"),
    "payload_bytes_minus_1_5": ("payload_bytes", "-1.5"),
    "payload_bytes_2_64": ("payload_bytes", "18446744073709551616"),
    "offset_1e300": ("offset", "1e300"),
    "offset_2_64_minus_1": ("offset", "18446744073709551615"),
    "nbytes_minus_1_5": ("nbytes", "-1.5"),
    "nbytes_2_63": ("nbytes", "9223372036854775808"),
}
# Faults in the call, before it answers.
IN_CALL = ("ignores_signals", "closes_std_fds", "chdir_away", "touches_1_5_gib", "touches_1_5_gib_at_256_mib", "child_touches_1_5_gib")
# Faults in the answer frame, or after it.
IN_ANSWER = ("sleeps_after_answer", "answers_twice", "answers_twice_late", "payload_bytes_2_63", "payload_larger_than_outputs",
             "line_without_newline", "line_over_limit") + tuple(BAD_NUMBERS)
BEFORE_HELLO = ("garbage_before_hello", "binary_before_hello")
# No fault: 1.5 GiB held from before hello on, which no call adds (the memory limit is per call).
CORRECT = ("holds_1_5_gib_from_start",)
# Declining to earn a PASS: rotate answered only where every position is 0 (the identity), or inv_freq alone,
# or rotate declined where x holds a subnormal or a value past 2^100 (the dtype's edges).
DECLINING = ("unsupported_unless_position_0", "inv_freq_only", "unsupported_on_edge_values")
# Attacks on the gate's processes on every rotate call, as the plugins kills_gate, joins_gate_group
# and leaves_100_daemons make them; the answers are correct, and the sandbox leaves the attacks
# without effect.
ATTACKS = ("kills_gate", "joins_gate_group", "leaves_100_daemons")
# Correct answers, and 4 MiB of stderr with each rotate call: past the run's stderr budget.
FLOODS = ("floods_stderr",)
# Correct answers, and on each rotate call a file created in the test's directory and every regular
# file there truncated, which the sandbox refuses; an error where either succeeds, or where the
# scratch directory (PECHECK_SCRATCH) cannot be written.
WRITES = ("writes_into_gate_dir",)
SERVED_MODES = IN_CALL + IN_ANSWER + BEFORE_HELLO + CORRECT + DECLINING + ATTACKS + FLOODS + WRITES
GIB_1_5 = 1536 << 20


def ignore_deadly_signals():
    """SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGPIPE ignored and blocked: only SIGKILL ends this process."""
    deadly = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE]
    for sig in deadly:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, deadly)


def parent_of(pid):
    """The parent of pid as /proc says it (the field after the command name's closing parenthesis), or 0."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def runs_gate(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[1:2] == [b"gate"]
    except OSError:
        return False


def gate_processes():
    """The gate's processes as a hostile process finds them without the gate's help: up from its own
    pid in /proc (not os.getpid(), which a PID namespace renumbers), every ancestor running "gate"."""
    found, pid = [], parent_of(int(os.readlink("/proc/self")))
    while pid > 1:
        if runs_gate(pid):
            found.append(pid)
        pid = parent_of(pid)
    return found


DAEMONS = [0]


def attack_gate():
    for pid in gate_processes():
        try:
            if mode == "kills_gate":
                os.kill(pid, signal.SIGKILL)
            if mode == "joins_gate_group":
                os.setpgid(0, os.getpgid(pid))
        except OSError:
            pass
    if mode == "leaves_100_daemons" and DAEMONS[0] < 100:
        DAEMONS[0] += 1
        middle = os.fork()
        if middle == 0:
            os.setsid()
            if os.fork() == 0:
                null = os.open("/dev/null", os.O_RDWR)
                os.dup2(null, 0), os.dup2(null, 1)
                sleep_forever()
            os._exit(0)
        os.waitpid(middle, 0)


def fault_in_call():
    if mode == "ignores_signals":  # and so does a child; both wait forever
        ignore_deadly_signals()
        os.fork()
        sleep_forever()
    if mode == "closes_std_fds":
        for fd in (0, 1, 2):
            os.close(fd)
        sleep_forever()
    if mode == "chdir_away":  # into a directory that is then removed, and dies there
        import tempfile
        away = tempfile.mkdtemp()
        os.chdir(away)
        os.rmdir(away)
        os._exit(3)
    if mode.startswith("touches_1_5_gib"):  # written (so resident), freed, then the call answers as if nothing happened
        block = b"\x01" * GIB_1_5
        del block
    if mode == "child_touches_1_5_gib":  # a child holds it while the call waits for the child
        if os.fork() == 0:
            block = b"\x01" * GIB_1_5
            sleep_forever()
        sleep_forever()


def write_into_gate_dir():
    """What the sandbox must refuse (a file created in the test's directory, PECHECK_FAULT_DIR, and its
    regular files truncated) and what it must allow (a file in the scratch directory): an error of
    the call where either is not so."""
    scratch = os.environ.get("PECHECK_SCRATCH", "")
    try:
        with open(os.path.join(scratch, "scratch_file"), "w") as f:
            f.write("allowed")
    except OSError as e:
        raise RuntimeError(f"cannot write into the scratch directory {scratch!r}: {e}")
    target = os.environ.get("PECHECK_FAULT_DIR")
    if not target:
        return
    done = []
    try:
        with open(os.path.join(target, "written_by_the_implementation"), "w") as f:
            f.write("forged")
        done.append("created written_by_the_implementation")
    except OSError:
        pass
    for name in os.listdir(target):
        path = os.path.join(target, name)
        if os.path.isfile(path) and not os.path.islink(path):
            try:
                os.truncate(path, 0)
                done.append(f"truncated {name}")
            except OSError:
                pass
    if done:
        raise RuntimeError(f"in {target}: " + ", ".join(done))


def with_number(head_line, field, text):
    """The head line with `field` (at the top or in outputs[0]) set to the JSON number `text`."""
    head = json.loads(head_line)
    (head if field == "payload_bytes" else head["outputs"][0])[field] = "@number@"
    return json.dumps(head).replace('"@number@"', text).encode()


class FaultyStdout:
    """stdout for serve(): each frame written whole, but the one that fault_next marks with the
    answer fault of the mode."""

    def __init__(self, real):
        self.real, self.fault_next = real, False

    def write(self, frame):
        if not self.fault_next:
            self.real.write(frame)
            return
        self.fault_next = False
        head_line, payload = frame.split(b"\n", 1)
        head = json.loads(head_line)
        if mode in BAD_NUMBERS:
            self.real.write(with_number(head_line, *BAD_NUMBERS[mode]) + b"\n" + payload)
        elif mode == "payload_bytes_2_63":  # announced, and never sent
            self.real.write(with_number(head_line, "payload_bytes", "9223372036854775808") + b"\n")
            self.real.flush()
            sleep_forever()
        elif mode == "payload_larger_than_outputs":  # sent in full, one byte more than the outputs
            head["payload_bytes"] += 1
            self.real.write(json.dumps(head).encode() + b"\n" + payload + b"\0")
        elif mode == "line_without_newline":  # a head that never ends
            while True:
                self.real.write(b"x" * 65536)
        elif mode == "line_over_limit":  # valid JSON, with its newline, 5 MiB long
            head["message"] = "x" * (5 << 20)
            self.real.write(json.dumps(head).encode() + b"\n" + payload)
        elif mode == "answers_twice":  # the same frame twice, in one write
            self.real.write(frame + frame)
        else:
            self.real.write(frame)
            self.real.flush()
            if mode == "sleeps_after_answer":  # past the next call's deadline
                time.sleep(5)
            if mode == "answers_twice_late":  # a second answer to the same request, once the next request is here
                select.select([0], [], [])
                write_frame({"v": 1, "id": head["id"], "status": "unsupported", "message": "a second answer"})

    def flush(self):
        self.real.flush()


def serve_with_fault():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))
    import numpy
    import numpy_rope
    import pecheck_serve

    if mode == "garbage_before_hello":  # a library's banner on stdout
        stdout.write(b"loading weights... done\n")
    if mode == "binary_before_hello":  # 8 MiB without a newline
        stdout.write(bytes(range(256)).replace(b"\n", b"") * (8 << 12))
    held = b"\x01" * GIB_1_5 if mode == "holds_1_5_gib_from_start" else b""
    faulty = FaultyStdout(stdout)

    # The rows each op that turns takes: the forward turn, its backward pass, and q and k turned in one call.
    turned_rows = {"rotate": ("x",), "rotate_grad": ("dy",), "rotate_qk": ("q", "k")}

    def fn(op, spec, inputs):
        turns = op in turned_rows
        if mode == "unsupported_unless_position_0" and turns and inputs["pos"].any():
            raise pecheck_serve.Unsupported("a position past 0")
        if mode == "unsupported_unless_position_0" and op == "apply_tables" and inputs["sin"].any():
            raise pecheck_serve.Unsupported("tables of a position past 0")
        if mode == "unsupported_on_edge_values" and turns:
            for name in turned_rows[op]:
                x = abs(inputs[name])
                if ((x > 0) & (x < numpy.finfo(x.dtype).tiny)).any() or (x > 2.0 ** 100).any():
                    raise pecheck_serve.Unsupported("a value at the dtype's edges")
        if mode == "inv_freq_only" and op != "inv_freq":
            raise pecheck_serve.Unsupported(op)
        if mode in ATTACKS and op == "rotate":
            attack_gate()
        if mode in WRITES and op == "rotate":
            write_into_gate_dir()
        if mode in FLOODS and op == "rotate":
            sys.stderr.buffer.write((b"e" * 4095 + b"\n") * 1024)
            sys.stderr.buffer.flush()
        if op == "rotate" and mode not in BEFORE_HELLO + CORRECT + DECLINING + ATTACKS + FLOODS + WRITES and fault_now():
            fault_in_call()
            faulty.fault_next = True
        return numpy_rope.rope(op, spec, inputs)

    sys.stdout = type("stdout", (), {"buffer": faulty})()
    pecheck_serve.serve(fn, name=f"faulty wire {mode}", ops=list(numpy_rope.OPS))


if mode in SERVED_MODES:
    serve_with_fault()
    sys.exit(0)


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
