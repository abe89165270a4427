/* JSON DOM (see json.h): construction, path lookup and output through the
 * emitter; the parser is json_parse.c. */
#include "base/json.h"
#include "base/json_int.h"
#include "base/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- construction ------------------------------------------------------ */

hr_json_t *hr_json_new_value(hr_json_type_t t) {
    hr_json_t *v = calloc(1, sizeof *v);
    if (v)
        v->type = t;
    else
        hr_outfile_note_oom();
    return v;
}

hr_json_t *hr_json_new_null(void) { return hr_json_new_value(HR_JSON_NULL); }
hr_json_t *hr_json_new_object(void) { return hr_json_new_value(HR_JSON_OBJECT); }
hr_json_t *hr_json_new_array(void) { return hr_json_new_value(HR_JSON_ARRAY); }

hr_json_t *hr_json_new_bool(int b) {
    hr_json_t *v = hr_json_new_value(HR_JSON_BOOL);
    if (v)
        v->boolean = !!b;
    return v;
}

hr_json_t *hr_json_new_num(double d) {
    hr_json_t *v = hr_json_new_value(HR_JSON_NUMBER);
    if (v)
        v->num = d;
    return v;
}

hr_json_t *hr_json_new_u64(uint64_t u) {
    hr_json_t *v = hr_json_new_num((double)u);
    if (v) {
        v->is_u64 = 1;
        v->u64 = u;
    }
    return v;
}

hr_json_t *hr_json_new_i64(int64_t i) {
    if (i >= 0)
        return hr_json_new_u64((uint64_t)i);
    hr_json_t *v = hr_json_new_num((double)i);
    if (v) {
        v->is_i64 = 1;
        v->i64 = i;
    }
    return v;
}

hr_json_t *hr_json_new_str(const char *s) {
    if (!s)
        return hr_json_new_null();
    hr_json_t *v = hr_json_new_value(HR_JSON_STRING);
    if (v && !(v->str = strdup(s))) {
        hr_outfile_note_oom();
        free(v);
        return NULL;
    }
    return v;
}

void hr_json_free(hr_json_t *v) {
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        hr_json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

static int grow(hr_json_t *c) {
    if (c->n < c->cap)
        return 0;
    size_t cap = c->cap ? c->cap * 2 : 8;
    hr_json_t **it = realloc(c->items, cap * sizeof *it);
    if (!it)
        goto oom;
    c->items = it;
    if (c->type == HR_JSON_OBJECT) {
        char **k = realloc(c->keys, cap * sizeof *k);
        if (!k)
            goto oom;
        c->keys = k;
    }
    c->cap = cap;
    return 0;
oom:
    hr_outfile_note_oom();
    return -1;
}

int hr_json_push(hr_json_t *arr, hr_json_t *val) {
    if (!arr || arr->type != HR_JSON_ARRAY || !val || grow(arr) < 0) {
        hr_json_free(val);
        return -1;
    }
    arr->items[arr->n++] = val;
    return 0;
}

int hr_json_obj_append(hr_json_t *obj, char *key, hr_json_t *val) {
    if (grow(obj) < 0) {
        free(key);
        hr_json_free(val);
        return -1;
    }
    obj->keys[obj->n] = key;
    obj->items[obj->n++] = val;
    return 0;
}

int hr_json_set(hr_json_t *obj, const char *key, hr_json_t *val) {
    if (!obj || obj->type != HR_JSON_OBJECT || !key || !val) {
        hr_json_free(val);
        return -1;
    }
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) {
            hr_json_free(obj->items[i]);
            obj->items[i] = val;
            return 0;
        }
    char *k = strdup(key);
    if (!k) {
        hr_outfile_note_oom();
        hr_json_free(val);
        return -1;
    }
    return hr_json_obj_append(obj, k, val);
}

int hr_json_remove(hr_json_t *obj, const char *key) {
    if (!obj || obj->type != HR_JSON_OBJECT || !key)
        return 0;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) {
            free(obj->keys[i]);
            hr_json_free(obj->items[i]);
            memmove(obj->keys + i, obj->keys + i + 1, (obj->n - i - 1) * sizeof *obj->keys);
            memmove(obj->items + i, obj->items + i + 1, (obj->n - i - 1) * sizeof *obj->items);
            obj->n--;
            return 1;
        }
    return 0;
}

hr_json_t *hr_json_clone(const hr_json_t *v) {
    if (!v)
        return NULL;
    hr_json_t *c = hr_json_new_value(v->type);
    if (!c)
        return NULL;
    c->boolean = v->boolean;
    c->num = v->num;
    c->is_u64 = v->is_u64;
    c->is_i64 = v->is_i64;
    c->u64 = v->u64;
    c->i64 = v->i64;
    if (v->str && !(c->str = strdup(v->str)))
        goto fail;
    for (size_t i = 0; i < v->n; i++) {
        hr_json_t *item = hr_json_clone(v->items[i]);
        if (!item)
            goto fail;
        if (v->type == HR_JSON_OBJECT) {
            char *k = strdup(v->keys[i]);
            if (!k || hr_json_obj_append(c, k, item) < 0) {
                if (!k)
                    hr_json_free(item);
                goto fail;
            }
        } else if (hr_json_push(c, item) < 0) {
            goto fail;
        }
    }
    return c;
fail:
    hr_outfile_note_oom();
    hr_json_free(c);
    return NULL;
}

/* ---- access ------------------------------------------------------------ */

hr_json_type_t hr_json_type(const hr_json_t *v) { return v ? v->type : HR_JSON_NULL; }

const hr_json_t *hr_json_get(const hr_json_t *obj, const char *key) {
    if (!obj || obj->type != HR_JSON_OBJECT || !key)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return obj->items[i];
    return NULL;
}

const hr_json_t *hr_json_path(const hr_json_t *root, const char *path) {
    const hr_json_t *v = root;
    char seg[256];
    while (v && path && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof seg)
            return NULL;
        memcpy(seg, path, n);
        seg[n] = 0;
        if (v->type == HR_JSON_ARRAY) {
            char *end;
            unsigned long idx = strtoul(seg, &end, 10);
            v = (n && !*end) ? hr_json_at(v, idx) : NULL;
        } else {
            v = hr_json_get(v, seg);
        }
        path = dot ? dot + 1 : NULL;
    }
    return v;
}

size_t hr_json_len(const hr_json_t *v) {
    return v && (v->type == HR_JSON_ARRAY || v->type == HR_JSON_OBJECT) ? v->n : 0;
}

const hr_json_t *hr_json_at(const hr_json_t *v, size_t i) {
    return i < hr_json_len(v) ? v->items[i] : NULL;
}

const char *hr_json_key_at(const hr_json_t *obj, size_t i) {
    return obj && obj->type == HR_JSON_OBJECT && i < obj->n ? obj->keys[i] : NULL;
}

double hr_json_num(const hr_json_t *v, double dflt) {
    return v && v->type == HR_JSON_NUMBER ? v->num : dflt;
}

int hr_json_get_u64(const hr_json_t *v, uint64_t *out) {
    if (!v || v->type != HR_JSON_NUMBER || !v->is_u64)
        return -1;
    *out = v->u64;
    return 0;
}

const char *hr_json_str(const hr_json_t *v) {
    return v && v->type == HR_JSON_STRING ? v->str : NULL;
}

int hr_json_is_true(const hr_json_t *v) { return v && v->type == HR_JSON_BOOL && v->boolean; }

double hr_json_path_num(const hr_json_t *root, const char *path) {
    return hr_json_num(hr_json_path(root, path), NAN);
}

const char *hr_json_path_str(const hr_json_t *root, const char *path) {
    return hr_json_str(hr_json_path(root, path));
}

/* ---- output ------------------------------------------------------------ */

/* A non-empty array of numbers: written on one line (hr_emit_arr_begin_inline). */
static int all_numbers(const hr_json_t *v) {
    for (size_t i = 0; i < v->n; i++)
        if (v->items[i]->type != HR_JSON_NUMBER)
            return 0;
    return v->n > 0;
}

void hr_json_emit(hr_emit_t *em, const char *key, const hr_json_t *v) {
    switch (hr_json_type(v)) {
    case HR_JSON_NULL: hr_emit_null(em, key); break;
    case HR_JSON_BOOL: hr_emit_bool(em, key, v->boolean); break;
    case HR_JSON_STRING: hr_emit_str(em, key, v->str); break;
    case HR_JSON_NUMBER:
        if (v->is_u64)
            hr_emit_u64(em, key, v->u64);
        else if (v->is_i64)
            hr_emit_i64(em, key, v->i64);
        else
            hr_emit_f64(em, key, v->num);
        break;
    case HR_JSON_ARRAY:
        if (all_numbers(v))
            hr_emit_arr_begin_inline(em, key);
        else
            hr_emit_arr_begin(em, key);
        for (size_t i = 0; i < v->n; i++)
            hr_json_emit(em, NULL, v->items[i]);
        hr_emit_arr_end(em);
        break;
    case HR_JSON_OBJECT:
        hr_emit_obj_begin(em, key);
        for (size_t i = 0; i < v->n; i++)
            hr_json_emit(em, v->keys[i], v->items[i]);
        hr_emit_obj_end(em);
        break;
    }
}

char *hr_json_to_string(const hr_json_t *v, int compact) {
    hr_emit_mem_t m;
    if (hr_emit_mem_open(&m, compact) != 0)
        return NULL;
    hr_json_emit(&m.em, NULL, v);
    return hr_emit_mem_close(&m); /* no trailing newline: callers decide */
}
