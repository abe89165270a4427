/* A small JSON DOM: parse report/result documents, look values up by dotted
 * path, build documents, and write them through the emitter.
 *
 * Contracts:
 *  - Objects keep their key order (reports diff cleanly); duplicate keys in
 *    input are kept as parsed, lookups return the first one.
 *  - A number keeps its double value and, when its literal is an integer that
 *    fits, its exact uint64 (non-negative) or int64 (negative) value, so byte
 *    counts and op counts round-trip exactly.
 *  - Parse errors set `err` (src/base/error.h) to one line "NAME: offset N: expected ..."
 *    (N is a 0-based byte offset) and return NULL; never a crash.
 *  - Construction functions take ownership of the values they are given;
 *    hr_json_free() frees a whole tree.
 */
#ifndef HR_BASE_JSON_H
#define HR_BASE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/emit.h"
#include "base/error.h"

typedef enum hr_json_type {
    HR_JSON_NULL = 0,
    HR_JSON_BOOL,
    HR_JSON_NUMBER,
    HR_JSON_STRING,
    HR_JSON_ARRAY,
    HR_JSON_OBJECT,
} hr_json_type_t;

typedef struct hr_json hr_json_t;
struct hr_json {
    hr_json_type_t type;
    int            boolean;
    double         num;
    int            is_u64, is_i64; /* exact integer forms of num */
    uint64_t       u64;
    int64_t        i64;
    char          *str;    /* STRING */
    size_t         n, cap; /* ARRAY / OBJECT */
    hr_json_t    **items;
    char         **keys;   /* OBJECT only */
};

/* Parsing. `name` names the input in errors (NULL: "<input>"). */
hr_json_t *hr_json_parse(const char *buf, size_t len, const char *name, hr_error_t *err);
hr_json_t *hr_json_parse_file(const char *path, hr_error_t *err);
/* The same, refusing an input of more than `max` bytes (0: no limit) while
 * it is read, so a device or pipe without a size is bounded too. */
hr_json_t *hr_json_parse_file_max(const char *path, size_t max, hr_error_t *err);
void       hr_json_free(hr_json_t *v);

/* Access. All accept NULL and return NULL / the default on a type mismatch. */
hr_json_type_t   hr_json_type(const hr_json_t *v); /* NULL -> HR_JSON_NULL */
const hr_json_t *hr_json_get(const hr_json_t *obj, const char *key);
/* Dotted path: "memory.peak_footprint"; a numeric segment indexes an array
 * ("results.0.allocator"). */
const hr_json_t *hr_json_path(const hr_json_t *root, const char *path);
size_t           hr_json_len(const hr_json_t *v); /* array/object size, else 0 */
const hr_json_t *hr_json_at(const hr_json_t *v, size_t i);
const char      *hr_json_key_at(const hr_json_t *obj, size_t i);
double           hr_json_num(const hr_json_t *v, double dflt); /* number or dflt */
int              hr_json_get_u64(const hr_json_t *v, uint64_t *out); /* 0 if exact u64 */
const char      *hr_json_str(const hr_json_t *v); /* string or NULL */
int              hr_json_is_true(const hr_json_t *v);
/* Number at a dotted path, or NAN when missing/null/not a number. */
double           hr_json_path_num(const hr_json_t *root, const char *path);
const char      *hr_json_path_str(const hr_json_t *root, const char *path);

/* Construction (NULL on out-of-memory). */
hr_json_t *hr_json_new_null(void);
hr_json_t *hr_json_new_bool(int v);
hr_json_t *hr_json_new_num(double v); /* non-finite becomes null on output */
hr_json_t *hr_json_new_u64(uint64_t v);
hr_json_t *hr_json_new_i64(int64_t v);
hr_json_t *hr_json_new_str(const char *s); /* copies s; NULL -> null value */
hr_json_t *hr_json_new_object(void);
hr_json_t *hr_json_new_array(void);
/* Set obj[key] = val, replacing an existing key in place (keeps its position).
 * Takes ownership of val even on failure. 0 ok, -1 error. */
int hr_json_set(hr_json_t *obj, const char *key, hr_json_t *val);
/* Removes obj[key] (keeping the other keys' order): 1 when it was there, else 0. */
int hr_json_remove(hr_json_t *obj, const char *key);
/* Append val to an array (takes ownership). 0 ok, -1 error. */
int hr_json_push(hr_json_t *arr, hr_json_t *val);
/* Deep copy. */
hr_json_t *hr_json_clone(const hr_json_t *v);

/* Output through the emitter (key NULL inside arrays / at the top level). */
void  hr_json_emit(hr_emit_t *em, const char *key, const hr_json_t *v);
/* The whole value as a malloc'd JSON string (compact: one line). */
char *hr_json_to_string(const hr_json_t *v, int compact);

#endif
