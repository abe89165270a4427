/* What json.c (construction, access, output) shares with json_parse.c (the
 * parser): a value of a type with nothing in it yet, and appending a member
 * whose key the object takes over, without looking for the key (the parser
 * keeps duplicate keys as the input has them). */
#ifndef HR_BASE_JSON_INT_H
#define HR_BASE_JSON_INT_H

#include "base/json.h"

/* A zeroed value of type t, or NULL (the allocation failure noted for the
 * output layer). */
hr_json_t *hr_json_new_value(hr_json_type_t t);

/* Appends key (owned from now on) and val to obj; -1 (both freed) when out
 * of memory. */
int hr_json_obj_append(hr_json_t *obj, char *key, hr_json_t *val);

#endif
