#!/usr/bin/env python3
"""Runs `HEAPREPLAY capture -o OUT -- PROG 200 READY` on a new pseudo-terminal
(as its foreground job, as from an interactive shell), waits for PROG's
READY file, then types at the terminal: MODE "int" types ^C; MODE "tstp"
types ^Z, reports the state of capture and of PROG, continues capture
(SIGCONT, as `fg` does), reports PROG's state, then types ^C. Prints
"key value" lines for tests/cli/test_capture.sh: stopped_capture and
stopped_program (T when stopped), continued_program, exit (capture's exit
status), program (gone or running at the end).
Usage: pty_interrupt.py HEAPREPLAY OUT PROG READY MODE"""
import os
import pty
import signal
import sys
import time

hr, out, prog, ready, mode = sys.argv[1:6]


def state(pid):
    """The process state letter of /proc/PID/stat, or "gone"."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0]
    except (FileNotFoundError, IndexError):
        return "gone"


def settle(want, *pids):
    """Waits up to 10 s until every pid is in state `want` (a busy machine
    may take a while to schedule capture's reaction)."""
    for _ in range(200):
        if all(state(p) == want for p in pids):
            return
        time.sleep(0.05)


pid, fd = pty.fork()
if pid == 0:
    os.execv(hr, [hr, "capture", "-o", out, "--", prog, "200", ready])
for _ in range(200):
    if os.path.exists(ready):
        break
    time.sleep(0.05)
with open(ready) as f:
    ppid = int(f.read())
if mode == "tstp":
    os.write(fd, b"\x1a")
    settle("T", pid, ppid)
    print("stopped_capture", state(pid))
    print("stopped_program", state(ppid))
    os.kill(pid, signal.SIGCONT)
    settle("S", ppid)
    print("continued_program", state(ppid))
os.write(fd, b"\x03")
while True:
    try:
        if not os.read(fd, 4096):
            break
    except OSError:
        break
_, st = os.waitpid(pid, 0)
print("exit", os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
s = state(ppid)
print("program", "gone" if s in ("gone", "Z") else "running")
if s not in ("gone", "Z"):
    os.kill(ppid, signal.SIGKILL)
