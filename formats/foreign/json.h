/* A small streaming JSON writer for mrdem-info and other reports.
 * Commas and nesting are tracked here so callers just emit values. */
#ifndef MRDEM_FORMATS_JSON_H
#define MRDEM_FORMATS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define MRDEM_JSON_MAX_DEPTH 64

struct mrdem_json {
	FILE *f;
	int depth;
	int count[MRDEM_JSON_MAX_DEPTH]; /* values written at each level */
	int after_key;
};

void mrdem_json_init(struct mrdem_json *j, FILE *f);
void mrdem_json_begin_object(struct mrdem_json *j);
void mrdem_json_end_object(struct mrdem_json *j);
void mrdem_json_begin_array(struct mrdem_json *j);
void mrdem_json_end_array(struct mrdem_json *j);
void mrdem_json_key(struct mrdem_json *j, const char *key);
void mrdem_json_int(struct mrdem_json *j, int64_t v);
void mrdem_json_uint(struct mrdem_json *j, uint64_t v);
void mrdem_json_bool(struct mrdem_json *j, int v);
/* Arrays of numbers. */
void mrdem_json_nums(struct mrdem_json *j, const double *v, size_t n);
void mrdem_json_floats(struct mrdem_json *j, const float *v, size_t n);
void mrdem_json_uints(struct mrdem_json *j, const uint32_t *v, size_t n);
/* key: value shorthands. */
void mrdem_json_kv_num(struct mrdem_json *j, const char *key, double v);
void mrdem_json_kv_uint(struct mrdem_json *j, const char *key, uint64_t v);
void mrdem_json_kv_str(struct mrdem_json *j, const char *key, const char *s);
void mrdem_json_kv_nums(struct mrdem_json *j, const char *key, const double *v, size_t n);

#endif
