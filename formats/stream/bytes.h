/* Little-endian encoding and bounds-checked decoding of record payloads.
 * Fields are written one by one, never by dumping structs. */
#ifndef MRDEM_FORMATS_BYTES_H
#define MRDEM_FORMATS_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* n-byte little-endian integers at p (n <= 8). */
void mrdem_le_put(unsigned char *p, uint64_t v, int n);
uint64_t mrdem_le_get(const unsigned char *p, int n);

struct mrdem_buf {
	unsigned char *p;
	size_t len, cap;
};

void mrdem_buf_init(struct mrdem_buf *b);
void mrdem_buf_release(struct mrdem_buf *b);
void mrdem_buf_reserve(struct mrdem_buf *b, size_t extra);
void mrdem_buf_u32(struct mrdem_buf *b, uint32_t v);
void mrdem_buf_u64(struct mrdem_buf *b, uint64_t v);
void mrdem_buf_f32(struct mrdem_buf *b, float v);
void mrdem_buf_f64(struct mrdem_buf *b, double v);
void mrdem_buf_bytes(struct mrdem_buf *b, const void *p, size_t n);
/* u32 length then the bytes, no terminator. */
void mrdem_buf_str(struct mrdem_buf *b, const char *s);
/* Arrays of n values. */
void mrdem_buf_u32s(struct mrdem_buf *b, const uint32_t *v, size_t n);
void mrdem_buf_u64s(struct mrdem_buf *b, const uint64_t *v, size_t n);
void mrdem_buf_f32s(struct mrdem_buf *b, const float *v, size_t n);
void mrdem_buf_f64s(struct mrdem_buf *b, const double *v, size_t n);

/* A decoder over one payload. Reading past the end sets `bad` and yields
 * zeros, so decoders read everything and check once at the end. */
struct mrdem_cursor {
	const unsigned char *p;
	size_t len, pos;
	int bad;
};

void mrdem_cursor_init(struct mrdem_cursor *c, const void *p, size_t len);
uint32_t mrdem_get_u32(struct mrdem_cursor *c);
uint64_t mrdem_get_u64(struct mrdem_cursor *c);
float mrdem_get_f32(struct mrdem_cursor *c);
double mrdem_get_f64(struct mrdem_cursor *c);
/* Returns a malloc'd NUL-terminated copy (NULL when bad). */
char *mrdem_get_str(struct mrdem_cursor *c);
/* Bulk reads into caller storage; fail (bad) unless n values remain. */
void mrdem_get_bytes(struct mrdem_cursor *c, void *dst, size_t n);
void mrdem_get_u32s(struct mrdem_cursor *c, uint32_t *v, size_t n);
void mrdem_get_u64s(struct mrdem_cursor *c, uint64_t *v, size_t n);
void mrdem_get_f32s(struct mrdem_cursor *c, float *v, size_t n);
void mrdem_get_f64s(struct mrdem_cursor *c, double *v, size_t n);
/* True when at least n * size bytes remain (guards allocations driven by
 * counts read from the stream). */
int mrdem_cursor_has(const struct mrdem_cursor *c, uint64_t n, size_t size);

#endif
