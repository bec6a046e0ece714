// SPDX-License-Identifier: GPL-3.0-or-later
// Shim header for PortAudio v19 (MIT-style licence), found through pkg-config "portaudio-2.0".
#ifndef BEATMAPKIT_CPORTAUDIO_SHIM_H
#define BEATMAPKIT_CPORTAUDIO_SHIM_H
#include <portaudio.h>
#endif
