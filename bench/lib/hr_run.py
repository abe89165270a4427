#!/usr/bin/env python3
"""One program run under an allocator, for the bench scripts: LD_PRELOAD set
to LIB (unset for "" = glibc), the program's output to /dev/null, its
resource use from wait4 (the kernel's exact CPU time: user + system to the
microsecond, with what it waited for).

  hr_run.py LIB CMD [ARGS...]   prints "user_s sys_s minflt exit"

As a module: run_preloaded(argv, lib) -> (exit code, rusage)."""
import os
import sys


def run_preloaded(argv, lib):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if lib:
        env["LD_PRELOAD"] = lib
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: hr_run.py LIB CMD [ARGS...]")
    code, ru = run_preloaded(sys.argv[2:], sys.argv[1])
    print("%.6f %.6f %d %d" % (ru.ru_utime, ru.ru_stime, ru.ru_minflt, code))
