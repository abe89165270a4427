/* Forced in front of every source of tests/unit/test_metric_extra (-include): one
 * more registry entry, and nothing else. */
#define HR_TEST_METRIC_EXTRA 1
#define HR_METRIC_LIST_EXTRA(X)                                                                  \
    X(DUMMY, "extra.dummy_bytes", BYTES, U64, MEDIAN, MEASURED, ENGINE, NONE, CSV | PLOT, "dummy", \
      10, BYTES, "dummy")
