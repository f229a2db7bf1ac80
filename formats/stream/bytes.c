#include "formats/stream/bytes.h"

#include <stdlib.h>
#include <string.h>

#include "common/util/error.h"

void mrdem_buf_init(struct mrdem_buf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
}

void mrdem_buf_release(struct mrdem_buf *b)
{
	free(b->p);
	mrdem_buf_init(b);
}

void mrdem_buf_reserve(struct mrdem_buf *b, size_t extra)
{
	if (b->len + extra <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra)
		cap *= 2;
	b->p = mrdem_xrealloc_for(b->p, cap, 1, "bytes of a record");
	b->cap = cap;
}

void mrdem_buf_bytes(struct mrdem_buf *b, const void *p, size_t n)
{
	mrdem_buf_reserve(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void mrdem_le_put(unsigned char *o, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		o[i] = (unsigned char)(v >> (8 * i));
}

uint64_t mrdem_le_get(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint64_t f64_bits(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return u;
}

static uint32_t f32_bits(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof u);
	return u;
}

void mrdem_buf_u32(struct mrdem_buf *b, uint32_t v)
{
	mrdem_buf_reserve(b, 4);
	mrdem_le_put(b->p + b->len, v, 4);
	b->len += 4;
}

void mrdem_buf_u64(struct mrdem_buf *b, uint64_t v)
{
	mrdem_buf_reserve(b, 8);
	mrdem_le_put(b->p + b->len, v, 8);
	b->len += 8;
}

void mrdem_buf_f32(struct mrdem_buf *b, float v)
{
	mrdem_buf_u32(b, f32_bits(v));
}

void mrdem_buf_f64(struct mrdem_buf *b, double v)
{
	mrdem_buf_u64(b, f64_bits(v));
}

void mrdem_buf_str(struct mrdem_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	mrdem_buf_u32(b, (uint32_t)n);
	mrdem_buf_bytes(b, s, n);
}

/* Bulk writers: one reservation, then element-wise little-endian stores
 * (memcpy on little-endian hosts would be the same bytes, but this stays
 * portable and the compiler turns it into plain stores). */
void mrdem_buf_u32s(struct mrdem_buf *b, const uint32_t *v, size_t n)
{
	mrdem_buf_reserve(b, 4 * n);
	for (size_t i = 0; i < n; i++)
		mrdem_le_put(b->p + b->len + 4 * i, v[i], 4);
	b->len += 4 * n;
}

void mrdem_buf_u64s(struct mrdem_buf *b, const uint64_t *v, size_t n)
{
	mrdem_buf_reserve(b, 8 * n);
	for (size_t i = 0; i < n; i++)
		mrdem_le_put(b->p + b->len + 8 * i, v[i], 8);
	b->len += 8 * n;
}

void mrdem_buf_f32s(struct mrdem_buf *b, const float *v, size_t n)
{
	mrdem_buf_reserve(b, 4 * n);
	for (size_t i = 0; i < n; i++)
		mrdem_le_put(b->p + b->len + 4 * i, f32_bits(v[i]), 4);
	b->len += 4 * n;
}

void mrdem_buf_f64s(struct mrdem_buf *b, const double *v, size_t n)
{
	mrdem_buf_reserve(b, 8 * n);
	for (size_t i = 0; i < n; i++)
		mrdem_le_put(b->p + b->len + 8 * i, f64_bits(v[i]), 8);
	b->len += 8 * n;
}

void mrdem_cursor_init(struct mrdem_cursor *c, const void *p, size_t len)
{
	c->p = p;
	c->len = len;
	c->pos = 0;
	c->bad = 0;
}

int mrdem_cursor_has(const struct mrdem_cursor *c, uint64_t n, size_t size)
{
	if (c->bad)
		return 0;
	uint64_t left = c->len - c->pos;
	return size == 0 || n <= left / size;
}

/* Claim n bytes or mark the cursor bad. */
static const unsigned char *take(struct mrdem_cursor *c, size_t n)
{
	if (c->bad || n > c->len - c->pos) {
		c->bad = 1;
		return NULL;
	}
	const unsigned char *p = c->p + c->pos;
	c->pos += n;
	return p;
}

uint32_t mrdem_get_u32(struct mrdem_cursor *c)
{
	const unsigned char *p = take(c, 4);
	return p ? (uint32_t)mrdem_le_get(p, 4) : 0;
}

uint64_t mrdem_get_u64(struct mrdem_cursor *c)
{
	const unsigned char *p = take(c, 8);
	return p ? mrdem_le_get(p, 8) : 0;
}

float mrdem_get_f32(struct mrdem_cursor *c)
{
	uint32_t u = mrdem_get_u32(c);
	float v;
	memcpy(&v, &u, sizeof v);
	return v;
}

double mrdem_get_f64(struct mrdem_cursor *c)
{
	uint64_t u = mrdem_get_u64(c);
	double v;
	memcpy(&v, &u, sizeof v);
	return v;
}

char *mrdem_get_str(struct mrdem_cursor *c)
{
	uint32_t n = mrdem_get_u32(c);
	const unsigned char *p = take(c, n);
	if (!p)
		return NULL;
	char *s = mrdem_xmalloc((size_t)n + 1);
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

void mrdem_get_bytes(struct mrdem_cursor *c, void *dst, size_t n)
{
	const unsigned char *p = mrdem_cursor_has(c, n, 1) ? take(c, n) : (c->bad = 1, NULL);
	if (p)
		memcpy(dst, p, n);
	else
		memset(dst, 0, n);
}

void mrdem_get_u32s(struct mrdem_cursor *c, uint32_t *v, size_t n)
{
	const unsigned char *p = mrdem_cursor_has(c, n, 4) ? take(c, 4 * n) : (c->bad = 1, NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = p ? (uint32_t)mrdem_le_get(p + 4 * i, 4) : 0;
}

void mrdem_get_u64s(struct mrdem_cursor *c, uint64_t *v, size_t n)
{
	const unsigned char *p = mrdem_cursor_has(c, n, 8) ? take(c, 8 * n) : (c->bad = 1, NULL);
	for (size_t i = 0; i < n; i++)
		v[i] = p ? mrdem_le_get(p + 8 * i, 8) : 0;
}

void mrdem_get_f32s(struct mrdem_cursor *c, float *v, size_t n)
{
	const unsigned char *p = mrdem_cursor_has(c, n, 4) ? take(c, 4 * n) : (c->bad = 1, NULL);
	for (size_t i = 0; i < n; i++) {
		uint32_t u = p ? (uint32_t)mrdem_le_get(p + 4 * i, 4) : 0;
		memcpy(&v[i], &u, 4);
	}
}

void mrdem_get_f64s(struct mrdem_cursor *c, double *v, size_t n)
{
	const unsigned char *p = mrdem_cursor_has(c, n, 8) ? take(c, 8 * n) : (c->bad = 1, NULL);
	for (size_t i = 0; i < n; i++) {
		uint64_t u = p ? mrdem_le_get(p + 8 * i, 8) : 0;
		memcpy(&v[i], &u, 8);
	}
}
