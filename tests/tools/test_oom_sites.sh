#!/usr/bin/env bash
# make check's part of the allocation-failure sweep (tests/tools/oom_sweep.sh;
# `make check-oom` runs all of it): every command with the first call of each
# distinct caller failing in turn. About 20 s.
OOM_SWEEP=${OOM_SWEEP:-sites} exec bash "${srcdir:-.}/tests/tools/oom_sweep.sh" \
    "${top_builddir:-.}" "${srcdir:-.}"
