/* Unit quaternions (w, x, y, z) for particle orientation: body -> world. */
#ifndef MRDEM_GEOM_QUAT_H
#define MRDEM_GEOM_QUAT_H

#include <math.h>

/* Orientations within this of unit norm are taken as rotations (scripts
 * print rounded values such as 0.7071; a scene normalises them, a frame
 * is used as written); farther ones, the zero quaternion among them, are
 * mistakes: their matrix is no rotation and would shear the shape. */
#define MRDEM_QUAT_NORM_TOL 1e-3

static inline void quat_identity(double q[4])
{
	q[0] = 1, q[1] = q[2] = q[3] = 0;
}

static inline double quat_normalize(double q[4])
{
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	/* dividing by exactly 1 changes no bit: a unit quaternion skips it */
	if (n > 0 && n != 1)
		for (int i = 0; i < 4; i++)
			q[i] /= n;
	return n;
}

/* o = a * b (apply b first, then a). */
static inline void quat_mul(double o[4], const double a[4], const double b[4])
{
	double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
	double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
	double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
	double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
	o[0] = w, o[1] = x, o[2] = y, o[3] = z;
}

/* Row-major rotation matrix of a unit quaternion. */
static inline void quat_to_matrix(const double q[4], double m[9])
{
	double w = q[0], x = q[1], y = q[2], z = q[3];
	m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y - w * z), m[2] = 2 * (x * z + w * y);
	m[3] = 2 * (x * y + w * z), m[4] = 1 - 2 * (x * x + z * z), m[5] = 2 * (y * z - w * x);
	m[6] = 2 * (x * z - w * y), m[7] = 2 * (y * z + w * x), m[8] = 1 - 2 * (x * x + y * y);
}

/* Quaternion for a rotation by angle (radians) about a unit axis. */
static inline void quat_from_axis_angle(double q[4], const double axis[3], double angle)
{
	double s = sin(0.5 * angle);
	q[0] = cos(0.5 * angle), q[1] = axis[0] * s, q[2] = axis[1] * s, q[3] = axis[2] * s;
}

/* o = m * v for a row-major 3x3 matrix. */
static inline void mat3_apply(double o[3], const double m[9], const double v[3])
{
	double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
	double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
	double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
	o[0] = x, o[1] = y, o[2] = z;
}

/* o = m^T * v (inverse rotation). */
static inline void mat3_apply_transpose(double o[3], const double m[9], const double v[3])
{
	double x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
	double y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
	double z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
	o[0] = x, o[1] = y, o[2] = z;
}

#endif
