// SPDX-License-Identifier: GPL-3.0-or-later
// Shim header for libsoxr (LGPL-2.1+), the resampler, found through pkg-config "soxr".
#ifndef BEATMAPKIT_CSOXR_SHIM_H
#define BEATMAPKIT_CSOXR_SHIM_H
#include <soxr.h>
#endif
