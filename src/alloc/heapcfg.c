/* The routed heap table: a line-oriented config parser and the compiled-in
 * default (docs/HEAP_CONFIG.md specifies the format; keep the two in step).
 *
 * Every directive is one line of whitespace-separated words; '#' starts a
 * comment. Names are declared before use (a parent, a search list entry, the
 * corral heap), which rules out parent cycles by construction. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/routed.h"

#define MAX_WORDS 24

/* The built-in tables. configs/shar-pc.heaps and configs/shar-ps2.heaps are
 * the same tables with their sources line by line (tests/unit/test_routed
 * checks that each file and its built-in twin parse to the same table); keep
 * them in step. Facts: the game's srrmemory.cpp / createheap.cpp
 * (configs/shar-pc.heaps tags each figure with its place in that source).
 * Both model the non-release build (FUDGE 2.0), where
 * the g_HeapCreationData kinds are real; sizes are the game's
 * static_cast<unsigned int>(HS_x * MB * FUDGE) computed in float.
 *
 * shar-pc, the default: RAD_WIN32 never creates Default, AudioPersistent,
 * Music, Level, LevelOther, LevelMission, Debug or SmallAlloc: those slots
 * keep the root malloc ("none"). Persistent is a tracking heap ("no static
 * heap for pc"). No corral: CORRAL_SMALL_ALLOCS is PS2-only. The only fixed
 * regions are Temp and LevelHud (7 MiB). In-game sizes where phases differ. */
static const char pc_text[] =
    "# heapreplay default heap table: The Simpsons: Hit & Run (2003), PC build,\n"
    "# non-release (FUDGE 2.0). Annotated copy: configs/shar-pc.heaps.\n"
    "#      id  name             kind      size      parent\n"
    "heap    0  Default          none      0         -\n"
    "heap    1  Temp             dlheap    2097152   Default\n"
    "heap    3  Persistent       tracking  3460300   Default\n"
    "heap    4  Level            none      0         -\n"
    "heap    5  LevelMovie       tracking  4131389   Default\n"
    "heap    6  LevelFE          tracking  10485760  Default\n"
    "heap    7  LevelZone        tracking  16777216  Default\n"
    "heap    8  LevelOther       none      0         -\n"
    "heap    9  LevelHud         dlheap    5242880   Default\n"
    "heap   10  LevelMission     none      0         -\n"
    "heap   11  LevelAudio       tracking  104857    Default\n"
    "heap   12  Debug            none      0         -\n"
    "heap   13  Special          tracking  10485760  Default\n"
    "heap   14  Music            none      0         -\n"
    "heap   15  AudioPersistent  none      0         -\n"
    "heap   16  SmallAlloc       none      0         -\n"
    "#      id  name                  heaps to try, in order\n"
    "search 25  ANYWHERE_IN_LEVEL     Temp LevelZone LevelOther LevelMission LevelHud\n"
    "search 26  ANYWHERE_IN_FE        LevelMovie LevelFE LevelAudio\n"
    "search 27  EITHER_OTHER_OR_ZONE  LevelOther LevelZone\n"
    "default Default\n"
    "corral off\n";

/* shar-ps2: DEFAULT is a Doug Lea heap (its size is run-time on the console:
 * ours is an assumption, HS_LEVEL x FUDGE = 32 MiB), OTHER, MISSION and DEBUG
 * are aliases of it, Music an alias of AudioPersistent, Persistent a static
 * heap, and small requests (< 201 bytes) are corralled into SmallAlloc. */
static const char ps2_text[] =
    "# The Simpsons: Hit & Run (2003), PS2 build with CORRAL_SMALL_ALLOCS,\n"
    "# non-release (FUDGE 2.0). Annotated copy: configs/shar-ps2.heaps.\n"
    "#      id  name             kind      size      parent\n"
    "heap    0  Default          dlheap    32M       -\n"
    "heap    1  Temp             dlheap    734003    Default\n"
    "heap    3  Persistent       static    4718592   Default\n"
    "heap    4  Level            none      0         -\n"
    "heap    5  LevelMovie       tracking  2034237   Default\n"
    "heap    6  LevelFE          tracking  29360128  Default\n"
    "heap    7  LevelZone        tracking  24117248  Default\n"
    "heap    8  LevelOther       alias     0         Default\n"
    "heap    9  LevelHud         dlheap    3502243   Default\n"
    "heap   10  LevelMission     alias     0         Default\n"
    "heap   11  LevelAudio       tracking  104857    Default\n"
    "heap   12  Debug            alias     0         Default\n"
    "heap   13  Special          tracking  10485760  Default\n"
    "heap   15  AudioPersistent  dlheap    1300234   Default\n"
    "heap   14  Music            alias     0         AudioPersistent\n"
    "heap   16  SmallAlloc       dlheap    8593408   Default\n"
    "#      id  name                  heaps to try, in order\n"
    "search 25  ANYWHERE_IN_LEVEL     Temp LevelZone LevelOther LevelMission LevelHud\n"
    "search 26  ANYWHERE_IN_FE        LevelMovie LevelFE LevelAudio\n"
    "search 27  EITHER_OTHER_OR_ZONE  LevelOther LevelZone\n"
    "default Default\n"
    "corral 201 SmallAlloc\n"
    "corral_except Persistent Temp AudioPersistent\n";

typedef struct builtin {
    const char *name, *text;
    size_t      len;
} builtin_t;

static const builtin_t builtins[] = {
    {"shar-pc", pc_text, sizeof pc_text - 1},
    {"shar-ps2", ps2_text, sizeof ps2_text - 1},
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

const char *hr_heapcfg_default_text(void) { return pc_text; }

const char *hr_heapcfg_builtin_text(const char *name) {
    for (size_t i = 0; i < N_BUILTINS; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return builtins[i].text;
    return NULL;
}

const char *hr_heap_kind_name(hr_heap_kind_t k) {
    static const char *const names[] = {"none", "static", "tracking", "dlheap", "alias"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

int hr_heapcfg_lookup(const hr_heapcfg_t *c, const char *name) {
    for (int i = 0; i < c->nheaps; i++)
        if (strcmp(c->heaps[i].name, name) == 0)
            return i;
    for (int i = 0; i < c->nsearches; i++)
        if (strcmp(c->searches[i].name, name) == 0)
            return c->nheaps + i;
    return -1;
}

const char *hr_heapcfg_target_name(const hr_heapcfg_t *c, int t) {
    if (t >= 0 && t < c->nheaps)
        return c->heaps[t].name;
    if (t >= c->nheaps && t < c->nheaps + c->nsearches)
        return c->searches[t - c->nheaps].name;
    return "?";
}

typedef struct parser {
    hr_heapcfg_t *c;
    const char   *file;
    int           line;
    hr_error_t   *err;
} parser_t;

#define FAIL(P, ...)                                                          \
    do {                                                                      \
        char what_[400];                                                      \
        snprintf(what_, sizeof what_, __VA_ARGS__);                           \
        hr_error_set((P)->err, "%s:%d: %s", (P)->file, (P)->line, what_);     \
        return -1;                                                            \
    } while (0)

static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30, end++;
    else if (*end == 'T' || *end == 't') /* the limit's own unit: "1T" is allowed */
        mul = 1ull << 40, end++;
    if (errno || *end || v > max / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static int valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n >= HR_HEAPCFG_NAME || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return 1;
}

static int id_taken(const hr_heapcfg_t *c, int id) {
    for (int i = 0; i < c->nheaps; i++)
        if (c->heaps[i].id == id)
            return 1;
    for (int i = 0; i < c->nsearches; i++)
        if (c->searches[i].id == id)
            return 1;
    return 0;
}

/* Shared checks for "heap ID NAME" and "search ID NAME". */
static int parse_id_name(parser_t *p, char **w, int *id, char *name) {
    uint64_t v;
    if (parse_u64(w[1], 9999, &v) != 0)
        FAIL(p, "expected an id (0..9999), got '%s'", w[1]);
    if (id_taken(p->c, (int)v))
        FAIL(p, "expected a unique id, %d is already used", (int)v);
    if (!valid_name(w[2]))
        FAIL(p, "expected a name (letter, then letters/digits/_-., < %d chars), got '%s'",
             HR_HEAPCFG_NAME, w[2]);
    if (hr_heapcfg_lookup(p->c, w[2]) >= 0)
        FAIL(p, "expected a unique name, '%s' is already declared", w[2]);
    *id = (int)v;
    snprintf(name, HR_HEAPCFG_NAME, "%s", w[2]);
    return 0;
}

static int heap_ref(parser_t *p, const char *name, const char *role) {
    int t = hr_heapcfg_lookup(p->c, name);
    if (t < 0 || t >= p->c->nheaps)
        FAIL(p, "expected a declared heap name as %s, got '%s'", role, name);
    return t;
}

static int do_heap(parser_t *p, char **w, int nw) {
    hr_heapcfg_t *c = p->c;
    if (nw < 5 || nw > 6)
        FAIL(p, "expected 'heap ID NAME KIND SIZE [PARENT]'");
    if (c->nheaps >= HR_HEAPCFG_MAX_HEAPS)
        FAIL(p, "expected at most %d heaps", HR_HEAPCFG_MAX_HEAPS);
    hr_heapcfg_heap_t h;
    memset(&h, 0, sizeof h);
    h.parent = -1;
    if (parse_id_name(p, w, &h.id, h.name) != 0)
        return -1;
    if (!strcmp(w[3], "static"))
        h.kind = HR_HEAP_STATIC;
    else if (!strcmp(w[3], "tracking"))
        h.kind = HR_HEAP_TRACKING;
    else if (!strcmp(w[3], "dlheap"))
        h.kind = HR_HEAP_DLHEAP;
    else if (!strcmp(w[3], "none"))
        h.kind = HR_HEAP_NONE;
    else if (!strcmp(w[3], "alias"))
        h.kind = HR_HEAP_ALIAS;
    else
        FAIL(p, "expected a kind (static, tracking, dlheap, none or alias), got '%s'", w[3]);
    if (parse_u64(w[4], 1ull << 40, &h.size) != 0)
        FAIL(p, "expected a size in bytes with optional K/M/G/T suffix (<= 1T), got '%s'", w[4]);
    if ((h.kind == HR_HEAP_STATIC || h.kind == HR_HEAP_DLHEAP) && h.size < 4096)
        FAIL(p, "expected a size of at least 4096 bytes for a %s heap", w[3]);
    if (nw == 6 && strcmp(w[5], "-") != 0) {
        h.parent = heap_ref(p, w[5], "parent");
        if (h.parent < 0)
            return -1;
    }
    if (h.kind == HR_HEAP_ALIAS && h.parent < 0) /* an alias names the heap it stands for */
        FAIL(p, "expected the heap an alias stands for as its parent");
    c->heaps[c->nheaps++] = h;
    return 0;
}

static int do_search(parser_t *p, char **w, int nw) {
    hr_heapcfg_t *c = p->c;
    if (nw < 4)
        FAIL(p, "expected 'search ID NAME HEAP...' with at least one heap");
    if (nw - 3 > HR_HEAPCFG_MAX_LIST)
        FAIL(p, "expected at most %d heaps in a search list", HR_HEAPCFG_MAX_LIST);
    if (c->nsearches >= HR_HEAPCFG_MAX_SEARCH)
        FAIL(p, "expected at most %d search entries", HR_HEAPCFG_MAX_SEARCH);
    hr_heapcfg_search_t s;
    memset(&s, 0, sizeof s);
    if (parse_id_name(p, w, &s.id, s.name) != 0)
        return -1;
    for (int i = 3; i < nw; i++) {
        int h = heap_ref(p, w[i], "search list entry");
        if (h < 0)
            return -1;
        s.heaps[s.n++] = h;
    }
    c->searches[c->nsearches++] = s;
    return 0;
}

static int do_directive(parser_t *p, char **w, int nw, int *saw_default) {
    hr_heapcfg_t *c = p->c;
    if (!strcmp(w[0], "heap"))
        return do_heap(p, w, nw);
    if (!strcmp(w[0], "search"))
        return do_search(p, w, nw);
    if (!strcmp(w[0], "default")) {
        if (nw != 2)
            FAIL(p, "expected 'default NAME'");
        int t = hr_heapcfg_lookup(c, w[1]);
        if (t < 0)
            FAIL(p, "expected a declared heap or search name, got '%s'", w[1]);
        if (t >= c->nheaps) /* searches are numbered after all heaps: fix up at the end */
            t = -2 - (t - c->nheaps);
        c->default_heap = t;
        *saw_default = 1;
        return 0;
    }
    if (!strcmp(w[0], "corral")) {
        if (nw == 2 && !strcmp(w[1], "off")) {
            c->corral_below = 0;
            c->corral_heap = -1;
            return 0;
        }
        uint64_t below;
        if (nw != 3 || parse_u64(w[1], 1ull << 30, &below) != 0)
            FAIL(p, "expected 'corral BYTES HEAP' or 'corral off'");
        int h = heap_ref(p, w[2], "corral heap");
        if (h < 0)
            return -1;
        c->corral_below = below;
        c->corral_heap = h;
        return 0;
    }
    if (!strcmp(w[0], "corral_except")) {
        if (nw < 2)
            FAIL(p, "expected 'corral_except HEAP...'");
        for (int i = 1; i < nw; i++) {
            int h = heap_ref(p, w[i], "corral exception");
            if (h < 0)
                return -1;
            c->heaps[h].corral_exempt = 1;
        }
        return 0;
    }
    FAIL(p, "expected a directive (heap, search, default, corral, corral_except), got '%s'",
         w[0]);
}

/* Splits one line in place into words; drops the comment. */
static int split_words(char *line, char **w) {
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\v\f", &save); t; t = strtok_r(NULL, " \t\r\v\f", &save)) {
        if (n == MAX_WORDS)
            return -1;
        w[n++] = t;
    }
    return n;
}

int hr_heapcfg_parse(hr_heapcfg_t *c, const char *text, size_t len, const char *name,
                     hr_error_t *err) {
    memset(c, 0, sizeof *c);
    c->corral_heap = -1;
    parser_t p = {c, name ? name : "(config)", 0, err};
    int saw_default = 0;
    char buf[1024];
    size_t pos = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n')
            e++;
        p.line++;
        if (e - pos >= sizeof buf)
            FAIL(&p, "expected a line shorter than %zu bytes", sizeof buf);
        memcpy(buf, text + pos, e - pos);
        buf[e - pos] = '\0';
        if (memchr(buf, '\0', e - pos))
            FAIL(&p, "expected text, found a NUL byte");
        pos = e + 1;
        char *w[MAX_WORDS];
        int nw = split_words(buf, w);
        if (nw < 0)
            FAIL(&p, "expected at most %d words on a line", MAX_WORDS);
        if (nw > 0 && do_directive(&p, w, nw, &saw_default) != 0)
            return -1;
    }
    p.line++;
    if (c->nheaps == 0)
        FAIL(&p, "expected at least one 'heap' line before the end of the file");
    if (!saw_default)
        c->default_heap = 0;
    else if (c->default_heap <= -2)
        c->default_heap = c->nheaps + (-2 - c->default_heap);
    return 0;
}

int hr_heapcfg_load(hr_heapcfg_t *c, const char *path, hr_error_t *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        hr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            if (cap >= (1u << 24)) { /* a heap table is tiny: refuse huge files */
                free(buf);
                fclose(f);
                hr_error_set(err, "%s: expected a config file under 16 MiB", path);
                return -1;
            }
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                hr_error_set(err, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    int rc = -1;
    if (bad)
        hr_error_set(err, "%s: read error", path);
    else
        rc = hr_heapcfg_parse(c, buf, len, path, err);
    free(buf);
    return rc;
}

/* Parses a built-in table. The texts are constants checked by
 * tests/unit/test_routed; a parse error here is a build defect, not bad input. */
static void parse_builtin(hr_heapcfg_t *c, const builtin_t *b) {
    hr_error_t err;
    if (hr_heapcfg_parse(c, b->text, b->len, b->name, &err) != 0) {
        fprintf(stderr, "heapreplay: internal error in the built-in heap table: %s\n", err.msg);
        abort();
    }
}

void hr_heapcfg_default(hr_heapcfg_t *c) { parse_builtin(c, &builtins[0]); }

int hr_heapcfg_builtin(hr_heapcfg_t *c, const char *name) {
    for (size_t i = 0; i < N_BUILTINS; i++)
        if (strcmp(builtins[i].name, name) == 0) {
            parse_builtin(c, &builtins[i]);
            return 0;
        }
    return -1;
}
