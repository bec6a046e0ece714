// SPDX-License-Identifier: GPL-3.0-or-later
// Shim header for OpenSSL's libcrypto (Apache-2.0), the SHA-256 of audio files, found through
// pkg-config "libcrypto".
#ifndef BEATMAPKIT_CCRYPTO_SHIM_H
#define BEATMAPKIT_CCRYPTO_SHIM_H
// SHA256_Init/Update/Final: deprecated in OpenSSL 3 in favour of EVP, but kept, and they need none of
// EVP's provider machinery (which costs 2 MB of memory on first use, beside an analysis held to 64 MB).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#endif
