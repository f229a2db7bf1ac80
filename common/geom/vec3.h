/* Small 3-vector helpers on plain double[3] arrays, so they work directly
 * on structure-of-arrays particle state (&pos[3*i]). */
#ifndef MRDEM_GEOM_VEC3_H
#define MRDEM_GEOM_VEC3_H

#include <math.h>

static inline void vec3_set(double o[3], double x, double y, double z)
{
	o[0] = x, o[1] = y, o[2] = z;
}
static inline void vec3_copy(double o[3], const double a[3])
{
	o[0] = a[0], o[1] = a[1], o[2] = a[2];
}
static inline void vec3_add(double o[3], const double a[3], const double b[3])
{
	o[0] = a[0] + b[0], o[1] = a[1] + b[1], o[2] = a[2] + b[2];
}
static inline void vec3_sub(double o[3], const double a[3], const double b[3])
{
	o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static inline void vec3_scale(double o[3], const double a[3], double s)
{
	o[0] = a[0] * s, o[1] = a[1] * s, o[2] = a[2] * s;
}
/* o = a + s*b */
static inline void vec3_axpy(double o[3], const double a[3], double s, const double b[3])
{
	o[0] = a[0] + s * b[0], o[1] = a[1] + s * b[1], o[2] = a[2] + s * b[2];
}
static inline double vec3_dot(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void vec3_cross(double o[3], const double a[3], const double b[3])
{
	double x = a[1] * b[2] - a[2] * b[1];
	double y = a[2] * b[0] - a[0] * b[2];
	double z = a[0] * b[1] - a[1] * b[0];
	o[0] = x, o[1] = y, o[2] = z;
}
static inline double vec3_norm2(const double a[3])
{
	return vec3_dot(a, a);
}
static inline double vec3_norm(const double a[3])
{
	return sqrt(vec3_dot(a, a));
}
static inline double vec3_dist2(const double a[3], const double b[3])
{
	double d[3];
	vec3_sub(d, a, b);
	return vec3_norm2(d);
}
static inline double vec3_dist(const double a[3], const double b[3])
{
	double d[3];
	vec3_sub(d, a, b);
	return vec3_norm(d);
}
/* Normalise in place; returns the old length (0 leaves a unchanged). */
static inline double vec3_normalize(double a[3])
{
	double n = vec3_norm(a);
	if (n > 0)
		vec3_scale(a, a, 1.0 / n);
	return n;
}
static inline int vec3_isfinite(const double a[3])
{
	return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}

#endif
