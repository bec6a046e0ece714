// SPDX-License-Identifier: GPL-3.0-or-later
// Shim header for libsndfile (LGPL-2.1), found through pkg-config "sndfile".
#ifndef BEATMAPKIT_CSNDFILE_SHIM_H
#define BEATMAPKIT_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
