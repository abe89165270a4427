# fragment of Makefile.am: the allocators (src/alloc/), plain libraries with
# no replay knowledge: the game-engine allocators (stack, marker, block, bank,
# sizeclass), the routed heap manager with its Doug-Lea-style heap and
# heap-table config parser, and the fallback-block accounting (chunk.h).
# Their backends live in src/backends/backends.mk.
libhr_a_SOURCES += src/alloc/stack.c src/alloc/marker.c src/alloc/block.c \
	src/alloc/bank.c src/alloc/sizeclass.c src/alloc/segcache.c \
	src/alloc/dlheap.c src/alloc/heapcfg.c src/alloc/routed.c src/alloc/routed_heaps.c
noinst_HEADERS += src/alloc/chunk.h src/alloc/routed_int.h
# Not installed (no installed library to link them with): README, "Install".
noinst_HEADERS += src/alloc/stack.h src/alloc/marker.h \
	src/alloc/block.h src/alloc/bank.h src/alloc/sizeclass.h src/alloc/segcache.h \
	src/alloc/routed.h src/alloc/dlheap.h src/alloc/alloc_stats.h
# The routed backend's heap tables as annotated files (built-in twins in
# heapcfg.c: -a routed:shar-pc / routed:shar-ps2, or --heap-config FILE).
EXTRA_DIST += configs/shar-pc.heaps configs/shar-ps2.heaps
