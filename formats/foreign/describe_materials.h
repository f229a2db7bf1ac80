/* mrdem-info's text and JSON of the materials record. */
#ifndef MRDEM_FORMATS_FOREIGN_DESCRIBE_MATERIALS_H
#define MRDEM_FORMATS_FOREIGN_DESCRIBE_MATERIALS_H

#include "formats/foreign/describe.h"

/* s->materials must be set. */
void mrdem_describe_materials(struct mrdem_describe *in, const struct mrdem_setup *s);

#endif
