#ifndef MRDEM_FORMATS_DESCRIBE_MOTION_H
#define MRDEM_FORMATS_DESCRIBE_MOTION_H

#include "formats/foreign/describe.h"

/* The motions of s (a motion record just absorbed), inside the record's
 * object. */
void mrdem_describe_motion(struct mrdem_describe *in, const struct mrdem_setup *s);

#endif
