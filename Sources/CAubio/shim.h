// SPDX-License-Identifier: GPL-3.0-or-later
// Shim header for aubio (GPL-3.0), found through pkg-config "aubio".
#ifndef BEATMAPKIT_CAUBIO_SHIM_H
#define BEATMAPKIT_CAUBIO_SHIM_H
#include <aubio/aubio.h>
#endif
