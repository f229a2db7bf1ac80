/* Single-precision 3-vectors as values, for the narrow-phase lane kernels.
 * Everything is always_inline so that, once a kernel's lane loop is
 * inlined, only scalars remain and `omp simd` can vectorise across lanes.
 * Min/max are written as the compare-select that maps onto one vector
 * instruction (the C library's fminf has NaN rules that do not). */
#ifndef MRDEM_NARROW_V3F_H
#define MRDEM_NARROW_V3F_H

#define MRDEM_INLINE static inline __attribute__((always_inline))

typedef struct {
	float x, y, z;
} v3f;

MRDEM_INLINE v3f v3f_make(float x, float y, float z)
{
	v3f r = {x, y, z};
	return r;
}
MRDEM_INLINE v3f v3f_add(v3f a, v3f b)
{
	return v3f_make(a.x + b.x, a.y + b.y, a.z + b.z);
}
MRDEM_INLINE v3f v3f_sub(v3f a, v3f b)
{
	return v3f_make(a.x - b.x, a.y - b.y, a.z - b.z);
}
MRDEM_INLINE v3f v3f_scale(v3f a, float s)
{
	return v3f_make(a.x * s, a.y * s, a.z * s);
}
/* a + s b */
MRDEM_INLINE v3f v3f_axpy(v3f a, float s, v3f b)
{
	return v3f_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
MRDEM_INLINE float v3f_dot(v3f a, v3f b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}
MRDEM_INLINE v3f v3f_cross(v3f a, v3f b)
{
	return v3f_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
MRDEM_INLINE v3f v3f_select(int m, v3f a, v3f b)
{
	return v3f_make(m ? a.x : b.x, m ? a.y : b.y, m ? a.z : b.z);
}
MRDEM_INLINE float minf_(float a, float b)
{
	return a < b ? a : b;
}
MRDEM_INLINE float maxf_(float a, float b)
{
	return a > b ? a : b;
}
MRDEM_INLINE float clampf_(float x, float lo, float hi)
{
	return minf_(maxf_(x, lo), hi);
}

#endif
